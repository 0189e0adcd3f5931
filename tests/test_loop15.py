"""Tests of the loop procedure for the 15 puzzle (docs/PUZZLES.md section 4, article 002)."""

from __future__ import annotations

import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.solvers.loop15 import LOOP, LoopSolution, apply_moves, is_solvable, solve_loop

GOAL = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0)
# Loop order with a[2], a[3] swapped, mapped back to real tiles: a[2] and a[3] hold labels
# 3 and 2 (real tiles 2 and 1) and, after the blank walks a[0] -> a[9], labels 3 and 2 sit
# in a[1] and a[2] = cells 0 and 1.  So the other-parity end is the goal with 1, 2 exchanged.
OTHER_PARITY = (2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0)


def _adjacent(c: int, d: int) -> bool:
    return abs(c // 4 - d // 4) + abs(c % 4 - d % 4) == 1


def _swap_two_tiles(cells: list[int]) -> list[int]:
    """Flip the permutation parity without moving the blank: exchange the first two tiles."""
    out = list(cells)
    i, j = [k for k, v in enumerate(out) if v != 0][:2]
    out[i], out[j] = out[j], out[i]
    return out


def _with_parity(cells: list[int], solvable: bool) -> list[int]:
    return cells if is_solvable(cells) == solvable else _swap_two_tiles(cells)


boards = st.permutations(list(range(16)))


# --- the loop itself -------------------------------------------------------------------


def test_loop_matches_the_figure() -> None:
    # a[1] a[2] a[5] a[6] / a[0] a[3] a[4] a[7] / a[15] a[12] a[11] a[8] / a[14] a[13] a[10] a[9]
    figure = (1, 2, 5, 6, 0, 3, 4, 7, 15, 12, 11, 8, 14, 13, 10, 9)  # loop index of each cell
    assert tuple(LOOP.index(cell) for cell in range(16)) == figure
    assert sorted(LOOP) == list(range(16))


def test_loop_is_a_cycle_of_neighbours_and_jumps_are_horizontal() -> None:
    for k in range(16):
        assert _adjacent(LOOP[k], LOOP[(k + 1) % 16])
    for i in (0, 2, 4, 8, 10, 12):
        assert LOOP[i] // 4 == LOOP[i + 3] // 4 and abs(LOOP[i] - LOOP[i + 3]) == 1


# --- the parity rule -------------------------------------------------------------------


def test_is_solvable_known_positions() -> None:
    assert is_solvable(GOAL)
    assert not is_solvable(OTHER_PARITY)
    assert is_solvable((*GOAL[:14], 0, 15))  # one horizontal move away
    assert is_solvable((*GOAL[:11], 0, 13, 14, 15, 12))  # one vertical move away
    assert not is_solvable((0, *GOAL[:15]))  # tiles in order, blank 3 rows up


def test_is_solvable_on_random_walks_from_the_goal() -> None:
    rng = random.Random(7)
    board = list(GOAL)
    for _ in range(300):
        blank = board.index(0)
        tile = board[rng.choice([c for c in range(16) if _adjacent(c, blank)])]
        board = list(apply_moves(board, [tile]))
        assert is_solvable(board)
        assert not is_solvable(_swap_two_tiles(board))


# --- solve_loop on random positions -----------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(boards)
def test_solvable_positions_reach_the_goal(cells: list[int]) -> None:
    cells = _with_parity(cells, solvable=True)
    sol = solve_loop(cells)
    assert isinstance(sol, LoopSolution)
    assert sol.solved
    assert sol.final == GOAL
    assert all(1 <= t <= 15 for t in sol.moves)
    assert apply_moves(cells, sol.moves) == GOAL


@settings(max_examples=300, deadline=None)
@given(boards)
def test_unsolvable_positions_end_with_tiles_1_and_2_exchanged(cells: list[int]) -> None:
    cells = _with_parity(cells, solvable=False)
    sol = solve_loop(cells)
    assert not sol.solved
    assert sol.final == OTHER_PARITY
    assert apply_moves(cells, sol.moves) == OTHER_PARITY


def test_average_move_count_on_random_positions() -> None:
    rng = random.Random(2024)
    counts = []
    for _ in range(300):
        cells = list(range(16))
        rng.shuffle(cells)
        cells = _with_parity(cells, solvable=True)
        sol = solve_loop(cells)
        assert sol.solved
        counts.append(len(sol.moves))
    mean = statistics.mean(counts)
    print(f"loop15: mean {mean:.1f} moves over 300 random solvable positions")
    assert 400 <= mean <= 480


# --- it stops when solved; run blind (the article's way) it never stops early -----------


def test_a_solved_board_takes_no_move() -> None:
    sol = solve_loop(GOAL)
    assert sol.solved and sol.moves == () and sol.final == GOAL
    # Not optimal: tile 15 slid left is one move from the goal, but the loop only turns
    # forward, so it goes round (the same 239 moves blind or not).
    near = (*GOAL[:14], 0, 15)
    sol = solve_loop(near)
    assert sol.solved and apply_moves(near, sol.moves) == GOAL and len(sol.moves) == 239


@settings(max_examples=100, deadline=None)
@given(boards)
def test_stopping_when_solved_never_takes_longer(cells: list[int]) -> None:
    cells = _with_parity(cells, solvable=True)
    sol, blind = solve_loop(cells), solve_loop(cells, blind=True)
    assert apply_moves(cells, sol.moves) == GOAL
    assert len(sol.moves) <= len(blind.moves)
    assert blind.moves[: len(sol.moves)] == sol.moves  # the same run, cut where it is solved


def test_from_the_goal_takes_exactly_240_moves() -> None:
    # Relabelled, the goal is already in cyclic loop order with the blank at a[9], so no
    # jump is ever allowed (the only descent 15 -> 1 involves tile 1).  The blank goes
    # a[9] -> a[15] -> a[0] (7 moves, label 1 pushed back to a[15]); label 1 must then be
    # pushed back 14 more places, one per 16-move circuit (224), and the blank finally
    # walks a[0] -> a[9] (9): 7 + 224 + 9 = 240.
    sol = solve_loop(GOAL, blind=True)
    assert sol.solved and sol.final == GOAL
    assert len(sol.moves) == 240
    # No jump: the blank follows the loop one step at a time, 240 steps from a[9].
    board = list(GOAL)
    for step, tile in enumerate(sol.moves):
        board = list(apply_moves(board, [tile]))
        assert board.index(0) == LOOP[(9 + step + 1) % 16]


def test_from_loop_order_it_still_goes_round() -> None:
    # Labels already in loop order with the blank at a[0]: the stop rule is only looked
    # at after a move, so label 1 is pushed out of a[1] and must come back: 16 + 14 * 16
    # moves of circulation, then 9 for the blank.
    cells = (5, 1, 7, 3, 0, 2, 6, 4, 9, 10, 11, 8, 13, 14, 15, 12)
    sol = solve_loop(cells, blind=True)
    assert sol.solved
    assert len(sol.moves) == 16 + 14 * 16 + 9 == 249


# --- malformed input --------------------------------------------------------------------


@pytest.mark.parametrize(
    "cells",
    [
        GOAL[:15],  # 15 cells
        (*GOAL, 0),  # 17 cells
        (1, 1, *GOAL[2:]),  # tile 2 missing, tile 1 twice
        (16, *GOAL[1:]),  # value out of range
        (-1, *GOAL[1:]),
        ("1", *GOAL[1:]),  # not an integer
    ],
)
def test_malformed_positions_raise(cells: tuple) -> None:
    with pytest.raises(ValueError):
        solve_loop(cells)
    with pytest.raises(ValueError):
        is_solvable(cells)
    with pytest.raises(ValueError):
        apply_moves(cells, [])


def test_apply_moves_rejects_illegal_moves() -> None:
    assert apply_moves(GOAL, [15, 11]) == (*GOAL[:10], 0, 12, 13, 14, 11, 15)
    with pytest.raises(ValueError):
        apply_moves(GOAL, [1])  # tile 1 is far from the blank
    with pytest.raises(ValueError):
        apply_moves(GOAL, [11])  # diagonal neighbour of the blank
    with pytest.raises(ValueError):
        apply_moves(GOAL, [0])  # the blank is not a tile
