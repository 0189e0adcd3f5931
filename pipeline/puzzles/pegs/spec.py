"""The ``[pegs]`` family of a spec: a peg solitaire board as a picture and its jumps.

    [pegs]
    picture = '''          # each o is a hole, numbered row by row from 0
        o
      o o o
    o o o o o
      o o o
        o'''
    steps = [[0, 2], [1, 0]]  # step vectors (row, column) of the jump lines, in the picture
    start = 6                 # the hole empty at the start, and the goal's last peg

Like the built-in boards (pegs/board.py): ``<name>`` counts jumps from the start,
``<name>-winnable`` the positions that can still end with one peg in the
start hole, ``<name>@<hole>`` starts from another hole. Every hole must lie
on a jump line.
"""

from __future__ import annotations

from pipeline.puzzles.pegs.board import LAST_SHIFT, Board, PegPuzzle
from pipeline.puzzles.spec.base import Problem, Spec

#: The tables `build --spec` builds: the board and its winnable positions.
TABLES = ("", "-winnable")
KEYS = {"picture": True, "steps": True, "start": True}
#: Hole i is bit i; bits 48.. are the moves board's (pegs.LAST_SHIFT).
MAX_HOLES = LAST_SHIFT


def load(spec: Spec) -> PegPuzzle:
    t = spec.table
    picture = t["picture"]
    if not isinstance(picture, str) or "{" in picture or "}" in picture:
        raise Problem("pegs.picture", "must be a string: an o for each hole (no braces)")
    steps = _steps(t["steps"])
    board = Board(spec.name, spec.title, picture, steps, centre=0)
    n = board.count
    if n < 3:
        raise Problem("pegs.picture", f"{n} holes: a jump needs three in a line")
    if n > MAX_HOLES:
        raise Problem(
            "pegs.picture",
            f"too many holes: {n} (at most {MAX_HOLES}: hole i is bit i of the state "
            f"and bits {MAX_HOLES}.. are kept for the moves board)",
        )
    if not board.jumps:
        raise Problem("pegs.steps", "no three holes of the picture lie in a line along them")
    for i, step in enumerate(steps):
        if not Board(spec.name, spec.title, picture, (step,), centre=0).jumps:
            raise Problem(f"pegs.steps[{i}]", _no_line(step))
    lonely = sorted(set(range(n)) - {h for j in board.jumps for h in j})
    if lonely:
        raise Problem("pegs.picture", f"holes {' '.join(map(str, lonely))} lie on no jump line")
    start = t["start"]
    if not isinstance(start, int) or isinstance(start, bool) or not 0 <= start < n:
        raise Problem("pegs.start", f"a hole of the picture, 0..{n - 1}")
    board = Board(spec.name, spec.title, picture, steps, centre=start)
    return PegPuzzle(board, name=spec.name)


def _no_line(step: tuple[int, int]) -> str:
    """Why a step that joins no three holes is refused, with what a step is."""
    r, c = step
    return (
        f"[{r}, {c}] makes no jump line: no three holes of the picture lie in a line "
        f"{r} row(s) and {c} column(s) apart (a step goes from a hole to the one it jumps "
        "over: [1, 0] the next row down, [0, 2] the next o along a row)"
    )


def _steps(value: object) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list) or not value:
        raise Problem("pegs.steps", "a list of steps [rows, columns], e.g. [[0, 2], [1, 0]]")
    for i, v in enumerate(value):
        if not (
            isinstance(v, list)
            and len(v) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
        ):
            raise Problem(f"pegs.steps[{i}]", "a step is [rows, columns], two whole numbers")
        if v == [0, 0]:
            raise Problem(f"pegs.steps[{i}]", "[0, 0] is no direction")
    return tuple((int(a), int(b)) for a, b in value)
