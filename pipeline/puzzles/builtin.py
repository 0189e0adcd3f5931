"""The families and their built-in puzzles: every table the package defines, by its
public name (part of the data contract), and the names that stand for several tables.

Data only: it lists the families (each declares itself: puzzles/family.py) and
imports nothing that finds puzzles by name, so the grammar (names.py) and the
specs (spec/parse.py) build on it and the registry (registry.py) on all three.
"""

from __future__ import annotations

import difflib

from pipeline.errors import UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.cube import family as cube
from pipeline.puzzles.family import Family
from pipeline.puzzles.hanoi import FAMILY as HANOI
from pipeline.puzzles.oshidori import FAMILY as OSHIDORI
from pipeline.puzzles.pegs import family as pegs
from pipeline.puzzles.placements import FAMILY as PLACEMENTS
from pipeline.puzzles.tiles import family as tiles
from pipeline.puzzles.tours import FAMILY as TOURS
from pipeline.puzzles.twisty import family as twisty

#: Every family, a line each (each declares itself: puzzles/family.py), in the order
#: ``puzzledb list`` shows their tables.
FAMILIES: list[Family] = [
    OSHIDORI,
    tiles.FAMILY,
    TOURS,
    PLACEMENTS,
    pegs.FAMILY,
    cube.FAMILY,
    HANOI,
    twisty.FAMILY,
]

BUILTIN: list[Puzzle] = [p for f in FAMILIES for p in f.tables]

REGISTRY: dict[str, Puzzle] = {p.name: p for p in BUILTIN}

#: Names that stand for several tables (``4x4-pdb``: every pattern database of 4x4).
GROUPS: dict[str, list[str]] = {k: v for f in FAMILIES for k, v in f.groups.items()}


def family_of(puzzle: Puzzle) -> Family | None:
    """The family of ``puzzle``: the one that lists its nearest class."""
    for cls in type(puzzle).__mro__:
        for f in FAMILIES:
            if cls in f.classes:
                return f
    return None


def unknown(name: str) -> UnknownPuzzle:
    """The error for a name that stands for no puzzle, naming near misses."""
    return UnknownPuzzle(f"unknown puzzle {name!r}{_suggest(name)}")


def _suggest(name: str) -> str:
    """``: did you mean 3x3?`` for a near miss; where the names are listed otherwise."""
    near = difflib.get_close_matches(name, [*REGISTRY, *GROUPS], n=3, cutoff=0.6)
    if near:
        return f": did you mean {' or '.join(near)}? (`puzzledb list` names them all)"
    return " (`puzzledb list` names them all)"
