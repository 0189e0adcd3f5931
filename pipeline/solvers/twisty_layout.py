"""A twisty definition flattened for the compiled search (twisty_kernel.c).

Every position of every set gets one index (the sets one after another, in
the definition's order), every label one number over all sets (each set's
distinct solved labels, sorted, after the sets before it). A position is two
arrays over those indexes: the label there (uint16) and its twist (uint8, 0
for a piece whose orientation is ``?``). A turn is, for each index, the index
its piece comes from and the twist it gets, and the list of indexes it
changes. Consecutive turns follow a canonical-sequence machine: no turn after
one of the same base move, and of two base moves that commute (found by
composing them both ways) one order only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pipeline.errors import BadPosition, BadSpec
from pipeline.puzzles.twisty import tws
from pipeline.puzzles.twisty.tws import WILD, Definition, Part, Turn

#: Canonical states kept before the machine falls back to the last base move alone.
MAX_CANONICAL = 4096
#: Entries of the Illegal table (positions x labels) a definition may ask for.
MAX_ILLEGAL = 1 << 24


@dataclass(frozen=True)
class FlatLayout:
    """Where each set's positions and labels are in the flat arrays."""

    definition: Definition
    #: Each set's first position index, and its first label number.
    first: tuple[int, ...]
    label_first: tuple[int, ...]
    #: Each set's distinct solved labels (as the file numbers them), sorted.
    labels: tuple[tuple[int, ...], ...]

    @property
    def npos(self) -> int:
        return sum(s.pieces for s in self.definition.sets)

    @property
    def nlabels(self) -> int:
        return self.label_first[-1] + len(self.labels[-1])

    @cached_property
    def wild(self) -> np.ndarray:
        """Per label number: 1 when the solved state writes its orientation ``?``."""
        out = np.zeros(self.nlabels, np.uint8)
        for i, part in enumerate(self.definition.solved):
            for v, t in zip(part.perm, part.twist, strict=True):
                if t == WILD:
                    out[self.label_first[i] + self.labels[i].index(v)] = 1
        return out

    @cached_property
    def order(self) -> np.ndarray:
        """Per position: the orientations of its set."""
        return np.concatenate([np.full(s.pieces, s.twists, np.uint8) for s in self.definition.sets])

    def arrays(self, parts: Sequence[Part]) -> tuple[np.ndarray, np.ndarray]:
        """(labels, twists) of a position given as the file writes one (labels from 1,
        WILD twists); BadPosition when a label is not one of its set's."""
        perm = np.zeros(self.npos, np.uint16)
        tw = np.zeros(self.npos, np.uint8)
        for i, (s, part) in enumerate(zip(self.definition.sets, parts, strict=True)):
            index = {v: self.label_first[i] + k for k, v in enumerate(self.labels[i])}
            for j, (v, t) in enumerate(zip(part.perm, part.twist, strict=True)):
                if v not in index:
                    raise BadPosition(f"set {s.name}: {v} is not one of its pieces")
                perm[self.first[i] + j] = index[v]
                tw[self.first[i] + j] = 0 if t == WILD or self.wild[index[v]] else t % s.twists
        return perm, tw

    def parts(self, perm: np.ndarray, tw: np.ndarray) -> tuple[Part, ...]:
        """The position the arrays stand for, as the file writes one."""
        out = []
        for i, s in enumerate(self.definition.sets):
            at = slice(self.first[i], self.first[i] + s.pieces)
            labels = [self.labels[i][int(x) - self.label_first[i]] for x in perm[at]]
            twists = [
                WILD if self.wild[int(x)] else int(t) for x, t in zip(perm[at], tw[at], strict=True)
            ]
            out.append(Part(tuple(labels), tuple(twists)))
        return tuple(out)

    def turn_arrays(self, turns: Sequence[Turn]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(source, twist added, touched positions padded with -1), a row a turn."""
        n = self.npos
        src = np.tile(np.arange(n, dtype=np.int16), (len(turns), 1))
        add = np.zeros((len(turns), n), np.uint8)
        for t, turn in enumerate(turns):
            for i, part in enumerate(turn.parts):
                at = self.first[i]
                src[t, at : at + len(part.perm)] = np.asarray(part.perm) + at
                add[t, at : at + len(part.perm)] = part.twist
        moved = (src != np.arange(n)) | (add != 0)
        width = max(1, int(moved.sum(axis=1).max()) if len(turns) else 1)
        touched = np.full((len(turns), width), -1, np.int16)
        for t in range(len(turns)):
            where = np.flatnonzero(moved[t])
            touched[t, : len(where)] = where
        return src, add, touched

    def illegal(self) -> np.ndarray:
        """``out[position, label]``: 1 when an Illegal line forbids the label there."""
        d = self.definition
        if not d.illegal:
            return np.zeros(1, np.uint8)
        if self.npos * self.nlabels > MAX_ILLEGAL:
            raise BadSpec(f"{d.name}: too many positions and labels for its Illegal lines")
        out = np.zeros((self.npos, self.nlabels), np.uint8)
        for rule in d.illegal:
            for v in rule.labels:
                label = self.label_first[rule.set] + self.labels[rule.set].index(v)
                out[self.first[rule.set] + rule.position, label] = 1
        return out


def layout(d: Definition) -> FlatLayout:
    first, label_first, labels = [], [], []
    at = lab = 0
    for s, part in zip(d.sets, d.solved, strict=True):
        mine = tuple(sorted(set(part.perm)))
        first.append(at)
        label_first.append(lab)
        labels.append(mine)
        at += s.pieces
        lab += len(mine)
    if at >= 1 << 15 or lab >= 1 << 16:
        raise BadSpec(f"{d.name}: too many positions for the search ({at})")
    return FlatLayout(d, tuple(first), tuple(label_first), tuple(labels))


def commuting(d: Definition, turns: Sequence[Turn]) -> tuple[list[str], np.ndarray]:
    """The base moves of the turns (in order of first use) and which pairs commute."""
    bases: list[str] = []
    for t in turns:
        if t.base not in bases:
            bases.append(t.base)
    blocks = {m.name: m.parts for m in d.moves}
    parts = [blocks[b] for b in bases]
    k = len(bases)
    out = np.eye(k, dtype=bool)
    for a in range(k):
        for b in range(a + 1, k):
            ab = tws.compose(d.sets, parts[a], parts[b])
            ba = tws.compose(d.sets, parts[b], parts[a])
            out[a, b] = out[b, a] = ab == ba
    return bases, out


def canonical(d: Definition, turns: Sequence[Turn]) -> np.ndarray:
    """The canonical-sequence machine, ``next[state, turn]`` (-1: pruned), state 0 the
    start; its states are multisets of turns.

    Turns commute when their base moves do (the same base's always). A state
    holds the turns of the sequence so far that commute with every turn after
    them. A turn is pruned when one of them commutes with it and comes before
    it in the turns' order (of the orders a run of commuting turns can take,
    one is searched), or when it and the state's turns of its base make no
    prefix of that base's shortest word for their total power (F after F, F F'
    and F F F in the quarter-turn metric; any two turns of a base in the
    half-turn one). Past :data:`MAX_CANONICAL` states only the last turn is
    kept as the state."""
    bases, commute = commuting(d, turns)
    base_of = [bases.index(t.base) for t in turns]
    words = _prefixes(d, turns, base_of)
    together = commute[np.ix_(base_of, base_of)]
    machine = _machine(base_of, together, words, MAX_CANONICAL)
    if machine is None:
        machine = _machine(base_of, together, words, None)
    assert machine is not None
    return machine


def _prefixes(d: Definition, turns: Sequence[Turn], base_of: list[int]) -> set[tuple[int, ...]]:
    """Every prefix of each base's shortest words: for each total power, the first
    (turns in decreasing order, compared as tuples) of the fewest turns making it."""
    out: set[tuple[int, ...]] = set()
    for b in sorted(set(base_of)):
        mine = sorted((t for t in range(len(turns)) if base_of[t] == b), reverse=True)
        order = sum(x.base == turns[mine[0]].base for x in d.turns) + 1
        best: dict[int, tuple[int, ...]] = {0: ()}
        frontier: list[tuple[int, ...]] = [()]
        while frontier and len(best) < order:
            grown = sorted({(*w, t) for w in frontier for t in mine if not w or t <= w[-1]})
            frontier = []
            for w in grown:
                k = sum(turns[t].power for t in w) % order
                if k not in best:
                    best[k] = w
                    frontier.append(w)
        for w in best.values():
            out |= {w[:i] for i in range(1, len(w) + 1)}
    return out


def _machine(
    base_of: list[int], commute: np.ndarray, words: set[tuple[int, ...]], cap: int | None
) -> np.ndarray | None:
    """The machine's table (None past ``cap`` states; ``cap`` None: a state is the run
    of the last base move alone)."""
    index: dict[tuple[int, ...], int] = {(): 0}
    rows: list[list[int]] = []
    todo: list[tuple[int, ...]] = [()]
    while todo:
        state = todo.pop(0)
        row = []
        for m in range(len(base_of)):
            nxt = _after(state, m, base_of, commute, words, cap is not None)
            if nxt is not None and nxt not in index:
                if cap is not None and len(index) == cap:
                    return None
                index[nxt] = len(index)
                todo.append(nxt)
            row.append(-1 if nxt is None else index[nxt])
        rows.append(row)
    return np.array(rows, np.int16).reshape(len(rows), len(base_of))


def _after(
    state: tuple[int, ...],
    m: int,
    base_of: list[int],
    commute: np.ndarray,
    words: set[tuple[int, ...]],
    full: bool,
) -> tuple[int, ...] | None:
    """The state after turn ``m`` (None: pruned). States are kept sorted, last first."""
    block = (*[x for x in state if base_of[x] == base_of[m]], m)
    if any(commute[x, m] and x < m for x in state) or block not in words:
        return None
    kept = [x for x in state if commute[x, m]] if full else list(block[:-1])
    return tuple(sorted([*kept, m], reverse=True))
