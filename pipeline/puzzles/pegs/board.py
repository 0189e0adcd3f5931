"""Peg solitaire: boards as data (a picture of the holes and the jump directions).

Encoding (public contract): hole i is bit i of the state, 1 = peg, 0 = empty.
Holes are numbered row by row, left to right, from 0, as in docs/PUZZLES.md (the
triangle as drawn there; English centre 16, French centre 18). A position is
typed one character a hole in that order, ``x`` a peg and ``.`` a hole,
spaces ignored.

A board is a picture: each ``o`` is a hole, the picture is also how the board
is drawn, and a jump line is any three holes ``a, a+d, a+2d`` for one of the
board's step vectors ``d`` (either way along it). Adding a board is a picture
and its steps, e.g. the 41-hole diamond is rows of 1, 3, 5, 7, 9, 7, 5, 3, 1
holes with the steps of the English board.

Three kinds of table come from one board:
- ``PegPuzzle`` (``triangle15``, ``english33``): depth = jumps from the start.
  A jump removes a peg, so the depth is fixed by the peg count: the graph is
  layered and a new level needs no deduplication against earlier ones.
- ``PegMovesPuzzle`` (``triangle15-moves``): depth = moves, a run of jumps by
  one peg being one move. The state also holds where the last jump landed, in
  bits 48..55 (``1 + hole``, 0 at the start before any jump), so boards of up
  to 48 holes fit. A jump by that peg costs nothing (a zero-cost move).
- ``WinnablePuzzle`` (``triangle15-winnable``): the positions reachable from
  the start that can still end with one peg in the goal hole, enumerated
  backwards from the goal by reversed jumps, kept at every level to positions
  the start reaches (read from the built forward table). Its depth is the
  number of jumps left and a parent is the position one jump nearer the goal,
  so walking parents from a position is a winning line.

Longer than 300 lines: the whole family (boards, the jump, moves and winnable
tables, notation) in one place, as every family module is.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pipeline.answers import Origin
from pipeline.engine.core import Expander, Graph, States, absent
from pipeline.errors import BadPosition, NotBuilt, PositionLost, PuzzleDBError
from pipeline.puzzles.base import Cells, Puzzle, StepNote
from pipeline.storage.table import Hit, Table
from pipeline.words import plural

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels
    from pipeline.storage.manifest import Manifest

#: Where the moves board keeps ``1 + the hole the last jump landed in``.
LAST_SHIFT = 48
LAST_BITS = 8
PEG_MASK = (1 << LAST_SHIFT) - 1

Jump = tuple[int, int, int]  # (from, over, to)


#: What a walk of jumps says of them: a jump is not a move (a run of one peg's jumps is).
JUMPS = StepNote("winning line", "removes a peg", "a run of one peg's jumps is one move")


@dataclass(frozen=True)
class Board:
    """Holes from a picture (``o`` marks a hole) and the step vectors of the jump lines."""

    name: str
    title: str
    picture: str
    steps: tuple[tuple[int, int], ...]
    #: The hole empty at the start and holding the last peg at the goal.
    centre: int

    @cached_property
    def holes(self) -> list[tuple[int, int]]:
        """(row, column) of each hole in the picture, in numbering order."""
        lines = self.picture.strip("\n").splitlines()
        return [(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch == "o"]

    @property
    def count(self) -> int:
        return len(self.holes)

    @cached_property
    def jumps(self) -> list[Jump]:
        """Every (from, over, to), sorted: both directions of each line of three holes."""
        index = {rc: i for i, rc in enumerate(self.holes)}
        out = []
        for (r, c), a in index.items():
            for dr, dc in self.steps:
                for sign in (1, -1):
                    over = index.get((r + sign * dr, c + sign * dc))
                    to = index.get((r + 2 * sign * dr, c + 2 * sign * dc))
                    if over is not None and to is not None:
                        out.append((a, over, to))
        return sorted(out)

    @property
    def layout(self) -> str:
        """The picture with ``{i}`` for hole i (the drawing of a position)."""
        counter = iter(range(self.count))
        return re.sub("o", lambda _: "{" + str(next(counter)) + "}", self.picture.strip("\n"))

    def full(self) -> int:
        return (1 << self.count) - 1


TRIANGLE15 = Board(
    "triangle15",
    "15-hole triangle",
    """
    o
   o o
  o o o
 o o o o
