"""Verify's checks of a symmetric peg table beyond the common ones.

The common checks (pipeline/verify/checks.py) run with the table's own moves, which make
children canonical: a parent is one jump from some image of its child, and
no jump out of a class leads anywhere but the next level. Here, file by file:
every state is the smallest of its class, and every class size is the number
of distinct images of the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from pipeline.engine.core import States
from pipeline.errors import CorruptTable

if TYPE_CHECKING:
    from pipeline.storage.table import Table


class Classes(Protocol):
    """What the checks ask of a symmetric table's puzzle (sym.PegSymPuzzle)."""

    def canonical(self, states: States) -> States: ...

    def class_sizes(self, states: States) -> np.ndarray: ...

    def text(self, state: int) -> str: ...


def check_table(puzzle: Classes, table: Table) -> tuple[list[str], list[str]]:
    """(problems, checks made): canonical states and class sizes in every file."""
    problems: list[str] = []
    sums = [0] * len(table.manifest.levels)
    for entry in table.files:
        try:
            cols = table.read_columns(entry, ["state", "class_size"])
        except CorruptTable as e:
            problems.append(str(e))
            continue
        states = cols["state"].to_numpy().astype(np.uint64)
        sizes = cols["class_size"].to_numpy().astype(np.uint8)
        sums[entry.depth] += int(sizes.astype(np.int64).sum())
        _states(puzzle, entry.name, states, sizes, problems)
    checks = [
        "every state the smallest of its symmetry class",
        f"every class size the number of distinct images ({sum(sums):,} positions in all)",
    ]
    kept = table.manifest.orbit_sums()
    if kept is not None:
        wrong = [d for d, (a, b) in enumerate(zip(kept, sums, strict=True)) if a != b]
        if wrong:
            problems.append(
                f"the manifest's orbit_positions at depth {wrong[0]} is {kept[wrong[0]]:,}, "
                f"its class sizes sum to {sums[wrong[0]]:,}"
            )
        checks.append("every level's orbit_positions the sum of its class sizes")
    return problems, checks


def _states(
    puzzle: Classes, name: str, states: np.ndarray, sizes: np.ndarray, problems: list[str]
) -> None:
    for lo in range(0, len(states), 1 << 21):
        s, z = states[lo : lo + (1 << 21)], sizes[lo : lo + (1 << 21)]
        bad = np.flatnonzero(puzzle.canonical(s) != s)
        if len(bad):
            problems.append(
                f"{name}: {len(bad)} states not canonical (the smallest of their class), "
                f"e.g. {puzzle.text(int(s[bad[0]]))}"
            )
        wrong = np.flatnonzero(puzzle.class_sizes(s) != z)
        if len(wrong):
            i = int(wrong[0])
            problems.append(
                f"{name}: {len(wrong)} class sizes wrong, e.g. {puzzle.text(int(s[i]))} has "
                f"{int(z[i])}, its class has {int(puzzle.class_sizes(s[i : i + 1])[0])}"
            )
