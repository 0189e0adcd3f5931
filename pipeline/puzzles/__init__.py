"""The registry: every puzzle by its public name (part of the data contract)."""

from __future__ import annotations

from pipeline.errors import UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.oshidori import OSHIDORI
from pipeline.puzzles.pegs import PUZZLES as PEGS
from pipeline.puzzles.pegs import variant as peg_variant
from pipeline.puzzles.placements import MAGIC9
from pipeline.puzzles.tiles import HEX6, rectangle
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
    KNIGHT14,
    MAGIC9,
    *PEGS,
]

REGISTRY: dict[str, Puzzle] = {p.name: p for p in _ALL}


def get(name: str) -> Puzzle:
    """The puzzle registered as ``name``; UnknownPuzzle lists the known names."""
    try:
        return REGISTRY[name]
    except KeyError:
        for p in peg_variant(name) or []:  # triangle15@3: another start hole
            if p.name == name:
                return p
        known = ", ".join(REGISTRY)
        raise UnknownPuzzle(f"unknown puzzle {name!r} (known: {known})") from None


def defaults() -> list[Puzzle]:
    """The puzzles ``make build-db`` builds."""
    return [p for p in _ALL if p.default]
