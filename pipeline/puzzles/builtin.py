"""The built-in puzzles: every table the package defines, by its public name
(part of the data contract), and the names that stand for several tables.

Data only: it imports the families and nothing that finds puzzles by name, so
the grammar (names.py) and the specs (spec/parse.py) build on it and the
registry (registry.py) on all three.
"""

from __future__ import annotations

import difflib

from pipeline.errors import UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.cube.board import POCKET, POCKET_QTM
from pipeline.puzzles.oshidori import OSHIDORI
from pipeline.puzzles.pegs.board import PUZZLES as PEGS
from pipeline.puzzles.pegs.chains import PUZZLES as PEG_CHAINS
from pipeline.puzzles.pegs.sym import SYM_PUZZLES as PEGS_SYM
from pipeline.puzzles.placements import MAGIC9
from pipeline.puzzles.tiles.board import HEX6, rectangle
from pipeline.puzzles.tiles.multi import multi_rectangle
from pipeline.puzzles.tiles.patterns import group_names, pattern_puzzles
from pipeline.puzzles.tiles.regions import all_region_puzzles, region_group_names
from pipeline.puzzles.tours import KNIGHT14

BUILTIN: list[Puzzle] = [
    OSHIDORI,
    HEX6,
    rectangle(2, 3, default=True),
    rectangle(2, 4, default=True),
    rectangle(3, 3, default=True),
    rectangle(2, 5, default=True),
    rectangle(3, 4),
    rectangle(2, 6),
    rectangle(4, 4),
    *(multi_rectangle(r, c) for r, c in ((3, 3), (2, 5), (3, 4), (2, 6))),  # tiles/multi.py
    KNIGHT14,
    MAGIC9,
    *PEGS,
    *PEGS_SYM,  # one position per symmetry class (pegs/sym.py)
    *PEG_CHAINS,  # the English board in moves, one row a board (pegs/chains.py)
    POCKET,  # the 2x2x2 cube, corner DBL fixed (cube/board.py)
    POCKET_QTM,
    *pattern_puzzles(),  # derived tables: pattern databases (tiles/patterns.py)
    *all_region_puzzles(),  # 4x4-pdb-7, 4x4-pdb-8: the blank's region (tiles/regions.py)
]

REGISTRY: dict[str, Puzzle] = {p.name: p for p in BUILTIN}

#: Names that stand for several tables (``4x4-pdb``: every pattern database of 4x4).
GROUPS: dict[str, list[str]] = {**group_names(), **region_group_names()}


def unknown(name: str) -> UnknownPuzzle:
    """The error for a name that stands for no puzzle, naming near misses."""
    return UnknownPuzzle(f"unknown puzzle {name!r}{_suggest(name)}")


def _suggest(name: str) -> str:
    """``: did you mean 3x3?`` for a near miss; where the names are listed otherwise."""
    near = difflib.get_close_matches(name, [*REGISTRY, *GROUPS], n=3, cutoff=0.6)
    if near:
        return f": did you mean {' or '.join(near)}? (`puzzledb list` names them all)"
    return " (`puzzledb list` names them all)"
