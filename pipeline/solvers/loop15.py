"""The 15 puzzle solved by circulating tiles around a fixed loop (docs/PUZZLES.md, section 4).

A practical, non-optimal procedure: the 16 cells form a Hamiltonian cycle (the "loop"),
tiles are pushed around it by the blank, and at six places a tile may jump two places
backwards in loop order.  Repeating that blindly sorts the tiles along the loop, like an
odd kind of bubble sort.  It is meant as a cross-check for the optimal solvers: every move
it makes is legal, it always reaches the goal from a solvable position, and it lands in
the other-parity arrangement (tiles 1 and 2 exchanged) from an unsolvable one.

Positions are 16 cells, row-major, cell 0 top-left; 0 is the blank; the goal is
1 2 ... 15 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SIZE = 16
WIDTH = 4

# LOOP[k] is the cell of loop index k.  Drawn on the board (cell -> loop index):
#   a[1]  a[2]  a[5]  a[6]
#   a[0]  a[3]  a[4]  a[7]
#   a[15] a[12] a[11] a[8]
#   a[14] a[13] a[10] a[9]
# Consecutive indices (and 15 -> 0) are orthogonal neighbours, so the loop is a cycle.
LOOP: tuple[int, ...] = (4, 0, 1, 5, 6, 2, 3, 7, 11, 15, 14, 10, 9, 13, 12, 8)

# Loop indices where the blank allows the exceptional move: a[i+3] is the horizontal
# neighbour of a[i] and slides into it, jumping over a[i+1] and a[i+2].
JUMP_FROM: frozenset[int] = frozenset({0, 2, 4, 8, 10, 12})

# Loop index of the goal's blank cell (cell 15): the blank ends the circulation at a[0]
# and is then walked forward along the loop to here.
GOAL_BLANK_INDEX = LOOP.index(SIZE - 1)  # == 9

GOAL: tuple[int, ...] = (*range(1, SIZE), 0)

# Safety net: the procedure takes a few hundred moves; a run this long means a bug.
_MAX_STEPS = 100_000


@dataclass(frozen=True)
class LoopSolution:
    """What the loop procedure did and where it ended, so callers can replay and check it."""

    moves: tuple[int, ...]  # the tile (real number, not the temporary label) slid at each step
    final: tuple[int, ...]  # the 16 cells at the end
    solved: bool  # final is the ordinary goal


def _validate(cells: Sequence[int]) -> tuple[int, ...]:
    """Return the cells as a tuple, or raise ValueError naming the first defect found."""
    board = tuple(cells)
    if len(board) != SIZE:
        raise ValueError(f"a 15-puzzle position has {SIZE} cells, got {len(board)}")
    for value in board:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"cell values must be integers 0..15, got {value!r}")
        if not 0 <= value < SIZE:
            raise ValueError(f"cell value {value} is outside 0..15")
    if len(set(board)) != SIZE:
        repeated = sorted({v for v in board if board.count(v) > 1})
        missing = sorted(set(range(SIZE)) - set(board))
        raise ValueError(f"tiles must appear once each: repeated {repeated}, missing {missing}")
    return board


def is_solvable(cells: Sequence[int]) -> bool:
    """Whether the ordinary goal is reachable, by the standard 4x4 parity rule.

    A horizontal move changes neither the tile order nor the blank's row; a vertical move
    passes one tile over three others (inversion count changes by an odd number) and
    changes the blank's row by one.  So (inversions + blank row) mod 2 is invariant, and
    the goal has 0 inversions with the blank in row 3.
    """
    board = _validate(cells)
    tiles = [v for v in board if v != 0]
    inversions = sum(
        1 for i in range(len(tiles)) for j in range(i + 1, len(tiles)) if tiles[i] > tiles[j]
    )
    blank_row = board.index(0) // WIDTH
    return (inversions + blank_row) % 2 == 1


def apply_moves(cells: Sequence[int], moves: Sequence[int]) -> tuple[int, ...]:
    """Replay tile moves from a position, independently of the loop code.

    Each move names the tile that slides into the blank; it must be an orthogonal
    neighbour of the blank, otherwise ValueError says which step failed.
    """
    board = list(_validate(cells))
    blank = board.index(0)
    for step, tile in enumerate(moves):
        if isinstance(tile, bool) or not isinstance(tile, int) or not 1 <= tile < SIZE:
            raise ValueError(f"move {step}: {tile!r} is not a tile number 1..15")
        where = board.index(tile)
        dr = abs(where // WIDTH - blank // WIDTH)
        dc = abs(where % WIDTH - blank % WIDTH)
        if dr + dc != 1:
            raise ValueError(f"move {step}: tile {tile} at cell {where} is not next to the blank")
        board[blank], board[where] = tile, 0
        blank = where
    return tuple(board)


def _label_of_tile() -> tuple[int, ...]:
    """Temporary label of each real tile (index = real tile, entry 0 = blank).

    Real tile t belongs in cell t-1; if that cell is loop index k its label is k+1 for
    k < 9 and k for k > 9.  Sorting the labels along the loop with the blank at a[0] and
    then walking the blank forward to a[9] puts every real tile home.
    """
    labels = [0] * SIZE
    for k, cell in enumerate(LOOP):
        if k == GOAL_BLANK_INDEX:
            continue
        labels[cell + 1] = k + 1 if k < GOAL_BLANK_INDEX else k
    return tuple(labels)


LABEL_OF_TILE: tuple[int, ...] = _label_of_tile()
TILE_OF_LABEL: tuple[int, ...] = tuple(LABEL_OF_TILE.index(lab) for lab in range(SIZE))
#: The goal's labels by loop index: the board is solved exactly when ``a`` is this.
GOAL_LABELS: list[int] = [LABEL_OF_TILE[GOAL[cell]] for cell in LOOP]


def _loop_sorted(a: list[int]) -> bool:
    """Stop rule of the article: blank at a[0], label 1 at a[1], a[i] == i for i >= 4.

    a[2] and a[3] are not looked at, so the run also stops in the other-parity order
    1 3 2 4 ... 15.  It is only checked after a move, so a run never stops at once.
    """
    if a[0] != 0 or a[1] != 1:
        return False
    return all(a[i] == i for i in range(4, SIZE))


def solve_loop(cells: Sequence[int], blind: bool = False) -> LoopSolution:
    """Solve a position by the loop procedure (article 002, docs/PUZZLES.md section 4).

    Relabel tiles by the loop index of their goal cell, circulate the blank forward
    along the loop (taking the exceptional jump where the rule allows) until the labels
    are in loop order with the blank at a[0], walk the blank on to a[9], and report the
    real tiles moved.  An unsolvable position ends with tiles 1 and 2 exchanged.

    The procedure stops as soon as the board is solved (a solved board takes no
    move); ``blind`` runs it as the article does, looking only at its own stop
    rule (a solved board then takes 240 moves).
    """
    board = _validate(cells)
    # a[k] = label in loop cell k (0 = blank).
    a = [LABEL_OF_TILE[board[cell]] for cell in LOOP]
    if not blind and a == GOAL_LABELS:
        return LoopSolution(moves=(), final=board, solved=True)
    z = a.index(0)
    labels_moved: list[int] = []

    for _ in range(_MAX_STEPS):
        if z in JUMP_FROM:
            p, q, r = a[z + 1], a[z + 2], a[z + 3]
            jump = 1 not in (p, q, r) and (p > r or q > r)
        else:
            jump = False
        src = z + 3 if jump else (z + 1) % SIZE
        labels_moved.append(a[src])
        a[z], a[src] = a[src], 0
        z = src
        if not blind and a == GOAL_LABELS:
            return _solution(labels_moved, a)
        if z == 0 and _loop_sorted(a):
            break
    else:  # pragma: no cover - the procedure is known to terminate
        raise RuntimeError(f"loop procedure did not settle within {_MAX_STEPS} moves")

    # Walk the blank from a[0] to a[9]: the tile at a[i+1] slides into a[i].
    for i in range(GOAL_BLANK_INDEX):
        labels_moved.append(a[i + 1])
        a[i], a[i + 1] = a[i + 1], 0

    return _solution(labels_moved, a)


def _solution(labels_moved: list[int], a: list[int]) -> LoopSolution:
    """The real tiles moved and the board the labels ``a`` (by loop index) stand for."""
    final = [0] * SIZE
    for k, cell in enumerate(LOOP):
        final[cell] = TILE_OF_LABEL[a[k]]
    final_t = tuple(final)
    return LoopSolution(
        moves=tuple(TILE_OF_LABEL[lab] for lab in labels_moved),
        final=final_t,
        solved=final_t == GOAL,
    )
