"""The multi-tile metric (pipeline/puzzles/tiles/multi.py): 3x3-multi and 2x5-multi built for
real, checked against a plain Python search that slides tiles in lists."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.engine import reference
from pipeline.engine import rows as row_rules
from pipeline.engine.core import Graph
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.tiles.multi import multi_rectangle
from tests.conftest import build_local, column, one, run_cli


def python_slides(board: tuple[int, ...], rows: int, cols: int) -> list[tuple[int, ...]]:
    """Every multi-tile move of a board (a tuple, 0 the blank), by moving list items:
    the blank walks k cells along its row or column, each tile passed moves back one."""
    b = board.index(0)
    r, c = divmod(b, cols)
    out = []
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        cells = list(board)
        rr, cc, at = r + dr, c + dc, b
        while 0 <= rr < rows and 0 <= cc < cols:
            nxt = rr * cols + cc
            cells[at], cells[nxt] = cells[nxt], 0
            out.append(tuple(cells))
            at, rr, cc = nxt, rr + dr, cc + dc
    return out


def python_levels(rows: int, cols: int, limit: int | None = None) -> list[set[tuple[int, ...]]]:
    """A plain set search from the goal: the boards at each depth."""
    goal = (*range(1, rows * cols), 0)
    levels = [{goal}]
    seen = {goal}
    while levels[-1] and (limit is None or len(levels) <= limit):
        new = {k for b in levels[-1] for k in python_slides(b, rows, cols)} - seen
        seen |= new
        levels.append(new)
    return levels[:-1] if not levels[-1] else levels


def one_slide_apart(a: tuple[int, ...], b: tuple[int, ...], rows: int, cols: int) -> bool:
    return b in python_slides(a, rows, cols)


@pytest.fixture(scope="module")
def multi_db(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Database:
    db = pipeline.open(tmp_path_factory.mktemp("multi"))
    db.build(["3x3-multi", "2x5-multi"])
    return db


def test_registry_names_and_graph() -> None:
    for name in ("3x3-multi", "2x5-multi", "3x4-multi", "2x6-multi"):
        p = puzzles.get(name)
        assert p.name == name and p.graph is Graph.REVERSIBLE
    assert puzzles.get("3x4-multi").has_kernels
    # 4x4 fills the 64 bits: no room for a tag, so no packed kernels (the slow step would do).
    assert multi_rectangle(4, 4).kernels is None
    assert puzzles.get("3x4-multi").kernels.tag_bits == 3  # five slides from every cell


def test_3x3_multi_deepest_is_24_moves(multi_db: pipeline.Database) -> None:
    # PUZZLES.md section 8: the 8 puzzle's deepest positions need 24 multi-tile moves.
    assert one(multi_db, 'SELECT count(*) FROM "3x3-multi"') == 181_440
    assert one(multi_db, 'SELECT max(depth) FROM "3x3-multi"') == 24
    deepest = column(
        multi_db, "SELECT board('3x3-multi', state) FROM \"3x3-multi\" WHERE depth = 24"
    )
    assert deepest == ["1 4 7 2 0 8 3 6 5"]
    sol = multi_db.solve("3x3-multi", deepest[0])
    assert sol.moves == 24 and sol.path[-1] == "1 2 3 4 5 6 7 8 0"
    boards = [tuple(map(int, t.split())) for t in sol.path]
    assert all(one_slide_apart(a, b, 3, 3) for a, b in itertools.pairwise(boards))


def test_3x3_multi_every_level_equals_a_plain_python_search(multi_db: pipeline.Database) -> None:
    levels = python_levels(3, 3)
    rows = (
        multi_db.connection()
        .execute("SELECT depth, list(board('3x3-multi', state)) FROM \"3x3-multi\" GROUP BY depth")
        .fetchall()
    )
    got = {d: {tuple(map(int, t.split())) for t in boards} for d, boards in rows}
    assert len(got) == len(levels) == 25
    assert all(got[d] == levels[d] for d in range(25))


def test_every_parent_is_one_multi_tile_slide(multi_db: pipeline.Database) -> None:
    # Checked here with list slides, apart from the puzzle's masks and shifts.
    rows = (
        multi_db.connection()
        .execute(
            "SELECT board('3x3-multi', state), board('3x3-multi', parent) "
            'FROM "3x3-multi" WHERE parent IS NOT NULL'
        )
        .fetchall()
    )
    assert len(rows) == 181_439
    for child, parent in rows:
        a, b = tuple(map(int, parent.split())), tuple(map(int, child.split()))
        assert one_slide_apart(a, b, 3, 3), (parent, child)
    # Slides of several tiles are used: some parent differs from its child in 3+ cells.
    moved = Counter(sum(x != y for x, y in zip(c.split(), p.split(), strict=True)) for c, p in rows)
    assert moved[3] > 0 and moved[2] > 0


def test_a_same_level_edge(multi_db: pipeline.Database) -> None:
    # A two-tile slide and the two single slides it is made of close a triangle: from
    # the goal, sliding 8 (one tile) and sliding 7 8 (two tiles) are both depth 1, and
    # the two positions are one single slide apart. No bipartite graph has that.
    one_tile, two_tiles = "1 2 3 4 5 6 7 0 8", "1 2 3 4 5 6 0 7 8"
    d = column(
        multi_db,
        f"SELECT depth FROM \"3x3-multi\" WHERE state = state_of('3x3-multi', '{one_tile}') "
        f'UNION ALL SELECT depth FROM "3x3-multi" '
        f"WHERE state = state_of('3x3-multi', '{two_tiles}')",
    )
    assert d == [1, 1]
    a, b = (tuple(map(int, t.split())) for t in (one_tile, two_tiles))
    assert one_slide_apart(a, b, 3, 3)
    # And many more: moves inside each level, found by the puzzle's own moves.
    p = puzzles.get("3x3-multi")
    level = np.array(column(multi_db, 'SELECT state FROM "3x3-multi" WHERE depth = 5'), np.uint64)
    _, children = p.expand(level)
    assert int(np.isin(children, level).sum()) > 0


def test_2x5_multi(multi_db: pipeline.Database) -> None:
    assert one(multi_db, 'SELECT count(*) FROM "2x5-multi"') == 1_814_400
    assert one(multi_db, 'SELECT max(depth) FROM "2x5-multi"') == 36
    assert multi_db.longest("2x5-multi")["position"].to_list() == ["5 4 3 2 1 0 9 8 7 6"]
    hist = dict(
        multi_db.connection()
        .execute('SELECT depth, count(*) FROM "2x5-multi" GROUP BY ALL')
        .fetchall()
    )
    levels = python_levels(2, 5, limit=16)
    assert [hist[d] for d in range(17)] == [len(lv) for lv in levels]


@pytest.mark.parametrize("name", ["3x3-multi", "2x5-multi"])
def test_verify_passes(multi_db: pipeline.Database, name: str) -> None:
    report = multi_db.verify(name)
    assert report.ok, report.problems
    assert report.positions == one(multi_db, f'SELECT count(*) FROM "{name}"')


def test_packed_kernels_give_the_same_rows(
    multi_db: pipeline.Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The default builds of these small boards run on (child, parent) rows; on packed
    # keys (multi_moves.py) every level gives the same files, byte for byte.
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    p = puzzles.get("3x3-multi")
    m = build_local(p, tmp_path)
    assert all(lv.stats["pairs"] > 0 for lv in m.levels[1:-1])
    ours = [f.sha256 for f in m.files]
    theirs = [f.sha256 for f in multi_db.table("3x3-multi").manifest.files]
    assert ours == theirs


def test_kernel_keys_undo_to_their_parents() -> None:
    p = puzzles.get("2x5-multi")
    states = next(itertools.islice(reference.search(p.roots(), p.expand, p.graph), 9, None)).states
    keys = p.kernels.keys(states)
    _, children = p.expand(states)
    assert sorted((keys >> np.uint64(p.kernels.tag_bits)).tolist()) == sorted(children.tolist())
    rows, parents = p.kernels.resolve(np.sort(keys))
    for child, parent in zip(rows[:500].tolist(), parents[:500].tolist(), strict=True):
        a = tuple(p.cells.values(parent))
        b = tuple(p.cells.values(child))
        assert one_slide_apart(a, b, 2, 5)


def test_cli_builds_and_solves_a_multi_board(tmp_path: Path) -> None:
    r = run_cli("build", "3x3-multi", data=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_cli("solve", "3x3-multi", "1 4 7 2 0 8 3 6 5", "--oneline", data=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("3x3-multi: 24 moves to the goal (optimal)")
    assert r.stdout.splitlines()[-1].split(maxsplit=1)[1] == "1 2 3 4 5 6 7 8 0"