o o o o o
""",
    ((0, 2), (1, -1), (1, 1)),
    centre=12,
)

ENGLISH33 = Board(
    "english33",
    "English 33-hole cross",
    """
    o o o
    o o o
o o o o o o o
o o o o o o o
o o o o o o o
    o o o
    o o o
""",
    ((0, 2), (1, 0)),
    centre=16,
)

FRENCH37 = Board(
    "french37",
    "French 37-hole board",
    """
    o o o
  o o o o o
o o o o o o o
o o o o o o o
o o o o o o o
  o o o o o
    o o o
""",
    ((0, 2), (1, 0)),
    centre=18,
)

DIAMOND41 = Board(
    "diamond41",
    "41-hole diamond",
    """
        o
      o o o
    o o o o o
  o o o o o o o
o o o o o o o o o
  o o o o o o o
    o o o o o
      o o o
        o
""",
    ((0, 2), (1, 0)),
    centre=20,
)


def popcount(states: States) -> np.ndarray:
    return np.bitwise_count(states).astype(np.int64)


def _jump_masks(jumps: Sequence[Jump]) -> list[tuple[int, int, np.uint64, np.uint64]]:
    """Per jump: from, to, the bits it flips, and the bits that must be set before it."""
    return [
        (f, t, np.uint64((1 << f) | (1 << o) | (1 << t)), np.uint64((1 << f) | (1 << o)))
        for f, o, t in jumps
    ]


def _jumps_by_holes(masks: list[tuple[int, int, np.uint64, np.uint64]]) -> tuple[States, States]:
    """The jumps' flipped holes, sorted and distinct, and for each the pegs before
    either jump over them (the two ways along one line of three holes)."""
    needs: dict[int, list[int]] = {}
    for _, _, flip, need in masks:
        needs.setdefault(int(flip), []).append(int(need))
    flips = sorted(needs)
    assert all(len(needs[f]) <= 2 for f in flips), "three holes make at most two jumps"
    pairs = [(needs[f][0], needs[f][-1]) for f in flips]
    return np.array(flips, np.uint64), np.array(pairs, np.uint64).reshape(-1, 2)


def _empty() -> tuple[np.ndarray, States]:
    return np.empty(0, np.intp), np.empty(0, np.uint64)


class PegPuzzle(Puzzle):
    """A peg board counted in jumps, enumerated from the start (one hole empty)."""

    graph = Graph.LAYERED
    origin = Origin.START
    state_bits = LAST_SHIFT + LAST_BITS

    def __init__(
        self,
        board: Board,
        *,
        empty: int | None = None,
        name: str | None = None,
        expected_total: int | None = None,
        default: bool = False,
    ) -> None:
        self.board = board
        self.empty = board.centre if empty is None else empty
        if not 0 <= self.empty < board.count:
            raise BadPosition(f"{board.name} has holes 0..{board.count - 1}, not {self.empty}")
        if board.count > LAST_SHIFT:
            raise ValueError("peg boards have at most 48 holes (bits 48.. hold the last jump)")
        self.name = name or (
            board.name if self.empty == board.centre else f"{board.name}@{self.empty}"
        )
        self.title = f"peg solitaire, {board.title}, start hole {self.empty} empty, in jumps"
        self.cells = Cells(board.count, 1, (".", "x"), board.layout)
        start = board.full() & ~(1 << self.empty)
        self.root_texts = (self.cells.text(start),)
        self.goal = 1 << self.empty
        self.encoding = (
            f"hole i (0..{board.count - 1}, row by row from the top-left) in bit i: "
            "1 peg (x), 0 empty (.)"
        )
        self.expected_total = expected_total
        self.default = default
        self._masks = _jump_masks(board.jumps)
        self._jump_holes = _jumps_by_holes(self._masks)
        # The masks match expand only where it is this class's (not chains, moves, sym).
        self.is_move = self.one_jump if type(self).expand is PegPuzzle.expand else None
        self.solved_by = self.winnable_name

    has_kernels = True

    @cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        """The packed kernels (compiled on first use)."""
        from pipeline.puzzles.pegs.moves import peg_moves

        return peg_moves(self.board.holes, self.board.jumps)

    @property
    def winnable_name(self) -> str:
        """The derived table of positions that can still be won."""
        return f"{self.name}-winnable"

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for _, _, flip, need in self._masks:
            idx = np.flatnonzero((states & flip) == need)
            if len(idx):
                srcs.append(idx)
                kids.append(states[idx] ^ flip)
        if not kids:
            return _empty()
        return np.concatenate(srcs), np.concatenate(kids)

    def properties(self, state: int) -> dict[str, int]:
        return {"pegs": (int(state) & PEG_MASK).bit_count()}

    def one_jump(self, parents: States, children: States) -> np.ndarray:
        """Whether each child is one jump from its parent: the holes that differ are a
        jump's three, and the parent holds that jump's two pegs (the masks of
        :meth:`expand`, matched without expanding: verify's parent check)."""
        flips, needs = self._jump_holes
        x = parents ^ children
        i = np.minimum(np.searchsorted(flips, x), len(flips) - 1)
        had = parents & x
        return (flips[i] == x) & ((had == needs[i, 0]) | (had == needs[i, 1]))

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "board": self.board.name,
            "goal": self.text(self.goal),
            "jumps": [list(j) for j in self.board.jumps],
        }

    def unsolved(self, state: int, where: Hit | None, own_built: bool) -> PuzzleDBError:
        """Lost (the start reaches it, no line wins from it) or unreachable."""
        text = self.text(state)
        if where is not None:
            return PositionLost(
                f"{text} is lost: the start reaches it ({plural(where.depth, 'jump')}) "
                f"but no line from it reaches the goal {self.text(self.goal)}"
            )
        if own_built or self.solved_by == self.name:
            start = self.text(self.roots()[0])
            return BadPosition(f"{text} is not reachable from the start of {self.name} ({start})")
        return BadPosition(
            f"{text} is not in the {self.solved_by} table: lost or unreachable "
            f"(build {self.name} to tell which)"
        )

    def notation(self, states: Sequence[int]) -> str:
        """The jumps from the first state to the last, as ``(from,to)(from,to,to)...``."""
        return notation(self.board, [int(s) & PEG_MASK for s in states])

    step_word = "jump"
    step_note = JUMPS

    def moves_in(self, states: Sequence[int]) -> int:
        """One move a group of the notation: a run of jumps by one peg."""
        return self.notation(states).count("(")


