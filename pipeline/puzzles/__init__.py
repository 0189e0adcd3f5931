"""The registry: every puzzle by its public name (part of the data contract)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.errors import UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.cube.board import POCKET, POCKET_QTM
from pipeline.puzzles.oshidori import OSHIDORI
from pipeline.puzzles.pegs.board import PUZZLES as PEGS
from pipeline.puzzles.pegs.board import variant as peg_variant
from pipeline.puzzles.pegs.chains import PUZZLES as PEG_CHAINS
from pipeline.puzzles.pegs.sym import SYM_PUZZLES as PEGS_SYM
from pipeline.puzzles.placements import MAGIC9
from pipeline.puzzles.tiles.board import HEX6, rectangle
from pipeline.puzzles.tiles.multi import multi_rectangle
from pipeline.puzzles.tiles.patterns import group_names, pattern_puzzles
from pipeline.puzzles.tours import KNIGHT14

_ALL: list[Puzzle] = [
    OSHIDORI,
    HEX6,
    rectangle(2, 3, default=True),
    rectangle(2, 4, default=True),
    rectangle(3, 3, default=True),
    rectangle(2, 5, default=True),
    rectangle(3, 4),
    rectangle(2, 6),
    rectangle(4, 4),
    *(multi_rectangle(r, c) for r, c in ((3, 3), (2, 5), (3, 4), (2, 6))),  # multi.py
    KNIGHT14,
    MAGIC9,
    *PEGS,
    *PEGS_SYM,  # one position per symmetry class (pipeline/puzzles/pegs/sym.py)
    *PEG_CHAINS,  # the English board in moves, one row a board (peg_chains.py)
    POCKET,  # the 2x2x2 cube, corner DBL fixed (pipeline/puzzles/cube/board.py)
    POCKET_QTM,
    *pattern_puzzles(),  # derived tables: pattern databases (pipeline/puzzles/pdb.py)
]

REGISTRY: dict[str, Puzzle] = {p.name: p for p in _ALL}


def get(name: str, data: Path | None = None) -> Puzzle:
    """The puzzle registered as ``name``; UnknownPuzzle lists the known names.

    Names built from parts (``3x3-multi@4``) resolve too (names.py); those whose
    definition lives in a data folder (specs, typed roots) need ``data``.
    """
    try:
        return REGISTRY[name]
    except KeyError:
        for p in peg_variant(name) or []:  # triangle15@3: another start hole
            if p.name == name:
                return p
        from pipeline.puzzles.names import resolve

        found = resolve(name, data)
        if found is not None:
            return found
        raise UnknownPuzzle(f"unknown puzzle {name!r}{_suggest(name)}") from None


def _suggest(name: str) -> str:
    """``: did you mean 3x3?`` for a near miss; where the names are listed otherwise."""
    import difflib

    near = difflib.get_close_matches(name, [*REGISTRY, *GROUPS], n=3, cutoff=0.6)
    if near:
        return f": did you mean {' or '.join(near)}? (`puzzledb list` names them all)"
    return " (`puzzledb list` names them all)"


def family_sql(found: list[Any]) -> list[str]:
    """Catalog statements the families add for the tables in ``found`` (manifests)."""
    from pipeline.puzzles.pegs import sql as peg_sql

    return peg_sql.statements(found)


def defaults() -> list[Puzzle]:
    """The puzzles ``make build-db`` builds."""
    return [p for p in _ALL if p.default]


#: Names that stand for several tables (``4x4-pdb``: every pattern database of 4x4).
GROUPS: dict[str, list[str]] = group_names()


def expand_names(names: list[str]) -> list[str]:
    """Replace each group name by its tables, keeping order and dropping repeats."""
    out: list[str] = []
    for n in names:
        for m in GROUPS.get(n, [n]):
            if m not in out:
                out.append(m)
    return out
