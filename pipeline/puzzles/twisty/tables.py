"""Move tables: each move's effect on each set's coordinate, looked up instead of computed.

A set's coordinate is ``c = r * Q + q`` (pack.py). Without ``?`` pieces a
move acts on the arrangement rank and the orientation value apart: the new
``r`` depends on the old ``r`` alone (``A[r, t]``), the new ``q`` on the old
``q`` alone (``B[q, t]``), so a move is two look-ups a set and the tables
hold ``(R + Q) * moves`` entries (2x2x2: 40,320 and 2,187 rows of 18). A set
with ``?`` pieces couples them (which positions keep a digit depends on the
arrangement): it is tabled whole, ``A[c, t]``, with ``Q = 1``. An entry is
:data:`pack.BLOCKED` when the move would make an ``Illegal`` position.

A set is :data:`TABLED` so while the tables of the sets tabled fit
:data:`MAX_ENTRIES` together (the smallest sets first). A larger set is
:data:`COUPLED`: its arrangement table ``A[r, t]`` and each arrangement's
labels (``labels[r]``) are tabled, the orientation value computed (the cube's
six edges beside six ``?`` ones: 665,280 arrangements, where the whole
coordinate has 42,577,920 values); or, past :data:`MAX_ARRANGED`,
:data:`COMPUTED`: rank, labels and orientations computed (ranks.py). Every
set has compiled kernels either way (moves.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.puzzles.twisty.pack import BLOCKED, Packing, SetCode
from pipeline.puzzles.twisty.tws import Illegal, Part

#: Entries of the tables of the sets tabled, together (4 bytes each): 64 MB.
MAX_ENTRIES = 1 << 24
#: Entries of one set's arrangement table when its coordinate is not tabled: 512 MB.
MAX_ARRANGED = 1 << 27
#: How a set's moves are made: by its tables, by its arrangement table with its
#: orientations computed, or computed.
TABLED, COUPLED, COMPUTED = 0, 1, 2


@dataclass(frozen=True)
class SetTables:
    """One set's tables, one column a move: ``a`` (rows of the arrangement, or of the
    whole coordinate when ``q`` is 1 for a set with orientations), ``b`` (rows of the
    orientation value; none unless :data:`TABLED`) and ``labels`` (each arrangement's
    label indices, :data:`COUPLED` only)."""

    kind: int
    a: np.ndarray
    b: np.ndarray
    labels: np.ndarray
    #: What the coordinate is divided by to find the row of ``a``.
    q: int


def entries(code: SetCode, moves: int) -> int:
    """How many entries the set's tables would hold, tabled."""
    if code.coupled:
        return code.size * moves
    return (code.arrangements + code.twists) * moves


def kinds(pack: Packing, moves: int) -> list[int]:
    """How each set's moves are made (the module docstring)."""
    out = [COMPUTED] * len(pack.sets)
    left = MAX_ENTRIES
    for i in sorted(range(len(pack.sets)), key=lambda i: entries(pack.sets[i], moves)):
        code = pack.sets[i]
        if entries(code, moves) <= left:
            out[i] = TABLED
            left -= entries(code, moves)
        elif code.arrangements * moves <= MAX_ARRANGED:
            out[i] = COUPLED
    return out


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


def set_tables(code: SetCode, kind: int, parts: list[Part], rules: list[Illegal]) -> SetTables:
    """The tables of one set for the moves' ``parts`` (its part of each move)."""
    from pipeline.puzzles.twisty import ranks  # numba: on first use

    perms = np.array([p.perm for p in parts], np.int64).reshape(len(parts), code.n)
    forbid = forbidden(code, rules)
    none = np.zeros((0, len(parts)), np.uint32)
    no_labels = np.zeros((0, code.n), np.uint8)
    if kind == COMPUTED:
        return SetTables(kind, none, none, no_labels, code.twists)
    if kind == TABLED and code.coupled:
        adds = np.array([p.twist for p in parts], np.int64).reshape(len(parts), code.n)
        a = ranks.whole(code, perms, adds, forbid, int(BLOCKED))
        return SetTables(kind, a, np.zeros((1, len(parts)), np.uint32), no_labels, 1)
    a = ranks.arranged(code, perms, forbid, int(BLOCKED))
    if kind == COUPLED:
        return SetTables(kind, a, none, ranks.labels(code), code.twists)
    q = np.arange(code.twists, dtype=np.uint64)
    tw = code.twists_many(q)
    b = np.stack([_oriented(code, tw, p) for p in parts], axis=1) if parts else q[:, None]
    return SetTables(kind, a, b.astype(np.uint32), no_labels, code.twists)


