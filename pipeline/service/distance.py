"""The distance between two positions, where one table answers it: the depth of one
in a table rooted at the other, or with the pieces renamed so that one of them is the
goal of a table (``Puzzle.relabelled``: sliding tiles, of the table built for its
blank's cell, ``3x3@k``; the pocket cube's corners, of solved), either way round (a
move can be undone: the distance reads the same both ways)."""

from __future__ import annotations

from pipeline import hints
from pipeline.answers import Distance
from pipeline.engine.core import Graph
from pipeline.errors import BadMethod, BadPosition, NotBuilt
from pipeline.puzzles.base import Puzzle
from pipeline.service.folder import Folder
from pipeline.service.positions import depth, depth_of

#: Graphs whose moves can be undone: a distance reads the same both ways.
UNDONE = (Graph.BIPARTITE, Graph.REVERSIBLE)


def distance(folder: Folder, name: str, a: int, b: int) -> Distance:
    """The fewest moves from ``a`` to ``b`` (positions of puzzle ``name``); NotBuilt
    naming the table to build, or BadMethod saying in one line why no table answers."""
    p = folder.puzzle(name)
    roots = set(p.roots())
    if b in roots or (a in roots and p.graph in UNDONE):
        return _answer(p, a, b, depth_of(folder, name, a if b in roots else b), name)
    ways = [w for x, y in ((a, b), (b, a)) if (w := p.relabelled(x, y)) is not None]
    if not ways:
        raise BadMethod(_no_table(p))
    usable = [(t, s) for s, root, tables in ways for t in tables if _rooted_at(folder, t, root)]
    for table, state in usable:
        if folder.is_built(table):
            moves = _renamed_depth(folder, p, table, state, (a, b))
            return _answer(p, a, b, moves, table, p.text(state))
    table = usable[0][0]
    raise NotBuilt(
        f"the distance to {p.text(b)} is a depth in {table} (its {p.pieces_word} renamed so "
        f"that it is the goal there): run {hints.build(table, folder.data)}"
    )


def _renamed_depth(
    folder: Folder, p: Puzzle, table: str, state: int, typed: tuple[int, int]
) -> int:
    """The renamed position's depth in ``table``. Where it is not there, the line names the
    two positions typed, not the renamed one nobody typed: renaming keeps every move, so
    outside a whole table no sequence of moves joins them."""
    found = depth(folder, table, state)
    if found is not None:
        return found
    a, b = (p.text(s) for s in typed)
    partial = folder.table(table).manifest.partial_depth
    if partial is None:
        raise BadPosition(f"no sequence of moves leads from {a} to {b}")
    more = hints.build(f"{table} --max-depth {partial + 10}", folder.data)
    raise BadPosition(
        f"{a} and {b} are more than {partial} moves apart: the {table} table holds its "
        f"first {partial} levels only; build more with {more}"
    )


def _answer(
    p: Puzzle, a: int, b: int, moves: int, table: str, renamed: str | None = None
) -> Distance:
    return Distance(p.name, p.text(a), p.text(b), moves, table, renamed)


def _rooted_at(folder: Folder, table: str, root: int) -> bool:
    """Whether ``table`` names a puzzle (known here) whose one root is ``root``."""
    from pipeline.errors import UnknownPuzzle

    try:
        return folder.puzzle(table).roots() == [root]
    except UnknownPuzzle:
        return False


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
