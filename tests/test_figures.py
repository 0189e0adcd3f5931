"""Every figure PUZZLES.md publishes for these boards, reproduced through SQL queries."""

from __future__ import annotations

import itertools
import math

import pytest

import pipeline
from pipeline.puzzles import registry as puzzles
from tests.conftest import column, one


def legal_slide_path(puzzle_name: str, path: list[str]) -> bool:
    """Each step swaps the blank with a neighbouring tile (checked from adjacency data)."""
    p = puzzles.get(puzzle_name)
    for a, b in itertools.pairwise(path):
        x, y = a.split(), b.split()
        diff = [i for i in range(len(x)) if x[i] != y[i]]
        if len(diff) != 2:
            return False
        i, j = diff
        if "0" not in (x[i], x[j]) or x[i] != y[j] or x[j] != y[i]:
            return False
        if j not in p.adjacency[i]:
            return False
    return True


def test_oshidori_start_to_goals_in_four(db: pipeline.Database) -> None:
    for goal in ("B B B W W W . .", "W W W B B B . ."):
        depth = one(db, f"SELECT depth FROM oshidori WHERE state = state_of('oshidori', '{goal}')")
        assert depth == 4
        sol = db.solve("oshidori", goal)
        assert sol.moves == 4
        assert sol.path[-1] == "B W B W B W . ."


def test_oshidori_every_arrangement_is_reachable(db: pipeline.Database) -> None:
    # 7 places for the empty pair times C(6,3) colourings (PUZZLES.md).
    assert one(db, "SELECT count(*) FROM oshidori") == 7 * math.comb(6, 3) == 140


def test_oshidori_solution_moves_pairs(db: pipeline.Database) -> None:
    path = db.solve("oshidori", "B B B W W W . .").path
    for a, b in itertools.pairwise(path):
        x, y = a.split(), b.split()
        moved = [i for i in range(8) if x[i] != y[i]]
        assert 2 <= len(moved) <= 4  # a pair left its cells and filled the empty pair


def test_hex6(db: pipeline.Database) -> None:
    assert one(db, "SELECT count(*) FROM hex6") == 5040
    assert one(db, "SELECT max(depth) FROM hex6") == 15
    longest = column(db, "SELECT board('hex6', state) FROM hex6 WHERE depth = 15")
    assert len(longest) == 24
    assert "4 6 5 1 3 2 0" in longest
    steps = one(db, "SELECT max(step) FROM path('hex6', state_of('hex6', '1 5 2 6 3 4 0'))")
    assert steps == 11
    assert legal_slide_path("hex6", db.solve("hex6", "1 5 2 6 3 4 0").path)


@pytest.mark.parametrize(
    ("name", "total", "longest", "positions"),
    [
        ("2x4", 20_160, 36, ["0 7 2 1 4 3 6 5"]),
        ("3x3", 181_440, 31, ["6 4 7 8 5 0 3 2 1", "8 6 7 2 5 4 3 0 1"]),
        ("2x5", 1_814_400, 55, ["0 5 3 2 1 9 4 8 7 6", "0 9 3 7 1 5 4 8 2 6"]),
    ],
)
def test_rectangles(
    db: pipeline.Database, name: str, total: int, longest: int, positions: list[str]
) -> None:
    assert one(db, f'SELECT count(*) FROM "{name}"') == total
    assert total == math.factorial(puzzles.get(name).cells.count) // 2
    assert one(db, f'SELECT max(depth) FROM "{name}"') == longest
    found = column(db, f"SELECT board('{name}', state) FROM \"{name}\" WHERE depth = {longest}")
    assert sorted(found) == sorted(positions)
    assert sorted(db.longest(name)["position"].to_list()) == sorted(positions)


@pytest.mark.parametrize("position", ["0 9 3 7 1 5 4 8 2 6", "0 5 3 2 1 9 4 8 7 6"])
def test_2x5_longest_paths_are_55_legal_moves(db: pipeline.Database, position: str) -> None:
    sol = db.solve("2x5", position)
    assert sol.moves == 55
    assert sol.path[0] == position
    assert sol.path[-1] == "1 2 3 4 5 6 7 8 9 0"
    assert legal_slide_path("2x5", sol.path)


def test_2x3_total(db: pipeline.Database) -> None:
    assert one(db, 'SELECT count(*) FROM "2x3"') == 360


def test_summary_and_histogram(db: pipeline.Database) -> None:
    rows = {r[0]: r[1:] for r in db.summary().rows()}
    assert rows["3x3"] == (181_440, 31, 2, None)  # None: complete (not --max-depth)
    assert rows["hex6"] == (5040, 15, 24, None)
    hist = db.histogram("2x5").rows()
    assert sum(n for _, n in hist) == 1_814_400
    assert hist[0] == (0, 1) and hist[-1] == (55, 2)
    # Every move flips the permutation parity: depth parity equals it too.
    assert [d for d, _ in hist] == list(range(56))


@pytest.mark.parametrize("name", [p.name for p in puzzles.defaults()])
def test_verify_passes(db: pipeline.Database, name: str) -> None:
    report = db.verify(name)
    assert report.ok, report.problems
    assert report.positions == one(db, f'SELECT count(*) FROM "{name}"')
