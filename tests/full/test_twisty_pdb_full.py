"""The 3x3x3 cube's pattern tables in full (``make test-full``; built into the full data
folder once, then read): the corner table equals, depth by depth, our own 2x2x2
definition with all six faces turning (tests/data/twisty/cube2.tws) built as an
ordinary table, and twsearch's ``-g`` of its 2x2x2 sample; the first six-edge table
has exactly 12!/6! * 2^6 = 42,577,920 positions, at the depths a breadth-first search
of our own finds over where the six edges are and how they are flipped (numpy,
a byte a state of 24^6; no ranks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.puzzles.twisty import cube3, group
from tests.full.test_twisty_samples import TWSEARCH_G
from tests.test_twisty import DEFS

pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def cube(full_data: Path) -> pipeline.Database:
    db = pipeline.open(full_data)
    db.add_spec(DEFS / "cube2.tws", "cube2all")
    db.build(["cube3-pdb", "cube2all"])
    return db


def test_the_corner_table_is_the_2x2x2_cube_with_every_face_turning(
    cube: pipeline.Database,
) -> None:
    corners = cube.histogram("cube3-pdb-corners")["positions"].to_list()
    assert corners == cube.histogram("cube2all")["positions"].to_list()
    assert corners == TWSEARCH_G["2x2x2.tws"] and sum(corners) == 88_179_840


def edges_search(kept: tuple[int, ...]) -> list[int]:
    """Positions at each depth of the cube's edges ``kept`` (positions from 0), the other
    edges ignored: a state is each kept edge's point (position * 2 + flip), in base 24;
    a move sends each point where the definition's permutation of points sends it."""
    d = cube3.definition()
    perms = []
    for t in cube3.CUBE3.turns:
        points = np.array(group.as_permutation(d.sets, t.parts))[24:] - 24  # the edges'
        perms.append(points.astype(np.int64))
    k = len(kept)
    weights = 24 ** np.arange(k, dtype=np.int64)
    seen = np.zeros(24**k, np.bool_)
    start = np.array([sum(2 * e * 24**i for i, e in enumerate(kept))], np.int64)
    seen[start] = True
    frontier, found = start, [1]
    while True:
        new = []
        for lo in range(0, len(frontier), 1 << 20):
            chunk = frontier[lo : lo + (1 << 20)]
            digits = chunk[:, None] // weights % 24
            for g in perms:
                kids = g[digits] @ weights
                kids = np.unique(kids[~seen[kids]])
                seen[kids] = True
                new.append(kids)
        frontier = np.concatenate(new)
        if not len(frontier):
            return found
        found.append(len(frontier))


def test_the_six_edge_table_equals_a_search_over_the_edges(cube: pipeline.Database) -> None:
    edges = cube.histogram("cube3-pdb-edges6a")["positions"].to_list()
    assert sum(edges) == 42_577_920 == cube.table("cube3-pdb-edges6a").manifest.total
    assert edges == edges_search(tuple(range(6)))
    assert cube.table("cube3-pdb-edges6b").manifest.total == 42_577_920


def test_the_cube_is_solved_optimally_over_its_tables(
    cube: pipeline.Database, full_data: Path
) -> None:
    """``solve cube3 --turns``: Korf's three tables read in place. R U R' U' is 4 turns
    from solved, its inverse the solution; a scramble of 10 canonical turns is solved
    in at most 10 (its solution applied gives solved)."""
    from tests.conftest import run_cli

    r = run_cli("solve", "cube3", "--turns", "R U R' U'", data=full_data)
    assert r.returncode == 0, r.stderr
    head, line = r.stdout.strip().splitlines()
    assert head.startswith("cube3: 4 moves to the goal (optimal, proven by IDA* over its")
    assert line == "U R U' R'"
    p = cube.puzzle("cube3")
    scramble = "R U2 F' L D B2 R' U F2 D'"
    sol = cube.solve("cube3", p.from_moves(scramble))
    assert sol.moves <= 10 and p.from_moves(f"{scramble} {sol.notation}") == p.solved
