"""Symmetry classes of peg boards (tables ``<board>-sym``): built for real, checked
against the full tables and against a plain Python canonical form."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import pipeline
from pipeline.engine import reference
from pipeline.errors import BadPosition
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.pegs import board as pegs
from pipeline.puzzles.pegs.sym import CLASS_SIZE, CLASS_SIZE_DOC
from pipeline.puzzles.pegs.symmetries import symmetries
from pipeline.storage import format as fmt
from pipeline.storage import writer
from tests.conftest import run_cli

#: Positions after 0..8 jumps on the English board (tests/full/test_pegs_full.py).
ENGLISH_LEVELS = [1, 4, 12, 60, 296, 1338, 5648, 21842, 77559]


def py_canonical(perms: list[tuple[int, ...]], state: int) -> int:
    """The smallest image, bit by bit in plain Python (independent of the byte tables)."""
    n = len(perms[0])
    return min(sum(1 << p[i] for i in range(n) if state >> i & 1) for p in perms)


def test_symmetries_come_from_the_board_geometry() -> None:
    tri = symmetries(pegs.TRIANGLE15, 12)
    assert tri == [tuple(range(15)), (0, 2, 1, 5, 4, 3, 9, 8, 7, 6, 14, 13, 12, 11, 10)]
    assert len(symmetries(pegs.TRIANGLE15, 0)) == 2  # the apex: the same mirror
    corner = symmetries(pegs.TRIANGLE15, 10)  # a bottom corner: the mirror through it
    assert len(corner) == 2 and corner[1][10] == 10 and corner[1][0] == 14
    assert len(symmetries(pegs.TRIANGLE15, 4)) == 2  # no hole at the centroid
    for board in (pegs.ENGLISH33, pegs.FRENCH37):
        perms = symmetries(board, board.centre)
        assert len(perms) == 8 and all(p[board.centre] == board.centre for p in perms)
    assert len(symmetries(pegs.ENGLISH33, 1)) == 2  # on the vertical axis: its mirror
    assert len(symmetries(pegs.ENGLISH33, 0)) == 1  # on no axis: none


@pytest.fixture(scope="module")
def tri(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Database:
    db = pipeline.open(tmp_path_factory.mktemp("sym"))
    db.build(["triangle15-winnable", "triangle15-sym-winnable"])
    return db


def test_triangle15_classes_expand_to_the_full_table(tri: pipeline.Database) -> None:
    con = tri.connection()
    sums = con.execute(
        "SELECT depth, count(*), sum(class_size)::BIGINT "
        'FROM "triangle15-sym" GROUP BY 1 ORDER BY 1'
    ).fetchall()
    full = con.execute('SELECT depth, count(*) FROM "triangle15" GROUP BY 1 ORDER BY 1').fetchall()
    assert [(d, s) for d, _, s in sums] == full
    assert sum(n for _, n, _ in sums) == 2169
    # The classes are exactly the canonical forms of the full table's positions.
    perms = puzzles.get("triangle15-sym").perms
    states = [s for (s,) in con.execute('SELECT state FROM "triangle15"').fetchall()]
    expected = sorted({py_canonical(perms, s) for s in states})
    got = [s for (s,) in con.execute('SELECT state FROM "triangle15-sym" ORDER BY 1').fetchall()]
    assert got == expected
    report = tri.verify("triangle15-sym")
    assert report.ok, report.problems
    assert any("4,237 positions in all" in c for c in report.checks)


def test_english_first_levels_as_classes() -> None:
    p = puzzles.get("english33-sym")
    full = puzzles.get("english33")
    sym = list(itertools.islice(reference.search(p.roots(), p.expand, p.graph), 9))
    assert [int(p.class_sizes(lv.states).astype(np.int64).sum()) for lv in sym] == ENGLISH_LEVELS
    assert [len(lv) for lv in sym] == [1, 1, 2, 8, 39, 171, 719, 2757, 9751]
    plain = itertools.islice(reference.search(full.roots(), full.expand, full.graph), 9)
    for a, b in zip(sym, plain, strict=True):
        if a.depth <= 6:  # plain Python, bit by bit (slow beyond)
            assert a.states.tolist() == sorted({py_canonical(p.perms, int(s)) for s in b.states})
        assert np.array_equal(a.states, np.unique(p.canonical(b.states)))
    # The compiled kernels give the very rows of the plain step, parents included.
    k = p.kernels
    for a, b in itertools.pairwise(sym):
        children, parents = k.resolve(np.sort(k.keys(a.states)))
        assert np.array_equal(children, b.states) and np.array_equal(parents, b.parents)


def _rewrite(db: pipeline.Database, name: str, depth: int, change) -> None:
    """Rewrite a level's one file with ``change(states, sizes)`` applied, re-signed."""
    folder = db.data / name
    path = folder / fmt.level_file_name(depth, 0)
    t = pq.read_table(path)
    states, sizes = change(t["state"].to_numpy().copy(), t["class_size"].to_numpy().copy())
    parents = t["parent"].to_numpy().astype(np.uint64)
    order = np.argsort(states)
    meta = {k.decode(): v.decode() for k, v in t.schema.metadata.items()}
    meta.pop("puzzledb.depth")
    path.unlink()

    def of(s: np.ndarray) -> dict[str, np.ndarray]:
        return {"class_size": sizes[order]}

    entry = writer.write_part(
        folder, depth, 0, states[order], parents[order], meta, None, ((CLASS_SIZE,), of)
    )
    manifest = json.loads((folder / "_manifest.json").read_text())
    manifest["files"] = [entry if f["name"] == entry["name"] else f for f in manifest["files"]]
    (folder / "_manifest.json").write_text(json.dumps(manifest))


