"""Pattern tables of a twisty definition: abstractions built as ordinary tables.

A pattern table is the :class:`~pipeline.puzzles.twisty.board.TwistyPuzzle` of an
abstraction of the definition (abstract.py): the same engine builds it into the
same Parquet (state, depth, parent), every surface reads it, and a search of
the whole puzzle looks a position's projection up in it (its depth: a lower
bound of the position's distance to solved). Each is named
``<name>-pdb-<label>``, as the 15 puzzle's pattern databases are
(tiles/patterns.py), is derived (``list --all`` shows it), and
``<name>-pdb`` names them all.

A spec names them (``[[twisty.pattern]]``: docs/SPECS.md), or :func:`choose`
picks them within a memory budget: every set covered, a set whose table
would not fit split into groups of consecutive pieces (each group's pieces
distinct, the rest of the set ``?``), the groups made smaller until the
tables' look-up arrays, a byte a position, fit the budget together.
"""

from __future__ import annotations

import re

from pipeline.errors import BadSpec
from pipeline.puzzles.twisty import abstract
from pipeline.puzzles.twisty.abstract import Pattern
from pipeline.puzzles.twisty.board import TwistyPuzzle, states
from pipeline.puzzles.twisty.tws import Definition
from pipeline.words import size_of

#: A pattern's label: what follows ``-pdb-`` in a table's name.
LABEL = re.compile(r"[a-z0-9][a-z0-9_]{0,31}")
#: The budget of the look-up arrays when none is given: the build's default memory.
DEFAULT_MEMORY = 3 << 30


class TwistyPattern(TwistyPuzzle):
    """A pattern table of a twisty puzzle: the puzzle of its abstraction."""

    derived = True

    def __init__(self, base: TwistyPuzzle, pattern: Pattern) -> None:
        d = abstract.abstract(base.definition, pattern)
        name = f"{base.name}-pdb-{pattern.label}"
        kept = pattern.text(base.definition)
        title = f"pattern table {pattern.label} of {base.name} ({kept}; the other pieces ?)"
        options = base.options
        super().__init__(
            d, name, where=base.where, title=title, moves=options["moves"],  # type: ignore[arg-type]
            quarter=base.quarter,
        )  # fmt: skip
        self.base = base
        self.pattern = pattern
        self.spec = base.spec

    def for_format(self, version: int) -> TwistyPattern:
        """Pattern tables came with format version 2: read as it is."""
        return self

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "pattern_of": self.base.name,
            "pattern": self.pattern.describe(self.base.definition),
        }

    def project(self, state: int) -> int:
        """The state of a position of the whole puzzle (its state there) in this table."""
        parts = self.base.decode(state)
        return self.encode(abstract.project(self.base.definition, self.pattern, parts))


def pattern_table(base: TwistyPuzzle, label: str) -> TwistyPattern | None:
    """The pattern table ``label`` of ``base`` (None: it names none)."""
    for p in base.patterns:
        if p.label == label:
            return TwistyPattern(base, p)
    return None


def size(d: Definition, pattern: Pattern, moves: list[str] | None, quarter: bool) -> int:
    """How many states the pattern's table has (its look-up array's bytes)."""
    return states(abstract.abstract(d, pattern), moves, quarter)


def _labels(d: Definition) -> list[str]:
    """A label for each set, from its name (``set<i>`` where that is no label or taken)."""
    out: list[str] = []
    for i, s in enumerate(d.sets):
        label = re.sub(r"[^a-z0-9_]", "_", s.name.lower())[:28].strip("_")
        out.append(label if LABEL.fullmatch(label) and label not in out else f"set{i + 1}")
    return out


def _groups(d: Definition, i: int, label: str, count: int) -> list[Pattern]:
    """Set i's pieces in ``count`` groups of consecutive positions (as equal as can be)."""
    s = d.sets[i]
    if count == 1:
        return [Pattern(label, ((s.name, tuple(range(s.pieces))),))]
    bounds = [s.pieces * k // count for k in range(count + 1)]
    return [
        Pattern(f"{label}{k + 1}", ((s.name, tuple(range(bounds[k], bounds[k + 1]))),))
        for k in range(count)
    ]


def choose(
    d: Definition, moves: list[str] | None, quarter: bool, memory: int, where: str
) -> tuple[Pattern, ...]:
    """Pattern tables covering every set whose look-up arrays fit ``memory`` bytes together
    (the module docstring); BadSpec in one line when none do."""
    labels = _labels(d)
    counts = [1] * len(d.sets)
    sizes: dict[tuple[int, int], list[int]] = {}

    def of(i: int) -> list[int]:
        if (i, counts[i]) not in sizes:
            groups = _groups(d, i, labels[i], counts[i])
            sizes[i, counts[i]] = [size(d, p, moves, quarter) for p in groups]
        return sizes[i, counts[i]]

    for i, s in enumerate(d.sets):
        while max(of(i)) > memory and counts[i] < s.pieces:
            counts[i] += 1
    while sum(sum(of(i)) for i in range(len(d.sets))) > memory:
        i = max(range(len(d.sets)), key=lambda i: sum(of(i)))
        if counts[i] == d.sets[i].pieces:
            break
        counts[i] += 1
    total = sum(sum(of(i)) for i in range(len(d.sets)))
    if total > memory:
        raise BadSpec(
            f"{where}: no pattern tables fit a memory budget of {size_of(memory)}: the smallest "
            f"that cover every set take {size_of(total)} (a byte a position)"
        )
    return tuple(p for i in range(len(d.sets)) for p in _groups(d, i, labels[i], counts[i]))
