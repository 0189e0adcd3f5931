"""Which way `solve` answers: the full table, the pattern-database search, or the loop.

- ``table``: walk parents in the puzzle's own table (optimal; needs it built);
- ``optimal``: IDA* with additive pattern databases (rectangles with a
  partition in pipeline/puzzles/pdb.py), building the databases on first use;
- ``loop``: the article's loop procedure (4x4 only; not optimal);
- ``auto`` (the default): the table when built, else ``optimal`` for 4x4,
  else an error naming the build command.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline import puzzles
from pipeline.api import Solution
from pipeline.errors import BadMethod, BadPosition, NotBuilt, Unsolvable
from pipeline.puzzles.pdb import PARTITIONS

METHODS = ("auto", "table", "optimal", "loop")
#: Boards where ``auto`` falls back to the pattern-database search.
AUTO_OPTIMAL = ("4x4",)

_solvers: dict[tuple[str, str], Any] = {}


@dataclass(frozen=True)
class MethodSolution(Solution):
    """A solution with how it was found: the method, the tiles slid, search effort."""

    method: str = "table"
    tiles: list[int] = field(default_factory=list)
    nodes: int | None = None
    seconds: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            **super().as_dict(),
            "method": self.method,
            "tiles": self.tiles,
            "nodes": self.nodes,
            "seconds": self.seconds,
        }


def _slide(cells: Sequence[int], tiles: Sequence[int]) -> list[list[int]]:
    """The positions along a sequence of tiles slid into the blank."""
    board = list(cells)
    out = [list(board)]
    for t in tiles:
        z, j = board.index(0), board.index(t)
        board[z], board[j] = t, 0
        out.append(list(board))
    return out


def _tiles_of(states: list[int], p: Any) -> list[int]:
    """The tile slid between consecutive states of a sliding-puzzle walk."""
    out = []
    for a, b in itertools.pairwise(states):
        va, vb = p.cells.values(a), p.cells.values(b)
        out.append(va[vb.index(0)])
    return out


def walks_table(db: Any, puzzle: str, method: str) -> bool:
    """Whether ``method`` means walking the puzzle's own table (built or not)."""
    if method not in METHODS:
        raise BadMethod(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    if method == "table":
        return True
    return method == "auto" and (puzzle not in AUTO_OPTIMAL or puzzle in db.built())


def solve(
    db: Any,
    puzzle: str,
    position: str,
    method: str = "auto",
    on_level: Callable[[str, Any], None] | None = None,
) -> MethodSolution:
    """Solve ``position`` of ``puzzle`` by ``method`` (see the module docstring)."""
    if method not in METHODS:
        raise BadMethod(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    p = puzzles.get(puzzle, db.data)
    if method == "loop":
        return _loop(p, position)
    if method in ("auto", "table") and (puzzle in db.built() or method == "table"):
        sol = db.solve(puzzle, position)
        tiles = _tiles_of(sol.states, p) if p.name in PARTITIONS else []
        return MethodSolution(
            sol.puzzle, sol.origin, sol.states, sol.path, method="table", tiles=tiles
        )
    if method == "optimal" or puzzle in AUTO_OPTIMAL:
        return _optimal(db, p, position, on_level)
    raise NotBuilt(
        f"{puzzle} is not built: run `puzzledb build {puzzle}`"
        + (" or solve with `--method optimal`" if puzzle in PARTITIONS else "")
    )


def _optimal(
    db: Any, p: Any, position: str, on_level: Callable[[str, Any], None] | None
) -> MethodSolution:
    from pipeline.solvers import pdb

    if p.name not in PARTITIONS:
        raise BadMethod(
            f"no pattern databases for {p.name} (boards: {', '.join(PARTITIONS)}): "
            f"build its table with `puzzledb build {p.name}`"
        )
    cells = p.cells.values(p.parse(position))
    key = (str(db.data.resolve()), p.name)
    if key not in _solvers:
        _solvers[key] = pdb.solver(db, p.name, on_level)
    r = _solvers[key].solve(cells)
    boards = _slide(cells, r.tiles)
    states = [p.cells.encode(b) for b in boards]
    return MethodSolution(
        p.name,
        "goal",
        states,
        [p.text(s) for s in states],
        method="optimal",
        tiles=r.tiles,
        nodes=r.nodes,
        seconds=r.seconds,
    )


def _loop(p: Any, position: str) -> MethodSolution:
    from pipeline.solvers.loop15 import solve_loop

    if p.name != "4x4":
        raise BadMethod(f"the loop method solves the 4x4 board only, not {p.name}")
    cells = p.cells.parse_values(position)
    try:
        sol = solve_loop(cells)
    except ValueError as e:
        raise BadPosition(str(e)) from None
    if not sol.solved:
        raise Unsolvable(
            f"{' '.join(map(str, cells))} is unsolvable: the loop method ends after "
            f"{len(sol.moves)} moves in the other-parity arrangement "
            f"{' '.join(map(str, sol.final))}"
        )
    states = [p.cells.encode(b) for b in _slide(cells, sol.moves)]
    return MethodSolution(
        p.name, "goal", states, [p.text(s) for s in states], method="loop", tiles=list(sol.moves)
    )
