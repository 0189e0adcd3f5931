"""The tiles a step of a sliding puzzle slides, and how the text and the pictures name them."""

from __future__ import annotations

from collections.abc import Sequence


def step_tiles(before: Sequence[int], after: Sequence[int]) -> list[int]:
    """The tiles one step slides, the one next to the blank first: one on most boards,
    several where a move slides a line (3x3-multi). The text and the SVG both name these."""
    z = list(before).index(0)
    moved = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b and a]
    return [before[i] for i in sorted(moved, key=lambda i: abs(i - z))]


def slid_words(tiles: Sequence[int]) -> str:
    """One step's tiles as the text and the SVG print them: ``8``, or ``6+8`` for a line."""
    return "+".join(map(str, tiles))


def slid_label(before: Sequence[int], after: Sequence[int]) -> str:
    """A step's label in the SVG strip: ``tile 8``, ``tiles 6+8``."""
    tiles = step_tiles(before, after)
    return f"tile{'s' if len(tiles) > 1 else ''} {slid_words(tiles)}"