def jump_between(board: Board, before: int, after: int) -> Jump:
    """The one jump that turns ``before`` into ``after``; BadPosition if there is none."""
    for f, o, t in board.jumps:
        bits = (1 << f) | (1 << o) | (1 << t)
        if before & bits == (1 << f) | (1 << o) and before ^ bits == after:
            return (f, o, t)
    raise BadPosition("two positions of the line are not one jump apart")


def notation(board: Board, states: Sequence[int]) -> str:
    """The article's notation: one group a move, a run of jumps by one peg, e.g. (3,10,12,3)."""
    groups: list[list[int]] = []
    for a, b in itertools.pairwise(states):
        f, _, t = jump_between(board, a, b)
        if groups and groups[-1][-1] == f:
            groups[-1].append(t)
        else:
            groups.append([f, t])
    return "".join("(" + ",".join(map(str, g)) + ")" for g in groups)


def play(board: Board, start: int, text: str) -> list[int]:
    """The positions after each jump of a line in the article's notation; checks legality."""
    groups = re.findall(r"\(([^()]*)\)", text)
    if not groups or re.sub(r"\([^()]*\)|\s", "", text):
        raise BadPosition(f"not a line of moves like (10,12)(3,10,12,3): {text!r}")
    lines = {(f, t): o for f, o, t in board.jumps}
    states = [start]
    for g in groups:
        holes = [int(h) for h in g.split(",")]
        if len(holes) < 2:
            raise BadPosition(f"a move names at least two holes: ({g})")
        for f, t in itertools.pairwise(holes):
            o = lines.get((f, t))
            s = states[-1]
            if o is None or s >> f & 1 == 0 or s >> o & 1 == 0 or s >> t & 1:
                raise BadPosition(f"jump {f}->{t} in ({g}) is not legal here")
            states.append(s ^ (1 << f) ^ (1 << o) ^ (1 << t))
    return states


