"""The sliding-tile family as the rest of the package sees it (puzzles/family.py).

Its boards (the six puzzle, rectangles up to 16 cells, the multi-tile metric),
its pattern databases, its drawings, the suffixes of its names and its
``[tiles]`` table in a spec:

    <board>[-multi][@<cell>]   3x3-multi, 3x3@4 (the blank's goal cell), hex6@3
    <board>[-multi]~<hash>     from a typed root (names.py makes the hash)
    <R>x<C>                    any rectangle, 2 <= R, C and R*C <= 16
"""

from __future__ import annotations

import re

from pipeline.errors import BadPosition, UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.family import Family, SpecTable, Variants
from pipeline.puzzles.tiles import spec
from pipeline.puzzles.tiles.art import PatternArt, TileArt
from pipeline.puzzles.tiles.board import HEX6, TilePuzzle, rectangle
from pipeline.puzzles.tiles.multi import MultiTilePuzzle, multi_rectangle
from pipeline.puzzles.tiles.patterns import PatternPuzzle, group_names, pattern_puzzles
from pipeline.puzzles.tiles.regions import all_region_puzzles, region_group_names
from pipeline.words import permutation_fault

RECTANGLE = re.compile(r"(\d+)x(\d+)")


def any_rectangle(name: str) -> TilePuzzle | None:
    """The rectangle ``RxC`` (2 <= R, C and R*C <= 16), or None."""
    m = RECTANGLE.fullmatch(name)
    if m is None:
        return None
    rows, cols = int(m[1]), int(m[2])
    return rectangle(rows, cols) if rows >= 2 and cols >= 2 and rows * cols <= 16 else None


def goal_cell(board: TilePuzzle, cell: int) -> TilePuzzle:
    """The board whose goal has the blank in ``cell`` and the tiles in order elsewhere."""
    n = board.cells.count
    if not 0 <= cell < n:
        raise UnknownPuzzle(f"{board.name} has cells 0..{n - 1}: no {board.name}@{cell}")
    tiles = iter(range(1, n))
    goal = [0 if c == cell else next(tiles) for c in range(n)]
    return board.with_goal(goal, f"{board.name}@{cell}", f"{board.title}, blank in cell {cell}")


def _multi(board: Puzzle) -> MultiTilePuzzle:
    m = RECTANGLE.fullmatch(board.name)
    if m is None or type(board) is not TilePuzzle:
        raise UnknownPuzzle(f"{board.name}-multi: the multi-tile metric is for rectangles only")
    return multi_rectangle(int(m[1]), int(m[2]))


def _variant(board: Puzzle, groups: dict[str, str | None]) -> Puzzle | None:
    """``-multi`` and ``@<cell>`` on a plain board (not a pattern database)."""
    if type(board) is not TilePuzzle:
        return None
    made: TilePuzzle = _multi(board) if groups["multi"] else board
    return made if groups["cell"] is None else goal_cell(made, int(groups["cell"]))


def _rooted(board: Puzzle, values: list[int], name: str) -> Puzzle:
    """The board enumerated from the typed position ``values`` (a permutation)."""
    if not isinstance(board, TilePuzzle) or isinstance(board, PatternPuzzle):
        raise UnknownPuzzle(f"{board.name}: tables from a typed root are for boards, not this")
    fault = permutation_fault(values, len(values))
    if fault:
        raise BadPosition(f"each of 0..{len(values) - 1} must appear once: {fault}")
    text = board.text(board.cells.encode(values))
    return board.with_goal(values, name, f"{board.title}, from {text}")


BOARDS: tuple[Puzzle, ...] = (
    HEX6,
    rectangle(2, 3, default=True),
    rectangle(2, 4, default=True),
    rectangle(3, 3, default=True),
    rectangle(2, 5, default=True),
    rectangle(3, 4),
    rectangle(2, 6),
    rectangle(4, 4),
    *(multi_rectangle(r, c) for r, c in ((3, 3), (2, 5), (3, 4), (2, 6))),  # multi.py
)

FAMILY = Family(
    "tiles",
    "sliding boards",
    classes=(TilePuzzle, PatternPuzzle),
    # The pattern databases (patterns.py) and the 7-8 region tables (regions.py): derived.
    tables=(*BOARDS, *pattern_puzzles(), *all_region_puzzles()),
    groups={**group_names(), **region_group_names()},
    arts={TilePuzzle: TileArt, PatternPuzzle: PatternArt},
    variants=Variants(
        r"(?P<multi>-multi)?(?:@(?P<cell>\d+))?",
        _variant,
        any_rectangle,
        _rooted,
        examples=("2x3@1", "2x3-multi@5"),
    ),
    spec=SpecTable("tiles", spec.KEYS, spec.TABLES, spec.load),
)
