"""Pattern tables as the twisty search reads them: how a full position becomes a table's
coordinate, and the table's depths as a compact array.

A pattern table is an ordinary table of an abstraction of the definition: per
set, some pieces kept distinct and the others one identical label (with
``?`` orientation), or the set left out. Its coordinate is the state its
table was built with (pack.py's rule): for each of its sets, in its order,
``c = r * Q + q`` in mixed radix, ``r`` the multiset rank of its labels over
the positions (halved when every move permutes distinct pieces evenly), ``q``
the twists of the positions holding pieces whose orientation counts,
position 1 the most significant, ``Q = o^(those pieces)``, the last digit left
out (implied by the others) only when no piece is ``?`` and every move keeps
the twist sum.

:func:`pattern` finds, from the full definition and the pattern's, which
full set each pattern set abstracts and which pattern label each full label
becomes (position by position of the two solved states), and checks that
the pattern's moves are the search's. The compiled search computes the
coordinate (twisty_kernel.c); :class:`PatternCode.coordinate` is the same in
Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.errors import BadSpec
from pipeline.puzzles.base import parity
from pipeline.puzzles.twisty import tws
from pipeline.puzzles.twisty.pack import multinomial
from pipeline.puzzles.twisty.tws import WILD, Definition, Part, Turn
from pipeline.solvers.twisty_c import DISTINCT, MULTISET, ONE_REPEATED
from pipeline.solvers.twisty_layout import FlatLayout

#: Pieces of a set ranked as a Lehmer code (20! fits 64 bits).
MAX_DISTINCT = 20


@dataclass(frozen=True)
class PatternSet:
    """One set of a pattern: the full set it abstracts and how its coordinate is made."""

    name: str
    #: The full set's index, its first position in the layout, its pieces, orientations.
    full: int
    first: int
    n: int
    o: int
    #: For each full label number (layout), the pattern label index (0 if not this set's).
    lab: tuple[int, ...]
    #: The pattern's labels: pieces a label, and whether its orientation is ignored.
    counts: tuple[int, ...]
    wild: tuple[bool, ...]
    even: bool
    implied: bool

    @property
    def k(self) -> int:
        return len(self.counts)

    @property
    def arrangements(self) -> int:
        full = multinomial(self.counts)
        return full // 2 if self.even else full

    @property
    def counted(self) -> int:
        """The pieces whose twist is a digit of ``q``."""
        return sum(c for c, w in zip(self.counts, self.wild, strict=True) if not w)

    @property
    def q_size(self) -> int:
        if self.o == 1:
            return 1
        return self.o ** (self.counted - 1 if self.implied else self.counted)

    @property
    def size(self) -> int:
        return self.arrangements * self.q_size

    @property
    def kind(self) -> int:
        repeated = [c for c in self.counts if c > 1]
        if not repeated and self.n <= MAX_DISTINCT:
            return DISTINCT
        if len(repeated) == 1 and self.k <= 64:
            return ONE_REPEATED
        return MULTISET

    def coordinate(self, perm: np.ndarray, tw: np.ndarray) -> int:
        """This set's coordinate of a full position (layout arrays), in plain Python."""
        seq = [self.lab[int(x)] for x in perm[self.first : self.first + self.n]]
        twists = [int(t) for t in tw[self.first : self.first + self.n]]
        r = _rank(seq, list(self.counts))
        r = r >> 1 if self.even else r
        if self.o == 1:
            return r
        digits = self.n - 1 if self.implied else self.n
        q = 0
        for j in range(digits):
            if not self.wild[seq[j]]:
                q = q * self.o + twists[j]
        return r * self.q_size + q


def _rank(seq: list[int], counts: list[int]) -> int:
    """The multiset's lexicographic rank (pack.SetCode.rank, unhalved)."""
    total, m, r = multinomial(counts), len(seq), 0
    for v in seq:
        for x in range(v):
            r += total * counts[x] // m
        total, counts[v], m = total * counts[v] // m, counts[v] - 1, m - 1
    return r


@dataclass(frozen=True)
class PatternCode:
    """A pattern's sets (its order), and its size: the length of its table's array."""

    name: str
    sets: tuple[PatternSet, ...]

    @property
    def size(self) -> int:
        return math.prod(s.size for s in self.sets)

    def coordinate(self, perm: np.ndarray, tw: np.ndarray) -> int:
        c = 0
        for s in self.sets:
            c = c * s.size + s.coordinate(perm, tw)
        return c


