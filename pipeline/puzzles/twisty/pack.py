"""Positions of a twisty definition packed into one 64-bit state (public contract).

For each set, in the order the file names them, a coordinate ``c = r * Q + q``:

- ``r``, the rank of the arrangement of labels over the positions among all
  arrangements of the same pieces, in lexicographic order (position 1 first,
  labels compared by number; 0 is the labels sorted). Identical pieces (a
  solved state repeating a number) make it a multiset rank: ``R = n! /
  (c1! c2! ...)`` arrangements. When the pieces are all distinct and every move
  permutes them evenly, only one parity is reachable: ``r`` is the rank halved
  (``R = n! / 2``).
- ``q``, the orientations as base-``o`` digits: the twists of the positions
  holding a piece whose orientation counts (not ``?`` in the solved state), in
  position order, position 1 the most significant (``q = q * o + twist[j]``
  for each such position j), ``Q = o^m`` for the ``m`` such pieces. A ``?``
  piece keeps no digit, so a set of distinct pieces and identical ``?`` pieces
  is dense: six distinct edges of the 3x3x3 cube beside six ``?`` ones have
  ``12!/6! * 2^6 = 42,577,920`` values. When no piece is ``?`` and every move
  keeps the set's orientation sum (mod ``o``), the last position's digit
  follows from the others and is left out (``Q = o^(n-1)``). Without
  orientations (``o = 1``) ``Q = 1``.

The state is the coordinates in mixed radix, the first set the most
significant: ``state = (...((c1 * S2 + c2) * S3 + c3)...)``, ``S = R * Q`` a
set's size. Every state below the product of the sizes stands for one
arrangement and orientation of every set (reachable or not), so the
positions fill ``0 .. N-1`` densely: the 2x2x2 cube with every face turning
(8 corners, 3 orientations) has exactly its 8! * 3^7 = 88,179,840 states.

This is format version 2's encoding. Version 1 kept a digit for every
position of a set with ``?`` pieces (0 for a ``?`` piece): a table of that
version is read with :attr:`SetCode.legacy` set (``Q = o^n`` for such a set;
sets without ``?`` pieces are the same in both).

Ranks are exact Python integers here, and vectorised in numpy for whole
arrays (:meth:`SetCode.decode_many`, :meth:`SetCode.encode_many`), which also
make the move tables the kernels read (moves.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pipeline.puzzles.base import parity
from pipeline.puzzles.twisty.tws import WILD, Definition, Part, PieceSet, Turn

#: A table entry for a move into an illegal position (``Illegal`` lines).
BLOCKED = np.uint32(0xFFFF_FFFF)


def multinomial(counts: list[int] | tuple[int, ...]) -> int:
    out = math.factorial(sum(counts))
    for c in counts:
        out //= math.factorial(c)
    return out


@dataclass(frozen=True)
class SetCode:
    """How one set's arrangement and orientations become its coordinate."""

    piece_set: PieceSet
    #: The distinct labels of the solved state, as the file numbers them, sorted.
    labels: tuple[int, ...]
    #: How many pieces carry each label.
    counts: tuple[int, ...]
    #: Whether each label's orientation is ignored (``?`` in the solved state).
    wild: tuple[bool, ...]
    #: Only the solved state's parity is reachable (distinct pieces, even moves).
    even: bool
    #: The parity of the solved arrangement (when ``even``).
    parity: int
    #: The last digit left out: every move keeps the orientation sum, which is ``total``.
    implied: bool
    total: int
    #: Format version 1's digits: every position keeps one, a ``?`` piece's 0.
    legacy: bool = False

    @property
    def n(self) -> int:
        return self.piece_set.pieces

    @property
    def o(self) -> int:
        return self.piece_set.twists

    @property
    def k(self) -> int:
        return len(self.labels)

    @cached_property
    def arrangements(self) -> int:
        full = multinomial(self.counts)
        return full // 2 if self.even else full

    @cached_property
    def counted(self) -> tuple[bool, ...]:
        """Whether a piece of each label keeps an orientation digit (not ``?``; every
        piece in the legacy encoding)."""
        return tuple(self.legacy or not w for w in self.wild)

    @cached_property
    def digits(self) -> int:
        """How many orientation digits ``q`` has."""
        if self.o == 1:
            return 0
        pieces = sum(c for c, kept in zip(self.counts, self.counted, strict=True) if kept)
        return pieces - self.implied

    @property
    def twists(self) -> int:
        return self.o**self.digits

    @property
    def size(self) -> int:
        return self.arrangements * self.twists

    @property
    def any_wild(self) -> bool:
        return any(self.wild)

    @property
    def coupled(self) -> bool:
        """Whether a move's new orientation value depends on the arrangement too (a set
        with ``?`` pieces and orientations: which pieces keep their twist)."""
        return self.any_wild and self.digits > 0

    @property
    def slotted(self) -> bool:
        """Whether which positions keep a digit depends on the arrangement (``?`` pieces
        in version 2's encoding): ``q`` then reads only with ``r``."""
        return self.coupled and not self.legacy

    # -- one position (exact integers) ---------------------------------------------
    def rank(self, seq: list[int]) -> int:
        """The arrangement rank of label indices ``seq`` (halved when ``even``)."""
        c, m = list(self.counts), self.n
        total, r = multinomial(c), 0
        for v in seq:
            for x in range(v):
                r += total * c[x] // m
            total, c[v], m = total * c[v] // m, c[v] - 1, m - 1
        return r >> 1 if self.even else r

    def unrank(self, r: int) -> list[int]:
        if not self.even:
            return self._unrank(r)
        seq = self._unrank(2 * r)
        return seq if parity(seq) == self.parity else self._unrank(2 * r + 1)

    def _unrank(self, r: int) -> list[int]:
        c, m = list(self.counts), self.n
        total, out = multinomial(c), []
        for _ in range(self.n):
            for x in range(self.k):
                t = total * c[x] // m
                if r < t:
                    out.append(x)
                    total, c[x], m = t, c[x] - 1, m - 1
                    break
                r -= t
        return out

    def slots(self, seq: list[int]) -> list[int]:
        """Each position's orientation digit (0 the most significant), -1 for a position
        without one (a ``?`` piece, the implied last position, no orientations)."""
        out, k = [], 0
        for v in seq:
            if self.counted[v] and k < self.digits:
                out.append(k)
                k += 1
            else:
                out.append(-1)
        return out

    def orient(self, seq: list[int], twists: list[int]) -> int:
        """The orientation value of a position's twists (a ``?`` piece's counts 0)."""
        q = 0
        for v, t, slot in zip(seq, twists, self.slots(seq), strict=True):
            if slot >= 0:
                q = q * self.o + (0 if self.wild[v] else t)
        return q

    def twists_of(self, seq: list[int], q: int) -> list[int]:
        """Every position's twist (WILD for a wild piece), the implied one included."""
        digits = [0] * self.digits
        for j in reversed(range(self.digits)):
            q, digits[j] = divmod(q, self.o)
        out = [0 if s < 0 else digits[s] for s in self.slots(seq)]
        if self.implied:
            out[-1] = (self.total - sum(out)) % self.o
        return [WILD if self.wild[v] else t for v, t in zip(seq, out, strict=True)]

    def decode(self, c: int) -> tuple[list[int], list[int]]:
        """(label indices, twists) of coordinate ``c``."""
        r, q = divmod(c, self.twists)
        seq = self.unrank(r)
        return seq, self.twists_of(seq, q)

    # -- whole arrays (numpy) ------------------------------------------------------
    def decode_many(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(label indices, twists) of each coordinate, as (m, n) arrays (wild twist 0)."""
        c = c.astype(np.uint64)
        r, q = c // np.uint64(self.twists), c % np.uint64(self.twists)
        seq = self.arrangements_many(r)
        return seq, self.twists_from(seq, q)

    def arrangements_many(self, r: np.ndarray) -> np.ndarray:
        """The label indices of each arrangement rank, as an (m, n) array."""
        r = np.asarray(r, np.uint64)
        seq = self._unrank_many(r * np.uint64(2) if self.even else r)
        if self.even:
            wrong = _parities(seq) != self.parity
            if wrong.any():
                seq[wrong] = self._unrank_many(r[wrong] * np.uint64(2) + np.uint64(1))
        return seq

    def twists_from(self, seq: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Every position's twist of each row of label indices and its orientation value
        (wild pieces 0, the implied one included)."""
        if not self.slotted:
            tw = self.twists_many(q)
        else:
            digits = self.digits_many(q)
            slot = self.slots_many(seq)
            rows = np.arange(len(seq))[:, None]
            tw = np.where(slot >= 0, digits[rows, np.maximum(slot, 0)], 0)
        if self.any_wild:
            tw[np.asarray(self.wild)[seq]] = 0
        return tw

    def digits_many(self, q: np.ndarray) -> np.ndarray:
        """The orientation digits of each value, the most significant first: (m, digits)."""
        q = np.asarray(q, np.uint64)
        out = np.zeros((len(q), self.digits), np.int64)
        for j in reversed(range(self.digits)):
            out[:, j] = (q % np.uint64(self.o)).astype(np.int64)
            q = q // np.uint64(self.o)
        return out

    def slots_many(self, seq: np.ndarray) -> np.ndarray:
        """:meth:`slots` of each row of label indices."""
        counted = np.asarray(self.counted)[seq]
        index = np.cumsum(counted, axis=1) - 1
        return np.where(counted & (index < self.digits), index, -1)

    def twists_many(self, q: np.ndarray) -> np.ndarray:
        """Every position's twist of each orientation value (the implied one included),
        for a set whose digits are the positions' (not :attr:`slotted`)."""
        tw = np.zeros((len(q), self.n), np.int64)
        tw[:, : self.digits] = self.digits_many(q)
        if self.implied:
            tw[:, -1] = (self.total - tw.sum(axis=1)) % self.o
        return tw

    def _unrank_many(self, r: np.ndarray) -> np.ndarray:
        m_rows = len(r)
        c = np.tile(np.asarray(self.counts, np.uint64), (m_rows, 1))
        total = np.full(m_rows, multinomial(self.counts), np.uint64)
        seq = np.zeros((m_rows, self.n), np.int64)
        r = r.copy()
        rows = np.arange(m_rows)
        for j in range(self.n):
            m = np.uint64(self.n - j)
            chosen = np.zeros(m_rows, bool)
            for x in range(self.k):
                t = _times(total, c[:, x], m)
                take = ~chosen & (r < t)
                r = np.where(~chosen & ~take, r - t, r)
                seq[take, j] = x
                total = np.where(take, t, total)
                chosen |= take
            c[rows, seq[:, j]] -= np.uint64(1)
        return seq

    def encode_many(self, seq: np.ndarray, tw: np.ndarray) -> np.ndarray:
        """The coordinates of (m, n) label indices and twists (wild pieces count 0)."""
        return self.rank_many(seq) * np.uint64(self.twists) + self.orient_many(seq, tw)

    def rank_many(self, seq: np.ndarray) -> np.ndarray:
        """:meth:`rank` of each row: at each position the arrangements that put a smaller
        label there, ``total * below / m`` (an integer: a sum of multinomials), where
        ``below`` counts the pieces left with a smaller label."""
        seq = np.asarray(seq, np.int64)
        counts = np.asarray(self.counts, np.uint64)
        first = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.uint64)
        total = np.full(len(seq), multinomial(self.counts), np.uint64)
        r = np.zeros(len(seq), np.uint64)
        for j in range(self.n):
            m = np.uint64(self.n - j)
            v = seq[:, j]
            smaller = np.zeros(len(seq), np.int64)
            same = np.zeros(len(seq), np.int64)
            for i in range(j):
                smaller += seq[:, i] < v
                same += seq[:, i] == v
            r += _times(total, first[v] - smaller.astype(np.uint64), m)
            total = _times(total, counts[v] - same.astype(np.uint64), m)
        return r >> np.uint64(1) if self.even else r

    def orient_many(self, seq: np.ndarray, tw: np.ndarray) -> np.ndarray:
        """:meth:`orient` of each row of label indices and twists."""
        q = np.zeros(len(seq), np.uint64)
        wild = np.asarray(self.wild)[seq] if self.any_wild else None
        slot = self.slots_many(seq) if self.slotted else None
        for j in range(self.n if self.slotted else self.digits):
            d = tw[:, j] if wild is None else np.where(wild[:, j], 0, tw[:, j])
            step = q * np.uint64(self.o) + d.astype(np.uint64)
            q = step if slot is None else np.where(slot[:, j] >= 0, step, q)
        return q

    def apply_many(
        self, seq: np.ndarray, tw: np.ndarray, part: Part
    ) -> tuple[np.ndarray, np.ndarray]:
        """Label indices and twists after a move's part (wild pieces keep twist 0)."""
        src = np.asarray(part.perm)
        new_tw = (tw[:, src] + np.asarray(part.twist)) % self.o
        new_seq = seq[:, src]
        if self.any_wild:
            new_tw[np.asarray(self.wild)[new_seq]] = 0
        return new_seq, new_tw


