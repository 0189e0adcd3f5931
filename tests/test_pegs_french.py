"""The French and diamond peg boards: their numbering, and their first levels against an
independent count (tools/peg_count.py: its own geometry, no engine). A few seconds."""

from __future__ import annotations

import itertools

from pipeline.engine import reference
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.pegs import board as pegs
from tools import peg_count

#: Positions after 0..9 jumps on the French board from the centre (tools/peg_count.py).
FRENCH37_FIRST = [1, 4, 20, 108, 536, 2678, 12664, 55222, 222745, 816316]
#: Positions after 0..8 jumps on the diamond from the centre (tools/peg_count.py).
DIAMOND41_FIRST = [1, 4, 24, 120, 636, 3338, 16356, 74768, 318953]
#: How many levels the engine is checked on here (a few seconds each board).
DEPTH = 8


def engine_levels(name: str, depth: int) -> list[int]:
    p = puzzles.get(name)
    levels = itertools.islice(reference.search(p.roots(), p.expand, p.graph), depth + 1)
    return [len(lv) for lv in levels]


def test_the_boards_are_numbered_row_by_row() -> None:
    f, d = pegs.FRENCH37, pegs.DIAMOND41
    assert [sum(1 for r, _ in f.holes if r == row) for row in range(7)] == [3, 5, 7, 7, 7, 5, 3]
    assert [sum(1 for r, _ in d.holes if r == row) for row in range(9)] == [
        *(1, 3, 5, 7, 9, 7, 5, 3, 1)
    ]
    assert (f.count, f.centre, d.count, d.centre) == (37, 18, 41, 20)
    # The cells of the independent count, in the same order, up to scale and shift.
    for board, name in ((f, "french37"), (d, "diamond41")):
        (r0, c0), (r1, c1) = board.holes[board.centre], peg_count.cells(name)[board.centre]
        grid = [((r - r0) + r1, (c - c0) // 2 + c1) for r, c in board.holes]
        assert grid == peg_count.cells(name)


def test_jumps_are_orthogonal_lines_of_three() -> None:
    f, d = pegs.FRENCH37, pegs.DIAMOND41
    # French: 92 directed jumps; the diamond: 100 (both ways along 50 lines of three).
    assert (len(f.jumps), len(d.jumps)) == (92, 100)
    # The diamond's top hole jumps only down (over 2 into 6); the centre of each
    # board is reached from four holes two steps away.
    assert [j for j in d.jumps if j[0] == 0] == [(0, 2, 6)]
    assert sorted(a for a, _, t in f.jumps if t == 18) == [5, 16, 20, 31]
    assert sorted(a for a, _, t in d.jumps if t == 20) == [6, 18, 22, 34]


def test_french37_first_levels_match_an_independent_count() -> None:
    start = puzzles.get("french37").root_texts[0].split()
    assert start.index(".") == 18 and start.count("x") == 36
    assert peg_count.count("french37", DEPTH) == FRENCH37_FIRST[: DEPTH + 1]
    assert engine_levels("french37", DEPTH) == FRENCH37_FIRST[: DEPTH + 1]


def test_diamond41_first_levels_match_an_independent_count() -> None:
    start = puzzles.get("diamond41").root_texts[0].split()
    assert start.index(".") == 20 and start.count("x") == 40
    assert peg_count.count("diamond41", DEPTH) == DIAMOND41_FIRST[: DEPTH + 1]
    assert engine_levels("diamond41", DEPTH) == DIAMOND41_FIRST[: DEPTH + 1]