def _oriented(code: SetCode, tw: np.ndarray, part: Part) -> np.ndarray:
    """Each orientation value after a move (a set whose moves do not couple its
    arrangement and orientations: no labels needed)."""
    moved = (tw[:, np.asarray(part.perm)] + np.asarray(part.twist)) % code.o
    return code.orient_many(np.zeros((len(tw), code.n), np.int64), moved)


@dataclass(frozen=True)
class MoveTables:
    """Every set's tables for a list of moves (``moves``: each a part a set), and the
    numpy expander over them (verify's, and the sorting path's without kernels)."""

    pack: Packing
    sets: tuple[SetTables, ...]
    moves: tuple[tuple[Part, ...], ...]
    rules: tuple[Illegal, ...]

    def expand(self, states: np.ndarray, moves: int) -> tuple[np.ndarray, np.ndarray]:
        """The first ``moves`` moves applied to each state, move by move: (the row each
        child comes from, the child), moves into an Illegal position left out."""
        child = np.zeros((moves, len(states)), np.uint64)
        ok = np.ones((moves, len(states)), bool)
        coords = self.pack.split_many(states)
        for i, (tab, w, c) in enumerate(zip(self.sets, self.pack.weights, coords, strict=True)):
            if tab.kind == TABLED:
                q = np.uint64(tab.q)
                a = tab.a[(c // q).astype(np.intp), :moves].T
                ok &= a != BLOCKED
                b = tab.b[(c % q).astype(np.intp), :moves].T
                child += (a.astype(np.uint64) * q + b) * np.uint64(w)
            else:
                got, legal = self._computed(i, tab, c, moves)
                child += got * np.uint64(w)
                ok &= legal
        src = np.broadcast_to(np.arange(len(states), dtype=np.intp), ok.shape)
        return src[ok], child[ok]

    def _computed(
        self, i: int, tab: SetTables, c: np.ndarray, moves: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Set i's coordinates after each move, and which moves are legal (a set whose
        orientations are computed: ``(moves, len(c))`` arrays)."""
        code = self.pack.sets[i]
        r, q = c // np.uint64(code.twists), c % np.uint64(code.twists)
        if tab.kind == COUPLED:
            seq = tab.labels[r.astype(np.intp)].astype(np.int64)
        else:
            seq = code.arrangements_many(r)
        tw = code.twists_from(seq, q)
        rules = [x for x in self.rules if x.set == i]
        out = np.zeros((moves, len(c)), np.uint64)
        ok = np.ones((moves, len(c)), bool)
        for t in range(moves):
            moved, turned = code.apply_many(seq, tw, self.moves[t][i])
            if tab.kind == COUPLED:
                rank = tab.a[r.astype(np.intp), t]
                ok[t] = rank != BLOCKED
                rank = rank.astype(np.uint64)
            else:
                ok[t] = legal_rows(code, moved, rules)
                rank = code.rank_many(moved)
            out[t] = rank * np.uint64(code.twists) + code.orient_many(moved, turned)
        return out, ok


def tables(pack: Packing, moves: list[tuple[Part, ...]], rules: tuple[Illegal, ...]) -> MoveTables:
    """The tables of every set for ``moves`` (each a part a set)."""
    out = []
    for i, (code, kind) in enumerate(zip(pack.sets, kinds(pack, len(moves)), strict=True)):
        mine = [r for r in rules if r.set == i]
        out.append(set_tables(code, kind, [m[i] for m in moves], mine))
    return MoveTables(pack, tuple(out), tuple(moves), rules)
