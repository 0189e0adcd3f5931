"""The answers the API gives for one question: small dataclasses (tables are DataFrames)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Solution:
    """A walk along parents from a position to a root of its table.

    ``origin`` says what the walk means: "goal" (the table was enumerated from
    the goal, so this is an optimal solution), "root" (a table enumerated from
    a typed position, ``3x3~406f4178``: an optimal way from the position to
    that root) or "start" (a shortest way from the start to the position,
    listed here from the position back).
    """

    puzzle: str
    origin: str
    states: list[int]
    path: list[str]
    #: The line in the family's own notation (peg jumps: "(10,12)(3,10,12,3)"), start first.
    notation: str | None = None
    #: Moves when they are not one a step (zero-cost steps: peg runs on the moves board).
    cost: int | None = None

    @property
    def moves(self) -> int:
        return self.cost if self.cost is not None else len(self.states) - 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle,
            "origin": self.origin,
            "moves": self.moves,
            "path": self.path,
            "states": self.states,
            **({"notation": self.notation} if self.notation is not None else {}),
        }


@dataclass(frozen=True)
class MethodSolution(Solution):
    """A solution with how it was found: the method, the tiles slid, search effort."""

    method: str = "table"
    tiles: list[int] = field(default_factory=list)
    nodes: int | None = None
    seconds: float | None = None
    #: The pattern databases that answered (``6-6-3``, ``7-8``), for ``optimal``.
    heuristic: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            **super().as_dict(),
            "method": self.method,
            "tiles": self.tiles,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "heuristic": self.heuristic,
        }
