"""The encoding of ``?`` pieces (format version 2): a ``?`` piece keeps no orientation
digit, so a set of distinct pieces beside identical ``?`` ones is dense; a table of
version 1, where such a piece kept a digit of 0, is still read in its own encoding.
Figures worked by hand and from twsearch's counts (tests/test_twisty.py)."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

import pipeline
from pipeline.puzzles.twisty import sql as twisty_sql
from pipeline.storage import format as storage_format
from pipeline.storage import staging
from tests.conftest import build_local
from tests.test_twisty import DEFS, TWSEARCH, counts, puzzle

TOP = DEFS / "toplayer.tws"


def test_a_wild_piece_keeps_no_digit_so_the_states_are_dense() -> None:
    p = puzzle("toplayer")  # corners 1..4 distinct, three identical ? corners
    code = p.pack.sets[0]
    assert (code.arrangements, code.twists) == (840, 81)  # 7!/3!, 3^4: four twists kept
    assert p.pack.size == 68_040 == sum(TWSEARCH["toplayer"])  # every state reachable
    old = p.for_format(1).pack.sets[0]
    assert old.legacy and (old.arrangements, old.twists) == (840, 3**7)
    # R: corner 5 (?) at URF, 1 at UBR twisted once, 4 at DRB twisted twice. The rank
    # by brute force (lexicographic among the 840 arrangements), the digits those of
    # the positions holding 2, 3, 1, 4 in position order: 0 0 1 2.
    state = p.from_moves("R")
    assert p.block(state) == "CORNER\n5 2 3 1 5 5 4\n? 0 0 1 ? ? 2"
    seqs = sorted(set(itertools.permutations([1, 2, 3, 4, 5, 5, 5])))
    rank = seqs.index((5, 2, 3, 1, 5, 5, 4))
    assert state == rank * 81 + ((0 * 3 + 0) * 3 + 1) * 3 + 2


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``build --spec toplayer.tws`` in today's format, and the same table written in
    format version 1 by the puzzle reading it so."""
    new = tmp_path_factory.mktemp("new")
    pipeline.open(new).add_spec(TOP)
    pipeline.open(new).build(["toplayer"])
    old = tmp_path_factory.mktemp("old")
    db = pipeline.open(old)
    db.add_spec(TOP)
    legacy = db.puzzle("toplayer").for_format(1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(storage_format, "FORMAT_VERSION", 1)
        mp.setattr(staging, "FORMAT_VERSION", 1)
        m = build_local(legacy, old)
    assert m.format_version == 1
    pipeline.open(old).write_catalog()
    return new, old


def test_both_formats_read_their_own_states(folders: tuple[Path, Path]) -> None:
    """The same positions at every depth, each table's states in its own encoding: show
    reads a position to the same depth in both, and both verify."""
    new, old = (pipeline.open(f) for f in folders)
    assert counts(new.table("toplayer").manifest) == TWSEARCH["toplayer"]
    assert counts(old.table("toplayer").manifest) == TWSEARCH["toplayer"]
    assert old.table("toplayer").manifest.format_version == 1
    assert new.table("toplayer").manifest.format_version == 2
    line = "R U F' R2 U'"
    a, b = new.puzzle("toplayer"), old.puzzle("toplayer")
    assert b.legacy and not a.legacy
    assert a.from_moves(line) != b.from_moves(line)  # the encodings differ
    assert a.draw(a.from_moves(line)) == b.draw(b.from_moves(line))
    assert new.depth("toplayer", a.text(a.from_moves(line))) == 5
    assert old.depth("toplayer", b.text(b.from_moves(line))) == 5
    for db in (new, old):
        report = db.verify("toplayer")
        assert report.ok, report.problems
        assert (
            db.query("SELECT max(state) AS m FROM toplayer")["m"][0]
            < db.puzzle("toplayer").pack.size
        )


def test_the_catalog_macros_read_every_state_in_both_formats(folders: tuple[Path, Path]) -> None:
    for folder in folders:
        db = pipeline.open(folder)
        p = db.puzzle("toplayer")
        rows = db.query(
            "SELECT state, b, state_of('toplayer', b) AS back, drawing('toplayer', state) AS d "
            "FROM (SELECT state, board('toplayer', state) AS b FROM toplayer)"
        )
        assert rows.height == 68_040
        states = rows["state"].to_list()
        assert rows["b"].to_list() == [p.text(s) for s in states]
        assert rows["back"].to_list() == states
        assert rows["d"].to_list()[::997] == [p.draw(s) for s in states[::997]]


@pytest.mark.parametrize(("which", "rows"), [(0, 100), (1, 3000)])
def test_the_catalog_ranks_a_set_too_large_to_list(
    folders: tuple[Path, Path], which: int, rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A set whose arrangements would pass the look-up rows is unranked by the
    catalog's own macro (twisty_unrank; state_of ranks by arithmetic): the same lines,
    the same states back, in both formats (version 1: 2,187 orientation rows, 840
    arrangements computed)."""
    monkeypatch.setattr(twisty_sql, "MAX_ROWS", rows)
    twisty_sql._rows.cache_clear()
    folder = folders[which]
    copy = folder.parent / f"{folder.name}-ranked"
    shutil.copytree(folder, copy)
    pipeline.open(copy).write_catalog()
    try:
        db = pipeline.open(copy)
        assert db.query("SELECT count(*) AS n FROM twisty_arrangements")["n"][0] == 0
        p = db.puzzle("toplayer")
        got = db.query(
            "SELECT state, b, state_of('toplayer', b) AS back, drawing('toplayer', state) AS d "
            "FROM (SELECT state, board('toplayer', state) AS b FROM toplayer "
            "WHERE state % 97 = 0)"
        )
        states = got["state"].to_list()
        assert len(states) > 600
        assert got["b"].to_list() == [p.text(s) for s in states]
        assert got["back"].to_list() == states
        assert got["d"].to_list() == [p.draw(s) for s in states]
    finally:
        twisty_sql._rows.cache_clear()