def _times(total: np.ndarray, c: np.ndarray, m: np.uint64) -> np.ndarray:
    """``total * c // m`` exactly in uint64 when the result is an integer that fits
    (``total = a*m + b``: ``a*c + b*c//m``, and ``b*c < m*c`` stays small)."""
    return (total // m) * c + (total % m) * c // m


def _parities(seq: np.ndarray) -> np.ndarray:
    """Parity of each row, a permutation of 0..n-1 (inversions, mod 2)."""
    n = seq.shape[1]
    odd = np.zeros(len(seq), np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            odd ^= (seq[:, i] > seq[:, j]).astype(np.int64)
    return odd


def set_code(d: Definition, i: int, turns: tuple[Turn, ...], legacy: bool = False) -> SetCode:
    """The coordinate of set i, from the definition's solved state and the moves searched
    (``legacy``: format version 1's digits)."""
    s, solved = d.sets[i], d.solved[i]
    labels = tuple(sorted(set(solved.perm)))
    counts = tuple(solved.perm.count(v) for v in labels)
    first = {v: solved.perm.index(v) for v in labels}
    wild = tuple(solved.twist[first[v]] == WILD for v in labels)
    parts = [t.parts[i] for t in turns]
    distinct = len(labels) == s.pieces
    even = distinct and s.pieces > 1 and all(parity(p.perm) == 0 for p in parts)
    seq = [labels.index(v) for v in solved.perm]
    keeps_sum = all(sum(p.twist) % s.twists == 0 for p in parts)
    implied = s.twists > 1 and keeps_sum and not any(wild)
    total = sum(t for t in solved.twist if t != WILD) % s.twists
    return SetCode(s, labels, counts, wild, even, parity(seq), implied, total, legacy)


@dataclass(frozen=True)
class Packing:
    """Every set's coordinate, and the state they make together."""

    sets: tuple[SetCode, ...]

    @cached_property
    def size(self) -> int:
        """How many states the encoding has (reachable or not): the product of the sizes."""
        return math.prod(c.size for c in self.sets)

    @cached_property
    def weights(self) -> tuple[int, ...]:
        """What one unit of each set's coordinate is worth in the state."""
        out, w = [], 1
        for c in reversed(self.sets):
            out.append(w)
            w *= c.size
        return tuple(reversed(out))

    def split(self, state: int) -> list[int]:
        """The coordinate of each set."""
        return [state // w % c.size for c, w in zip(self.sets, self.weights, strict=True)]

    def join(self, coords: list[int]) -> int:
        return sum(c * w for c, w in zip(coords, self.weights, strict=True))

    def split_many(self, states: np.ndarray) -> list[np.ndarray]:
        return [
            states // np.uint64(w) % np.uint64(c.size)
            for c, w in zip(self.sets, self.weights, strict=True)
        ]

    def join_many(self, coords: list[np.ndarray]) -> np.ndarray:
        out = np.zeros(len(coords[0]), np.uint64)
        for c, w in zip(coords, self.weights, strict=True):
            out += c * np.uint64(w)
        return out
