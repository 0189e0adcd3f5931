"""The distance between two positions, where one table answers it: the depth of one
in a table rooted at the other, or with the pieces renamed so that one of them is the
goal of a table (``Puzzle.relabelled``: sliding tiles, of the table built for its
blank's cell, ``3x3@k``; the pocket cube's corners, of solved), either way round (a
move can be undone: the distance reads the same both ways)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from pipeline import hints
from pipeline.answers import Distance
from pipeline.engine.core import Graph
from pipeline.errors import BadMethod, BadPosition, NotBuilt, UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.service.folder import Folder
from pipeline.service.positions import depth, depth_of

if TYPE_CHECKING:
    from pipeline.solvers.twisty_solver import PuzzleSearch

#: Graphs whose moves can be undone: a distance reads the same both ways.
UNDONE = (Graph.BIPARTITE, Graph.REVERSIBLE)


def distance(folder: Folder, p: Puzzle, a: int, b: int) -> Distance:
    """The fewest moves from ``a`` to ``b`` (positions of ``p``); NotBuilt naming the table
    to build, or BadMethod saying in one line why no table answers."""
    roots = set(p.roots())
    if b in roots or (a in roots and p.graph in UNDONE):
        return _answer(p, a, b, depth_of(folder, p, a if b in roots else b), p.name)
    ways = [w for x, y in ((a, b), (b, a)) if (w := p.relabelled(x, y)) is not None]
    if not ways:
        raise BadMethod(_no_table(p))
    usable = [(t, s) for s, root, names in ways for t in _rooted_at(folder, names, root)]
    for table, state in usable:
        if folder.is_built(table.name):
            moves = _renamed_depth(folder, p, table, state, (a, b))
            return _answer(p, a, b, moves, table.name, p.text(state))
    first = usable[0][0].name
    raise NotBuilt(
        f"the distance to {p.text(b)} is a depth in {first} (its {p.pieces_word} renamed so "
        f"that it is the goal there): run {hints.build(first, folder.data)}"
    )


def _renamed_depth(
    folder: Folder, p: Puzzle, table: Puzzle, state: int, typed: tuple[int, int]
) -> int:
    """The renamed position's depth in ``table``'s table. Where it is not there, the line
    names the two positions typed, not the renamed one nobody typed: renaming keeps every
    move, so outside a whole table no sequence of moves joins them."""
    found = depth(folder, table, state)
    if found is not None:
        return found
    a, b = (p.text(s) for s in typed)
    partial = folder.table(table).manifest.partial_depth
    if partial is None:
        raise BadPosition(f"no sequence of moves leads from {a} to {b}")
    more = hints.build(f"{table.name} --max-depth {partial + 10}", folder.data)
    raise BadPosition(
        f"{a} and {b} are more than {partial} moves apart: the {table.name} table holds its "
        f"first {partial} levels only; build more with {more}"
    )


def _answer(
    p: Puzzle, a: int, b: int, moves: int, table: str, renamed: str | None = None
) -> Distance:
    return Distance(p.name, p.text(a), p.text(b), moves, table, renamed)


def _rooted_at(folder: Folder, names: list[str], root: int) -> list[Puzzle]:
    """The puzzles of ``names`` (known here) whose one root is ``root``."""
    out = []
    for name in names:
        with contextlib.suppress(UnknownPuzzle):
            if (table := folder.puzzle(name)).roots() == [root]:
                out.append(table)
    return out


def _no_table(p: Puzzle) -> str:
    """Why no table answers a distance between two positions of ``p``."""
    if p.graph not in UNDONE:
        why = "its moves cannot be undone, so a table from its start or goal says nothing"
    else:
        why = (
            "its pieces are not interchangeable labels to rename "
            "(sliding tiles, the pocket cube's corners and a definition's distinct pieces are)"
        )
    return (
        f"{p.name}: no table answers the distance between two positions: {why}; "
        f"`solve` gives a position's distance to its {'goal' if p.origin.towards else 'start'}"
    )


def searched(search: PuzzleSearch, p: Puzzle, a: int, b: int) -> Distance:
    """The fewest moves from ``a`` to ``b`` of a puzzle solved by search: the optimal
    length of ``a``'s pieces renamed so that ``b`` is solved (the position A^-1 B of
    the group), each checked against the group first."""
    from pipeline.solvers import twisty_solver  # at first use

    twisty_solver.check(p, a)
    twisty_solver.check(p, b)
    renamed = p.relabelled(a, b)
    if renamed is None:
        raise BadMethod(
            f"{p.name}: a distance between two positions needs its pieces distinct (their "
            "labels renamed): `solve` gives a position's distance to solved"
        )
    found = search.solve(renamed[0])
    return Distance(
        p.name, p.text(a), p.text(b), found.moves, ", ".join(search.tables), p.text(renamed[0]),
        method="search",
    )  # fmt: skip
