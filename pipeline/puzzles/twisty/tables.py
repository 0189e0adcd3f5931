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


def forbidden(code: SetCode, rules: list[Illegal]) -> np.ndarray:
    """``out[position, label index]``: an Illegal line forbids the label there."""
    out = np.zeros((code.n, code.k), np.bool_)
    for rule in rules:
        for v in rule.labels:
            out[rule.position, code.labels.index(v)] = True
    return out


def set_tables(code: SetCode, parts: list[Part], rules: list[Illegal]) -> SetTables:
    """The tables of one set for the moves' ``parts`` (its part of each move)."""
    from pipeline.puzzles.twisty import ranks  # numba: on first use

    perms = np.array([p.perm for p in parts], np.int64).reshape(len(parts), code.n)
    forbid = forbidden(code, rules)
    if code.any_wild:
        adds = np.array([p.twist for p in parts], np.int64).reshape(len(parts), code.n)
        a = ranks.whole(code, perms, adds, forbid, int(BLOCKED))
        return SetTables(True, a, np.zeros((1, len(parts)), np.uint32))
    a = ranks.arranged(code, perms, forbid, int(BLOCKED))
    q = np.arange(code.twists, dtype=np.uint64)
    tw = code.twists_many(q)
    b = np.stack([_oriented(code, tw, p) for p in parts], axis=1) if parts else q[:, None]
    return SetTables(False, a, b.astype(np.uint32))


def _oriented(code: SetCode, tw: np.ndarray, part: Part) -> np.ndarray:
    """Each orientation value after a move (no piece is wild here: no labels needed)."""
    moved = (tw[:, np.asarray(part.perm)] + np.asarray(part.twist)) % code.o
    return code.orient_many(np.zeros((len(tw), code.n), np.int64), moved)


@dataclass(frozen=True)
class MoveTables:
    """Every set's tables for a list of moves, and the numpy expander over them."""

    pack: Packing
    sets: tuple[SetTables, ...]

    def expand(self, states: np.ndarray, moves: int) -> tuple[np.ndarray, np.ndarray]:
        """The first ``moves`` moves applied to each state, move by move: (the row each
        child comes from, the child), moves into an Illegal position left out."""
        child = np.zeros((moves, len(states)), np.uint64)
        ok = np.ones((moves, len(states)), bool)
        coords = self.pack.split_many(states)
        for tab, w, c in zip(self.sets, self.pack.weights, coords, strict=True):
            q = np.uint64(tab.q)
            a = tab.a[(c // q).astype(np.intp), :moves].T
            ok &= a != BLOCKED
            b = tab.b[(c % q).astype(np.intp), :moves].T
            child += (a.astype(np.uint64) * q + b) * np.uint64(w)
        src = np.broadcast_to(np.arange(len(states), dtype=np.intp), ok.shape)
        return src[ok], child[ok]


def tables(pack: Packing, moves: list[tuple[Part, ...]], rules: tuple[Illegal, ...]) -> MoveTables:
    """The tables of every set for ``moves`` (each a part a set)."""
    out = []
    for i, code in enumerate(pack.sets):
        mine = [r for r in rules if r.set == i]
        out.append(set_tables(code, [m[i] for m in moves], mine))
    return MoveTables(pack, tuple(out))


@dataclass(frozen=True)
class Computed:
    """The same expander without tables: every set's ranks computed (sets too large to
    table; about a microsecond a move)."""

    pack: Packing
    moves: tuple[tuple[Part, ...], ...]
    rules: tuple[Illegal, ...]

    def expand(self, states: np.ndarray, moves: int) -> tuple[np.ndarray, np.ndarray]:
        child = np.zeros((moves, len(states)), np.uint64)
        ok = np.ones((moves, len(states)), bool)
        coords = self.pack.split_many(states)
        for i, (code, w, c) in enumerate(
            zip(self.pack.sets, self.pack.weights, coords, strict=True)
        ):
            decoded = code.decode_many(c)
            rules = [r for r in self.rules if r.set == i]
            for t in range(moves):
                seq, tw = code.apply_many(*decoded, self.moves[t][i])
                ok[t] &= legal_rows(code, seq, rules)
                child[t] += code.encode_many(seq, tw) * np.uint64(w)
        src = np.broadcast_to(np.arange(len(states), dtype=np.intp), ok.shape)
        return src[ok], child[ok]