def pattern(
    name: str, full: FlatLayout, turns: Sequence[Turn], pat: Definition, pat_turns: Sequence[Turn]
) -> PatternCode:
    """How a full position of ``full`` becomes the coordinate of the pattern ``pat``
    (whose table was built with the moves ``pat_turns``); BadSpec when ``pat`` is no
    abstraction of it or lacks one of the search's ``turns``."""
    d = full.definition
    names = [s.name for s in d.sets]
    sets = []
    for i, (ps, solved) in enumerate(zip(pat.sets, pat.solved, strict=True)):
        if ps.name not in names:
            raise BadSpec(f"pattern {name}: set {ps.name} is not a set of {d.name}")
        f = names.index(ps.name)
        fs = d.sets[f]
        if (fs.pieces, fs.twists) != (ps.pieces, ps.twists):
            raise BadSpec(f"pattern {name}: set {ps.name} has other pieces than {d.name}'s")
        labels = tuple(sorted(set(solved.perm)))
        lab = _label_map(name, full, f, labels, solved.perm)
        counts = tuple(solved.perm.count(v) for v in labels)
        wild = tuple(solved.twist[solved.perm.index(v)] == WILD for v in labels)
        _check_wild(name, full, f, lab, wild)
        _check_twists(name, d.solved[f], solved, wild, labels)
        parts = [t.parts[i] for t in pat_turns]
        distinct = len(labels) == ps.pieces
        even = distinct and ps.pieces > 1 and all(parity(p.perm) == 0 for p in parts)
        keeps_sum = all(sum(p.twist) % ps.twists == 0 for p in parts)
        implied = ps.twists > 1 and keeps_sum and not any(wild)
        first = full.first[f]
        sets.append(PatternSet(ps.name, f, first, ps.pieces, ps.twists, lab, counts, wild, even,
                               implied))  # fmt: skip
    _check_turns(name, d, turns, pat, pat_turns)
    code = PatternCode(name, tuple(sets))
    if code.size >= 1 << 63:
        raise BadSpec(f"pattern {name}: {code.size:.3g} coordinates, too many for an array")
    return code


def _label_map(
    name: str, full: FlatLayout, f: int, labels: tuple[int, ...], pat_perm: tuple[int, ...]
) -> tuple[int, ...]:
    """Each full label number's pattern label index (the solved states, position by
    position); BadSpec when one full label would become two."""
    out = [0] * full.nlabels
    seen: dict[int, int] = {}
    for v, p in zip(full.definition.solved[f].perm, pat_perm, strict=True):
        x = full.label_first[f] + full.labels[f].index(v)
        if seen.setdefault(x, labels.index(p)) != labels.index(p):
            raise BadSpec(f"pattern {name}: piece {v} of {full.definition.sets[f].name} "
                          "stands for two of its pieces")  # fmt: skip
        out[x] = labels.index(p)
    return tuple(out)


def _check_wild(name: str, full: FlatLayout, f: int, lab: tuple[int, ...], wild: tuple[bool, ...]):
    """A piece whose orientation the full puzzle ignores is ignored by the pattern too."""
    for x in range(full.label_first[f], full.label_first[f] + len(full.labels[f])):
        if full.wild[x] and not wild[lab[x]]:
            raise BadSpec(f"pattern {name}: counts an orientation its puzzle ignores")


def _check_twists(
    name: str, mine: Part, theirs: Part, wild: tuple[bool, ...], labels: tuple[int, ...]
) -> None:
    """The pattern's solved twists are the puzzle's where they count."""
    for j, (v, t) in enumerate(zip(theirs.perm, theirs.twist, strict=True)):
        if not wild[labels.index(v)] and t != mine.twist[j]:
            raise BadSpec(f"pattern {name}: its solved twists are not the puzzle's")


def _check_turns(
    name: str, d: Definition, turns: Sequence[Turn], pat: Definition, pat_turns: Sequence[Turn]
) -> None:
    """Every turn of the search does on the pattern's sets what a move of the pattern's
    table does, or nothing (else the table's depths would not bound the search's: a
    turn the table lacks could do two of its moves' work). Compared by what the
    turns do, not their names: a move's order can be lower on fewer sets (X2 of the
    whole puzzle can be X' of the pattern)."""
    theirs = {t.parts for t in pat_turns} | {tws.identity(pat.sets)}
    full_index = {s.name: i for i, s in enumerate(d.sets)}
    for t in turns:
        if tuple(t.parts[full_index[ps.name]] for ps in pat.sets) not in theirs:
            raise BadSpec(f"pattern {name}: its table has no move doing what {t.name} does")
