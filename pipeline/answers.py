"""The answers the service gives (pipeline/service/): small typed values, one a question.

The API hands them out as they are (or as polars DataFrames for tables), the
CLI prints them, the explorer serves them as JSON and the report draws them:
every surface reads the same answer, computed once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum


class Origin(StrEnum):
    """Where a table's breadth-first search started, so what a walk along parents means.

    A ``StrEnum``: it prints and serialises as its value ("goal"), the word
    manifests, JSON answers and the catalog's ``puzzles.origin`` carry.
    """

    #: Enumerated from the goal: a walk is an optimal solution, position first.
    GOAL = "goal"
    #: Enumerated from a typed position (``3x3~406f4178``): a walk is an optimal way to it.
    ROOT = "root"
    #: Enumerated from the start: a walk, read backwards, is a shortest way from the start.
    START = "start"

    @property
    def towards(self) -> bool:
        """Whether a walk is played as walked (towards the root), not read backwards."""
        return self is not Origin.START


@dataclass(frozen=True)
class Solution:
    """A walk along parents from a position to a root of its table.

    ``states`` and ``path`` are in walk order (the position first); :attr:`line`
    is the one place that turns them into playing order.
    """

    puzzle: str
    origin: Origin
    states: list[int]
    path: list[str]
    #: The line in the family's own notation (peg jumps: "(10,12)(3,10,12,3)"), in play order.
    notation: str | None = None
    #: Moves when they are not one a step (zero-cost steps: peg runs, pattern databases).
    cost: int | None = None

    @property
    def moves(self) -> int:
        return self.cost if self.cost is not None else len(self.states) - 1

    @property
    def line(self) -> list[int]:
        """The states in playing order: to the goal (or root), or from the start."""
        return list(self.states) if self.origin.towards else self.states[::-1]

    @property
    def line_text(self) -> list[str]:
        """:attr:`path` in playing order, as :attr:`line`."""
        return list(self.path) if self.origin.towards else self.path[::-1]

    def as_dict(self) -> dict[str, object]:
        return {
            "puzzle": self.puzzle,
            "origin": str(self.origin),
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

    def as_dict(self) -> dict[str, object]:
        return {
            **super().as_dict(),
            "method": self.method,
            "tiles": self.tiles,
            "nodes": self.nodes,
            "seconds": self.seconds,
            "heuristic": self.heuristic,
        }


@dataclass(frozen=True)
class SearchProgress:
    """Where a running search is: the bound being searched (the solution is at least
    this long), nodes so far, seconds."""

    bound: int
    nodes: int
    seconds: float


@dataclass(frozen=True)
class DepthCount:
    """One depth of a histogram: its rows, and on a table of symmetry classes the
    positions of the whole board its classes stand for."""

    depth: int
    positions: int
    orbit_positions: int | None = None


@dataclass(frozen=True)
class Histogram:
    """Positions at every depth of one table."""

    puzzle: str
    levels: list[DepthCount]

    @property
    def classes(self) -> bool:
        """Whether the rows are symmetry classes (``orbit_positions`` is filled)."""
        return bool(self.levels) and self.levels[0].orbit_positions is not None

    @property
    def total(self) -> int:
        return sum(lv.positions for lv in self.levels)

    def pairs(self) -> list[tuple[int, int]]:
        """(depth, rows) a level: what a chart draws."""
        return [(lv.depth, lv.positions) for lv in self.levels]

    def rows(self) -> list[dict[str, int]]:
        """A dict a level, without the column a plain table has no value for."""
        drop = () if self.classes else ("orbit_positions",)
        return [{k: v for k, v in asdict(lv).items() if k not in drop} for lv in self.levels]


@dataclass(frozen=True)
class Summary:
    """One built table's numbers: from its manifest, checked against its files."""

    puzzle: str
    title: str
    positions: int
    max_depth: int
    at_max: int
    seconds: float
    bytes: int
    derived: bool
    #: The deepest level built when the table holds the first levels only (``--max-depth``).
    partial_depth: int | None
    #: The positions the classes stand for (tables of symmetry classes), else None.
    orbit_positions: int | None = None

    @property
    def rate(self) -> float:
        return self.positions / self.seconds if self.seconds else 0.0

    @property
    def bytes_per_position(self) -> float:
        return self.bytes / self.positions if self.positions else 0.0

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class Listed:
    """A puzzle known in a data folder, as ``puzzledb list`` and the explorer show it."""

    name: str
    title: str
    graph: str
    origin: str
    default: bool
    #: Made for a solver (a pattern database): shown with ``list --all`` only.
    derived: bool
    #: Its table's positions when built and sound, else None.
    positions: int | None
    #: The deepest level built when its table holds the first levels only.
    partial_depth: int | None
    #: The line saying why its table is damaged, when it is.
    damaged: str | None

    @property
    def built(self) -> bool:
        return self.positions is not None

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "built": self.built, "damaged": self.damaged is not None}


@dataclass(frozen=True)
class NextMove:
    """One move out of a position: the position it makes, the state its table stores
    for it (another image on a table of symmetry classes), its depth there, and how
    it compares: nearer / same / farther from the goal, or won / lost, or unknown."""

    made: int
    stored: int
    depth: int | None
    verdict: str
    notation: str | None


@dataclass(frozen=True)
class Position:
    """A position of a table with its depth and every move out of it."""

    puzzle: str
    state: int
    #: The state as typed, when the table stores another (its class's smallest image).
    typed: int
    origin: Origin
    depth: int | None
    moves: list[NextMove]
    #: The table that says won/lost for each move (a start-rooted peg board), if built.
    judge: str | None = None
    classes: bool = False

    def best(self) -> NextMove | None:
        """The first move nearer the goal on a goal-rooted table, or None."""
        return next((m for m in self.moves if m.verdict == "nearer"), None)


@dataclass(frozen=True)
class Distance:
    """The fewest moves from position ``a`` to position ``b`` of a puzzle, read as one
    position's depth in ``table``: the other is that table's root, itself or with its
    pieces renamed (then ``renamed`` is the first renamed the same way)."""

    puzzle: str
    a: str
    b: str
    moves: int
    table: str
    renamed: str | None = None
    #: ``table``: a depth read in it; ``search``: the optimal length searched over the
    #: pattern tables ``table`` names (a puzzle too large to tabulate).
    method: str = "table"

    def as_dict(self) -> dict[str, object]:
        return asdict(self)