class RootedPegPuzzle(PegPuzzle):
    """A peg board enumerated from a position the user typed (depth = jumps from it).

    ``solve`` walks this table itself: the walk, read backwards, is a line of
    jumps from the root to the position (there is no goal to win towards).
    """

    def __init__(self, base: PegPuzzle, state: int, name: str) -> None:
        super().__init__(base.board, empty=base.empty, name=name)
        self.spec = base.spec
        self.root_texts = (base.text(state),)
        self.title = f"peg solitaire, {base.board.title}, from {base.text(state)}, in jumps"
        self.solved_by = name

    def describe(self) -> dict[str, object]:
        return {k: v for k, v in super().describe().items() if k != "goal"}


def start_hole(board: PegPuzzle, hole: int) -> PegPuzzle:
    """The board with another hole empty at the start (``triangle15@3``)."""
    p = PegPuzzle(board.board, empty=hole, name=f"{board.name}@{hole}")
    p.spec = board.spec
    return p


class PegMovesPuzzle(PegPuzzle):
    """The same board counted in moves: a run of jumps by one peg is one move."""

    graph = Graph.GENERAL
    kernels = None  # states carry the last landing hole
    has_kernels = False

    def __init__(self, board: Board, *, name: str, default: bool = False) -> None:
        super().__init__(board, name=name, default=default)
        self.title = f"peg solitaire, {board.title}, start hole {self.empty} empty, in moves"
        self.encoding += (
            "; bits 48..55: 1 + the hole the last jump landed in (0 at the start); "
            "a jump by that peg continues the move at no cost"
        )
        self.expand_free: Expander = self._expand_free
        self.solved_by = name  # its own table: the walk is a fewest-moves line from the start

    def _jumps(self, states: States, free: bool) -> tuple[np.ndarray, States]:
        last = states >> np.uint64(LAST_SHIFT)
        pegs = states & np.uint64(PEG_MASK)
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for f, t, flip, need in self._masks:
            legal = (pegs & flip) == need
            same = last == np.uint64(f + 1)
            idx = np.flatnonzero(legal & (same if free else ~same))
            if len(idx):
                srcs.append(idx)
                kids.append((pegs[idx] ^ flip) | np.uint64((t + 1) << LAST_SHIFT))
        if not kids:
            return _empty()
        return np.concatenate(srcs), np.concatenate(kids)

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Jumps by any peg but the one that jumped last: each starts a new move."""
        return self._jumps(states, free=False)

    def _expand_free(self, states: States) -> tuple[np.ndarray, States]:
        """Jumps by the peg that jumped last: the same move goes on."""
        return self._jumps(states, free=True)

    def variants(self, state: int) -> list[int]:
        """A typed position (pegs only) stands for every 'last jump landed in' value."""
        pegs = state & PEG_MASK
        return [pegs] + [
            pegs | (h + 1) << LAST_SHIFT for h in range(self.board.count) if pegs >> h & 1
        ]

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "last_jump_bits": [LAST_SHIFT, LAST_SHIFT + LAST_BITS - 1]}


class WinnablePuzzle(Puzzle):
    """Positions that can still be won, from the goal by reversed jumps, kept to reachable ones.

    A position reachable from the start and winnable has a winning line whose
    positions are all reachable and winnable, so pruning every level to the
    reachable positions loses nothing. The reachable positions with ``p`` pegs
    are the forward table's level ``start pegs - p``, read from the built
    forward table once bound to a data folder (:meth:`bind`).
    """

    graph = Graph.LAYERED
    origin = Origin.GOAL
    state_bits = LAST_SHIFT + LAST_BITS

    def __init__(self, forward: PegPuzzle, *, default: bool = False) -> None:
        self.forward = forward
        self.name = forward.winnable_name
        self.title = f"positions of {forward.name} that can still be won (jumps left)"
        self.cells = forward.cells
        self.root_texts = (forward.text(forward.goal),)
        self.encoding = forward.encoding
        self.default = default
        self.requires = (forward.name,)
        self._start_pegs = forward.board.count - 1
        self._source: Callable[[int], States] | None = None
        self._source_manifest: Callable[[], Manifest] | None = None
        self._cache: dict[int, States] = {}
        self._masks = forward._masks
        self.spec = forward.spec

    def in_folder(self, data: Path) -> WinnablePuzzle:
        """The same puzzle reading reachable positions from ``data/<forward>``
        (the one read of storage a family makes: a derived table's source)."""
        bound = type(self)(self.forward, default=self.default)
        folder = data / self.forward.name
        # Every state of a level, sorted: the range with no upper end.
        bound._source = lambda depth: Table(folder).level(depth).between(0, 1 << 64)
        bound._source_manifest = lambda: Table(folder).manifest
        return bound

    def build_warning(self, max_depth: int) -> str | None:
        """Whether the start can be won: if not, the table holds the goal alone.

        Not refused: the forward table is sound and says how far the start gets,
        and the goal alone is the true answer (no position the start reaches can
        be won). The reason is read from the forward table: its deepest level is
        the fewest pegs any line of jumps leaves.
        """
        if max_depth >= self._start_pegs - 1 or self._source_manifest is None:
            return None
        f, source = self.forward, self._source_manifest()
        if source.partial_depth is not None:
            return None  # the forward table stops early: it cannot tell
        left = self._start_pegs - source.max_depth
        hole = f.goal.bit_length() - 1
        why = (
            f"every line of jumps from it leaves at least {left} pegs"
            if left > 1
            else f"its lines of jumps leave one peg only in other holes than {hole}"
        )
        return (
            f"{self.name} holds only the goal ({f.text(f.goal)}): the start of {f.name} "
            f"cannot be won ({why}); {f.name} holds every position the start reaches"
        )

    def reachable(self, pegs: int) -> States:
        """The positions with ``pegs`` pegs that the start reaches (sorted)."""
        depth = self._start_pegs - pegs
        if self._source is None:
            raise NotBuilt(f"{self.name} is read from the {self.forward.name} table: bind it first")
        if depth not in self._cache:  # the two levels last asked for (verify uses two)
            kept = list(self._cache.items())[-1:]
            self._cache = {**dict(kept), depth: self._source(depth)}
        return self._cache.get(depth, np.empty(0, np.uint64))

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Reversed jumps (a peg jumps back over an empty hole, which fills), kept if reachable."""
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for _f, t, flip, _ in self._masks:
            idx = np.flatnonzero((states & flip) == np.uint64(1 << t))
            if len(idx):
                srcs.append(idx)
                kids.append(states[idx] ^ flip)
        if not kids:
            return _empty()
        src, child = np.concatenate(srcs), self.canonical_of(np.concatenate(kids))
        keep = np.zeros(len(child), dtype=bool)
        counts = popcount(child)
        for pegs in np.unique(counts):
            at = np.flatnonzero(counts == pegs)
            keep[at] = ~absent(child[at], self.reachable(int(pegs)))
        return src[keep], child[keep]

    def canonical_of(self, states: States) -> States:
        """The states as the forward table stores them (symmetric tables: canonical)."""
        return states

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "board": self.forward.board.name,
            "derived_from": self.forward.name,
            "kind": "winnable",
        }

    def notation(self, states: Sequence[int]) -> str:
        return self.forward.notation(states)

    def moves_from(self, state: int) -> list[tuple[int, int]]:
        """The game's moves from a position: jumps (the table's own moves are reversed
        jumps, from the goal back); each position's depth here is its jumps left."""
        return self.forward.moves_from(state)

    step_word = "jump"
    step_note = JUMPS

    def moves_in(self, states: Sequence[int]) -> int:
        return self.forward.moves_in(states)


TRIANGLE15_JUMPS = PegPuzzle(TRIANGLE15, expected_total=4237, default=True)
TRIANGLE15_MOVES = PegMovesPuzzle(TRIANGLE15, name="triangle15-moves", default=True)
TRIANGLE15_WINNABLE = WinnablePuzzle(TRIANGLE15_JUMPS, default=True)
ENGLISH33_JUMPS = PegPuzzle(ENGLISH33, expected_total=187_636_299)
ENGLISH33_WINNABLE = WinnablePuzzle(ENGLISH33_JUMPS)
FRENCH37_JUMPS = PegPuzzle(FRENCH37, expected_total=2_993_979_754)  # PUZZLES.md, published
DIAMOND41_JUMPS = PegPuzzle(DIAMOND41)

PUZZLES: list[Puzzle] = [
    TRIANGLE15_JUMPS,
    TRIANGLE15_MOVES,
    TRIANGLE15_WINNABLE,
    ENGLISH33_JUMPS,
    ENGLISH33_WINNABLE,
    FRENCH37_JUMPS,
    DIAMOND41_JUMPS,
]
