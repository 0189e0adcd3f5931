"""Which way `solve` answers, and the solutions of the methods that are not a table walk.

- ``table``: walk parents in the puzzle's own table (optimal; needs it built);
- ``optimal``: IDA* with additive pattern databases (rectangles with a
  partition in pipeline/puzzles/tiles/patterns.py);
- ``loop``: the article's loop procedure (4x4 only; not optimal);
- ``auto`` (the default): the table when built, else ``optimal`` for 4x4,
  else an error naming the build command.

Pure: the API decides what to build and hands the solvers what they read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline import hints
from pipeline.answers import MethodSolution, Origin, Solution
from pipeline.errors import BadMethod, BadPosition, NotBuilt, Unsolvable
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.tiles.patterns import PARTITIONS
from pipeline.solvers.loop15 import solve_loop

if TYPE_CHECKING:
    from pipeline.solvers.optimal import Solver

METHODS = ("auto", "table", "optimal", "loop")
#: Boards where ``auto`` falls back to the pattern-database search.
AUTO_OPTIMAL = ("4x4",)


def pick(method: str, puzzle: str, built: bool) -> str:
    """The method that answers: ``table``, ``optimal`` or ``loop`` (``auto`` resolved)."""
    if method not in METHODS:
        raise BadMethod(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    if method != "auto":
        return method
    if built or puzzle not in AUTO_OPTIMAL:
        return "table"
    return "optimal"


def not_built(puzzle: str, data: Path, positions: int | None = None) -> NotBuilt:
    """No table to walk: the build, or for a table too large for the disk what answers."""
    if not hints.fits(data, positions):
        patterns = f"{puzzle}-pdb" if puzzle in PARTITIONS else None
        return NotBuilt(hints.not_built(puzzle, data, positions, patterns))
    return NotBuilt(
        f"{puzzle} is not built: run {hints.build(puzzle, data)}"
        + (" or solve with `--method optimal`" if puzzle in PARTITIONS else "")
    )


def from_table(sol: Solution, p: Puzzle) -> MethodSolution:
    """A table walk as a method solution (with the tiles slid on rectangles)."""
    tiles = [t for step in p.tiles_slid(sol.states) for t in step] if p.name in PARTITIONS else []
    walked = {f.name: getattr(sol, f.name) for f in dataclasses.fields(Solution)}
    return MethodSolution(**walked, method="table", tiles=tiles)


def _slide(cells: Sequence[int], tiles: Sequence[int]) -> list[list[int]]:
    """The positions along a sequence of tiles slid into the blank."""
    board = list(cells)
    out = [list(board)]
    for t in tiles:
        z, j = board.index(0), board.index(t)
        board[z], board[j] = t, 0
        out.append(list(board))
    return out


def optimal(search: Solver, p: Puzzle, position: str) -> MethodSolution:
    """An optimal solution by the pattern-database ``search`` (solvers/optimal.py)."""
    cells = p.cells.values(p.parse(position))
    r = search.solve(cells)
    states = [p.cells.encode(b) for b in _slide(cells, r.tiles)]
    return MethodSolution(
        p.name,
        Origin.GOAL,
        states,
        [p.text(s) for s in states],
        method="optimal",
        tiles=r.tiles,
        nodes=r.nodes,
        seconds=r.seconds,
        heuristic=search.heuristic_name,
    )


def loop(p: Puzzle, position: str) -> MethodSolution:
    """The article's loop procedure on 4x4 (not optimal)."""
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
        p.name,
        Origin.GOAL,
        states,
        [p.text(s) for s in states],
        method="loop",
        tiles=list(sol.moves),
    )
