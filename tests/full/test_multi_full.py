"""The full 3x4 and 2x6 boards in the multi-tile metric (239,500,800 positions each):
`make test-full`, which builds them into --full-data (`make build-db-full`).

The first levels are compared, position for position, with a plain Python
search that slides tiles in lists (tests/test_multi.py); verify certifies the
rest (every parent one legal multi-tile slide up, every slide at most one
level on, each state once).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from tests.test_multi import one_slide_apart, python_levels

pytestmark = pytest.mark.full

#: name: (rows, cols, positions, deepest level, positions there), from the builds here.
FULL = {
    "3x4-multi": (3, 4, 239_500_800, 33, 5),
    "2x6-multi": (2, 6, 239_500_800, 41, 36),
}
#: Levels compared with the plain search (about 100,000 positions by then).
FIRST = 10


@pytest.fixture(scope="module")
def db(full_data: Path) -> pipeline.Database:
    return pipeline.open(full_data)


@pytest.mark.parametrize("name", FULL)
def test_counts_and_deepest_level(db: pipeline.Database, name: str) -> None:
    _, _, total, depth, deepest = FULL[name]
    n, top = db.connection().execute(f'SELECT count(*), max(depth) FROM "{name}"').fetchone()
    assert n == total == db.table(name).manifest["total"]
    assert top == depth == db.table(name).max_depth
    assert len(db.longest(name)["position"].to_list()) == deepest


@pytest.mark.parametrize("name", FULL)
def test_first_levels_equal_a_plain_search(db: pipeline.Database, name: str) -> None:
    rows, cols = FULL[name][:2]
    levels = python_levels(rows, cols, limit=FIRST)
    for d, want in enumerate(levels):
        got = (
            db.connection()
            .execute(f"SELECT board('{name}', state) FROM \"{name}\" WHERE depth = {d}")
            .fetchall()
        )
        assert {tuple(map(int, r[0].split())) for r in got} == want, (name, d)


@pytest.mark.parametrize("name", FULL)
def test_verify_passes(db: pipeline.Database, name: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "verify", name, "--data", str(db.data)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{name}: ok (239,500,800 positions" in r.stdout
    assert "each state once in the whole table" in r.stdout


@pytest.mark.parametrize("name", FULL)
def test_deepest_positions_walk_home_in_legal_slides(db: pipeline.Database, name: str) -> None:
    rows, cols, _, depth, _ = FULL[name]
    for text in db.longest(name)[:3]:
        sol = db.solve(name, text)
        assert sol.moves == depth
        boards = [tuple(map(int, t.split())) for t in sol.path]
        assert boards[-1] == (*range(1, rows * cols), 0)
        assert all(one_slide_apart(a, b, rows, cols) for a, b in itertools.pairwise(boards))


def test_2x5_multi_in_full_against_a_plain_search(full_data: Path) -> None:
    # 1,814,400 positions by list slides (about 30 s): every level's size.
    db = pipeline.open(full_data)
    if "2x5-multi" not in db.built():
        db.build(["2x5-multi"])
    levels = python_levels(2, 5)
    assert [n for _, n in db.histogram("2x5-multi").rows()] == [len(lv) for lv in levels]
