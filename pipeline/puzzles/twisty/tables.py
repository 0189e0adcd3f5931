"""Move tables: each move's effect on each set's coordinate, looked up instead of computed.

A set's coordinate is ``c = r * Q + q`` (pack.py). Without ``?`` pieces a
move acts on the arrangement rank and the orientation value apart: the new
``r`` depends on the old ``r`` alone (``A[r, t]``), the new ``q`` on the old
``q`` alone (``B[q, t]``), so a move is two look-ups a set and the tables
hold ``(R + Q) * moves`` entries (2x2x2: 40,320 and 2,187 rows of 18). A set
with ``?`` pieces couples them (a piece's orientation is kept or not by
which piece it is): it is tabled whole, ``A[c, t]``, with ``Q = 1``. An entry
is :data:`pack.BLOCKED` when the move would make an ``Illegal`` position.

A set whose tables would pass :data:`MAX_ENTRIES` is not tabled: the numpy
expander computes its ranks (slowly) and the puzzle has no compiled kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.puzzles.twisty.pack import BLOCKED, Packing, SetCode
from pipeline.puzzles.twisty.tws import Illegal, Part

#: Entries of all tables together (4 bytes each): 64 MB.
MAX_ENTRIES = 1 << 24
#: Rows decoded at a time while building a table or expanding untabled sets.
BATCH = 1 << 16


@dataclass(frozen=True)
class SetTables:
    """One set's tables: ``a`` (rows of the arrangement, or of the whole coordinate when
    ``whole``) and ``b`` (rows of the orientation value), one column a move."""

    whole: bool
    a: np.ndarray
    b: np.ndarray

    @property
    def q(self) -> int:
        """The effective orientation count: 1 when the coordinate is tabled whole."""
        return len(self.b)


def entries(code: SetCode, moves: int) -> int:
    """How many entries the set's tables would hold."""
    if code.any_wild:
        return code.size * moves
    return (code.arrangements + code.twists) * moves


def tabled(pack: Packing, moves: int) -> bool:
    """Whether every set's tables fit :data:`MAX_ENTRIES` together."""
    return sum(entries(c, moves) for c in pack.sets) <= MAX_ENTRIES


def legal_rows(code: SetCode, seq: np.ndarray, rules: list[Illegal]) -> np.ndarray:
    """Which rows of label indices no ``Illegal`` line forbids."""
    ok = np.ones(len(seq), bool)
    for rule in rules:
        bad = [code.labels.index(v) for v in rule.labels if v in code.labels]
        ok &= ~np.isin(seq[:, rule.position], bad)
    return ok


def set_tables(code: SetCode, parts: list[Part], rules: list[Illegal]) -> SetTables:
    """The tables of one set for the moves' ``parts`` (its part of each move)."""
    if code.any_wild:
        a = _table(code.size, parts, lambda c, p: _whole(code, c, p, rules))
        return SetTables(True, a, np.zeros((1, len(parts)), np.uint32))
    a = _table(code.arrangements, parts, lambda r, p: _arranged(code, r, p, rules))
    b = _table(code.twists, parts, lambda q, p: _oriented(code, q, p))
    return SetTables(False, a, b)


def _table(rows: int, parts: list[Part], one) -> np.ndarray:
    out = np.empty((rows, len(parts)), np.uint32)
    for lo in range(0, rows, BATCH):
        x = np.arange(lo, min(rows, lo + BATCH), dtype=np.uint64)
        for t, part in enumerate(parts):
            out[lo : lo + len(x), t] = one(x, part)
    return out


def _whole(code: SetCode, c: np.ndarray, part: Part, rules: list[Illegal]) -> np.ndarray:
    seq, tw = code.apply_many(*code.decode_many(c), part)
    out = code.encode_many(seq, tw).astype(np.uint32)
    return np.where(legal_rows(code, seq, rules), out, BLOCKED)


def _arranged(code: SetCode, r: np.ndarray, part: Part, rules: list[Illegal]) -> np.ndarray:
    seq, _ = code.decode_many(r * np.uint64(code.twists))
    seq = seq[:, np.asarray(part.perm)]
    return np.where(legal_rows(code, seq, rules), code.rank_many(seq).astype(np.uint32), BLOCKED)


def _oriented(code: SetCode, q: np.ndarray, part: Part) -> np.ndarray:
    """The orientation part alone: arrangement 0 carries it (no piece is wild here)."""
    seq, tw = code.decode_many(q)
    _, tw = code.apply_many(seq, tw, part)
    return code.orient_many(seq, tw).astype(np.uint32)


@dataclass(frozen=True)
class Tables:
    """Every set's tables for a list of moves, and the numpy expander over them."""

    pack: Packing
    sets: tuple[SetTables, ...]

    def apply(self, states: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Move ``t`` applied to each state: (the rows it is legal from, their children)."""
        child = np.zeros(len(states), np.uint64)
        ok = np.ones(len(states), bool)
        coords = self.pack.split_many(states)
        for tab, w, c in zip(self.sets, self.pack.weights, coords, strict=True):
            q = np.uint64(tab.q)
            a = tab.a[(c // q).astype(np.intp), t]
            ok &= a != BLOCKED
            b = tab.b[(c % q).astype(np.intp), t]
            child += (a.astype(np.uint64) * q + b) * np.uint64(w)
        return np.flatnonzero(ok), child[ok]


def tables(pack: Packing, moves: list[tuple[Part, ...]], rules: tuple[Illegal, ...]) -> Tables:
    """The tables of every set for ``moves`` (each a part a set)."""
    out = []
    for i, code in enumerate(pack.sets):
        mine = [r for r in rules if r.set == i]
        out.append(set_tables(code, [m[i] for m in moves], mine))
    return Tables(pack, tuple(out))


@dataclass(frozen=True)
class Computed:
    """The same expander without tables: every set's ranks computed (sets too large to
    table; about a microsecond a move)."""

    pack: Packing
    moves: tuple[tuple[Part, ...], ...]
    rules: tuple[Illegal, ...]

    def apply(self, states: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray]:
        child = np.zeros(len(states), np.uint64)
        ok = np.ones(len(states), bool)
        coords = self.pack.split_many(states)
        for i, (code, w, c) in enumerate(
            zip(self.pack.sets, self.pack.weights, coords, strict=True)
        ):
            seq, tw = code.apply_many(*code.decode_many(c), self.moves[t][i])
            ok &= legal_rows(code, seq, [r for r in self.rules if r.set == i])
            child += code.encode_many(seq, tw) * np.uint64(w)
        return np.flatnonzero(ok), child[ok]
