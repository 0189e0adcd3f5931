"""The peg solitaire family as the rest of the package sees it (puzzles/family.py).

Its boards in jumps, in moves, by symmetry classes and their winnable tables,
their drawing, the catalog's peg macros (sql.py), the suffixes of its names
and its ``[pegs]`` table in a spec:

    <board>[@<hole>][-winnable]   triangle15@3-winnable (hole 3 empty at the start)
    <board>~<hash>                from a typed root (names.py makes the hash)
"""

from __future__ import annotations

from pipeline.errors import UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.family import Family, SpecTable, Variants
from pipeline.puzzles.pegs import chains, spec, sql, sym
from pipeline.puzzles.pegs.art import PegArt
from pipeline.puzzles.pegs.board import (
    PUZZLES,
    PegPuzzle,
    RootedPegPuzzle,
    WinnablePuzzle,
    start_hole,
)


def _variant(board: Puzzle, groups: dict[str, str | None]) -> Puzzle | None:
    """``@<hole>`` and ``-winnable`` on a board in jumps (not in moves, not by classes)."""
    if type(board) is not PegPuzzle:
        return None
    p = board if groups["hole"] is None else start_hole(board, int(groups["hole"]))
    return WinnablePuzzle(p) if groups["winnable"] else p


def _rooted(board: Puzzle, values: list[int], name: str) -> Puzzle:
    """The board enumerated from the typed position ``values``, in jumps."""
    if type(board) is not PegPuzzle:
        raise UnknownPuzzle(f"{board.name}: tables from a typed root are for boards in jumps")
    return RootedPegPuzzle(board, board.cells.encode(values), name)


FAMILY = Family(
    "pegs",
    "peg boards",
    classes=(PegPuzzle, WinnablePuzzle, chains.ChainWinnablePuzzle),
    # In jumps (board.py), one position per symmetry class (sym.py), in moves (chains.py).
    tables=(*PUZZLES, *sym.SYM_PUZZLES, *chains.PUZZLES),
    arts={PegPuzzle: PegArt, WinnablePuzzle: PegArt, chains.ChainWinnablePuzzle: PegArt},
    sql=sql.statements,
    variants=Variants(
        r"(?:@(?P<hole>\d+))?(?P<winnable>-winnable)?",
        _variant,
        None,
        _rooted,
        examples=("triangle15@3", "triangle15@3-winnable"),
    ),
    spec=SpecTable("pegs", spec.KEYS, spec.TABLES, spec.load),
)