def _copy(tri: pipeline.Database, tmp_path: Path) -> pipeline.Database:
    import shutil

    shutil.copytree(tri.data / "triangle15-sym", tmp_path / "triangle15-sym")
    return pipeline.open(tmp_path)


def test_verify_fails_on_a_damaged_class_size(tri: pipeline.Database, tmp_path: Path) -> None:
    db = _copy(tri, tmp_path)

    def damage(states, sizes):
        sizes[3] = 3 - sizes[3]  # 1 <-> 2
        return states, sizes

    _rewrite(db, "triangle15-sym", 5, damage)
    report = db.verify("triangle15-sym")
    assert not report.ok
    assert any("1 class sizes wrong" in p for p in report.problems), report.problems


def test_verify_fails_on_a_state_not_canonical(tri: pipeline.Database, tmp_path: Path) -> None:
    db = _copy(tri, tmp_path)
    p = puzzles.get("triangle15-sym")
    mirror = p.perms[1]

    def damage(states, sizes):
        i = int(np.flatnonzero(sizes == 2)[0])  # a class of two: its mirror is larger
        states[i] = sum(1 << mirror[h] for h in range(15) if int(states[i]) >> h & 1)
        return states, sizes

    _rewrite(db, "triangle15-sym", 6, damage)
    report = db.verify("triangle15-sym")
    assert not report.ok
    assert any("1 states not canonical" in q for q in report.problems), report.problems


def test_winnable_classes_expand_to_the_winnable_table(tri: pipeline.Database) -> None:
    con = tri.connection()
    sums = con.execute(
        'SELECT depth, sum(class_size)::BIGINT FROM "triangle15-sym-winnable" GROUP BY 1 ORDER BY 1'
    ).fetchall()
    full = 'SELECT depth, count(*) FROM "triangle15-winnable" GROUP BY 1 ORDER BY 1'
    assert sums == con.execute(full).fetchall() and sum(n for _, n in sums) == 1428
    report = tri.verify("triangle15-sym-winnable")
    assert report.ok, report.problems


def test_solve_prints_the_line_from_the_position_as_typed(tri: pipeline.Database) -> None:
    p = puzzles.get("triangle15-sym")
    start, goal = p.roots()[0], p.goal
    # A position two jumps in whose class is stored as its mirror image.
    typed = pegs.play(pegs.TRIANGLE15, start, "(3,12)(10,3)")[-1]
    canon = tri.canonical("triangle15-sym", p.text(typed))
    assert canon != typed and canon == py_canonical(p.perms, typed)
    # solve: a winning line from the position as typed (through the winnable classes).
    sol = tri.solve("triangle15-sym", p.text(typed))
    assert sol.states[0] == typed and sol.states[-1] == goal and len(sol.states) == 12
    assert pegs.play(pegs.TRIANGLE15, typed, sol.notation)[-1] == goal
    out = run_cli("solve", "triangle15-sym", p.text(typed), "--json", data=tri.data)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["notation"] == sol.notation
    # The walk to the start in the forward classes, mapped back the same way.
    walk = [r.state for r in tri.table("triangle15-sym").walk(canon)]
    line = p.as_typed(typed, walk)
    assert line[0] == typed and line[-1] == start
    assert pegs.notation(pegs.TRIANGLE15, line[::-1]) == "(3,12)(10,3)"
    # The macros give the same in SQL: its class, and that it can still be won.
    sql = f"SELECT canonical('triangle15-sym', state_of('triangle15-sym', '{p.text(typed)}'))"
    assert tri.connection().execute(sql).fetchone()[0] == canon
    sql = f"SELECT winnable('triangle15-sym', state_of('triangle15-sym', '{p.text(typed)}'))"
    assert tri.connection().execute(sql).fetchone()[0] is True


def test_symmetry_option_names_the_sym_tables(tri: pipeline.Database) -> None:
    out = run_cli("build", "--symmetry", "triangle15", data=tri.data)
    assert out.returncode == 0 and "triangle15-sym: 2,169 positions" in out.stderr
    out = run_cli("build", "--symmetry", "3x3", data=tri.data)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "3x3" in out.stderr


def test_french_first_levels_as_classes() -> None:
    # french37-sym comes from the board's picture alone: its first classes expand
    # to the plain levels of french37 and are their canonical forms.
    p, full = puzzles.get("french37-sym"), puzzles.get("french37")
    sym = list(itertools.islice(reference.search(p.roots(), p.expand, p.graph), 6))
    plain = list(itertools.islice(reference.search(full.roots(), full.expand, full.graph), 6))
    for a, b in zip(sym, plain, strict=True):
        assert int(p.class_sizes(a.states).astype(np.int64).sum()) == len(b)
        if a.depth <= 4:
            assert a.states.tolist() == sorted({py_canonical(p.perms, int(s)) for s in b.states})
    k = p.kernels
    for a, b in itertools.pairwise(sym):
        children, parents = k.resolve(np.sort(k.keys(a.states)))
        assert np.array_equal(children, b.states) and np.array_equal(parents, b.parents)


def test_only_symmetric_tables_set_the_class_hooks(tri: pipeline.Database) -> None:
    # Every hook is declared on the base class with a default: callers never ask
    # whether a puzzle has it.
    for p in puzzles.REGISTRY.values():
        sym = p.name.endswith(("-sym", "-sym-winnable"))
        assert bool(p.extra_fields) == sym == (p.extra_columns is not None)
        assert (p.check_table is not None) == sym
        assert dict(p.extra_docs) == (CLASS_SIZE_DOC if sym else {})
        assert (p.canonical is not None) == sym  # a -sym-winnable table stores classes too
    with pytest.raises(BadPosition, match="no symmetry classes"):
        tri.canonical("triangle15", "x x x x x x x x x x x x . x x")
