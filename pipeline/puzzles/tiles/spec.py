"""The ``[tiles]`` family of a spec: a sliding-tile puzzle on any graph of cells.

    [tiles]
    cells = 8                                   # 2..15 cells (4 bits a cell, a tag beside)
    adjacency = [[3], [4], [3], [0, 2, 4, 6], ...]   # neighbours of cell 0, 1, ...
    layout = '''                                # the drawing: {i} stands for cell i
      {0} {1}
    {2} {3} {4} {5}
      {6} {7}'''
    goal = [1, 2, 3, 4, 5, 6, 7, 0]             # optional: tiles 1..n-1 then the blank

Adjacency must be symmetric, without self-loops or repeats, every cell with a
neighbour and the board connected. The table is enumerated from the goal
(encoding as every sliding board: the tile of cell i in bits 4i..4i+3).
"""

from __future__ import annotations

import string

from pipeline.puzzles.spec.base import Problem, Spec
from pipeline.puzzles.tiles.board import TilePuzzle
from pipeline.words import permutation_fault

#: The tables `build --spec` builds: the board.
TABLES = ("",)
KEYS = {"cells": True, "adjacency": True, "layout": True, "goal": False}
#: 15 cells of 4 bits leave 4 bits of a packed key for the move's tag.
MAX_CELLS = 15


def load(spec: Spec) -> TilePuzzle:
    t = spec.table
    n = _count(t["cells"])
    adjacency = _adjacency(t["adjacency"], n)
    layout = _layout(t["layout"], n)
    goal = _goal(t.get("goal"), n)
    return TilePuzzle(spec.name, spec.title, adjacency, layout, goal=goal)


def _count(n: object) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or n < 2:
        raise Problem("tiles.cells", "a whole number of cells, at least 2")
    if n > MAX_CELLS:
        raise Problem(
            "tiles.cells",
            f"too many cells: {n} (at most {MAX_CELLS}: 4 bits a cell and the move's "
            "tag fit in a 64-bit key)",
        )
    return n


def _ints(value: object, key: str) -> list[int]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise Problem(key, "must be a list of whole numbers")
    return value


def _adjacency(value: object, n: int) -> list[list[int]]:
    if not isinstance(value, list) or len(value) != n:
        raise Problem("tiles.adjacency", f"must list the neighbours of each of the {n} cells")
    adj = [_ints(v, f"tiles.adjacency[{i}]") for i, v in enumerate(value)]
    for a, nbrs in enumerate(adj):
        key = f"tiles.adjacency[{a}]"
        if not nbrs:
            raise Problem(key, f"cell {a} has no neighbour")
        for b in nbrs:
            if not 0 <= b < n:
                raise Problem(key, f"{b} is not a cell (cells are 0..{n - 1})")
            if b == a:
                raise Problem(key, f"cell {a} lists itself (a self-loop)")
            if a not in adj[b]:
                raise Problem(key, f"cell {a} lists {b} but cell {b} does not list {a}")
        if len(set(nbrs)) != len(nbrs):
            raise Problem(key, f"cell {a} lists a neighbour twice")
    _connected(adj)
    return adj


def _connected(adj: list[list[int]]) -> None:
    seen = {0}
    stack = [0]
    while stack:
        for b in adj[stack.pop()]:
            if b not in seen:
                seen.add(b)
                stack.append(b)
    apart = [c for c in range(len(adj)) if c not in seen]
    if apart:
        cells = " ".join(map(str, apart))
        raise Problem("tiles.adjacency", f"the board is not connected: cell 0 reaches no {cells}")


def _layout(value: object, n: int) -> str:
    if not isinstance(value, str):
        raise Problem("tiles.layout", "must be a string drawing the cells as {0} {1} ...")
    try:
        parsed = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(value)]
    except ValueError as e:
        raise Problem("tiles.layout", f"not a drawing: {e}") from None
    if any(f is not None and (spec or conv) for f, spec, conv in parsed):
        raise Problem("tiles.layout", "cells are drawn as plain {i}, without a format")
    fields = [f for f, _, _ in parsed if f is not None]
    wrong = [f for f in fields if f not in {str(i) for i in range(n)}]
    if wrong:
        raise Problem("tiles.layout", f"{{{wrong[0]}}} is not a cell (cells are 0..{n - 1})")
    counts = [fields.count(str(i)) for i in range(n)]
    if any(c != 1 for c in counts):
        i = next(i for i, c in enumerate(counts) if c != 1)
        raise Problem("tiles.layout", f"cell {i} must be drawn once ({{{i}}}), not {counts[i]}")
    return value.strip("\n")


def _goal(value: object, n: int) -> list[int] | None:
    if value is None:
        return None
    goal = _ints(value, "tiles.goal")
    fault = permutation_fault(goal, n)
    if fault:
        raise Problem("tiles.goal", f"not a permutation of 0..{n - 1} ({fault})")
    return goal
