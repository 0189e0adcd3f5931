"""Twisty moves as compiled kernels: the fast level step's (engine/packed.py) and the
dense engine's (a twisty state is its own rank): its bitmaps (engine/bitmaps.py),
and its marks (engine/marks.py) for a search of at most four moves.

A state splits into its sets' coordinates (a division a set), each coordinate
into arrangement and orientation (another), and a move is then two table
look-ups a set: ``A[r, t] * Q + B[q, t]`` (tables.py). The tables are laid
out twice, a row a coordinate and a column a move: once for the moves, once
for their inverses in the same order, so that every kernel reads a state's
moves (or their inverses) from contiguous columns, split once. A packed key
is ``child << tag_bits | t``, the parent the child moved by t's inverse; the
bitmaps keep, a state, the move that first reached it.
Imported on first use, like the other ``moves.py`` modules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.engine.bitmaps import backward_core, forward_core, rows_core
from pipeline.engine.marks import NO_KEY, TAGS, mark_core, scan_core
from pipeline.engine.packed import Kernels, resolve_core, room, weigh_core
from pipeline.engine.space import BitmapKernels, DenseSpace, MarkKernels
from pipeline.puzzles.twisty import ranks, tables
from pipeline.puzzles.twisty.pack import multinomial
from pipeline.puzzles.twisty.tables import COMPUTED, COUPLED, TABLED, MoveTables

_BLOCKED = 0xFFFF_FFFF
#: Where each part of the kernels' arguments is (see :func:`kernel_args`; numba needs
#: literal indices to slice them: args[4] .. args[9] are aoff, boff, qe, sizes,
#: weights and n).
_FA, _FB, _BA, _BB, _N, _TAG, _PLAIN = 0, 1, 2, 3, 9, 10, 11
#: The marks' kernels take one argument more: each move's inverse (its tag); the
#: bitmaps' three: a block's size and its low digit's terms (:func:`low_tables`). Both
#: only where every set is tabled: a computed set's data is args[12] (_EXT).
_INV = 12
_LOW, _LOW_FORWARD, _LOW_BACK = 12, 13, 14


@njit(inline="always")
def _fill(s, a, b, out, args):
    """``out[t]``: state ``s`` moved by column t of tables ``a`` and ``b`` (the moves'
    or their inverses'), when no move is blocked. No branch to :func:`_fill_checked`
    in here: a branch in this loop slows the bitmaps, so each has its own kernels."""
    aoff, boff, qe, sizes, weights, n = args[4], args[5], args[6], args[7], args[8], args[9]
    last = len(sizes) - 1
    c = s % sizes[last]
    s = s // sizes[last]
    r = np.int64(c // qe[last])
    ra = aoff[last] + r * n
    qb = boff[last] + np.int64(c - np.uint64(r) * qe[last]) * n
    for t in range(n):
        out[t] = np.uint64(a[ra + t]) * qe[last] + np.uint64(b[qb + t])
    for k in range(last - 1, -1, -1):
        c = s % sizes[k]
        s = s // sizes[k]
        r = np.int64(c // qe[k])
        ra = aoff[k] + r * n
        qb = boff[k] + np.int64(c - np.uint64(r) * qe[k]) * n
        for t in range(n):
            out[t] += (np.uint64(a[ra + t]) * qe[k] + np.uint64(b[qb + t])) * weights[k]


@njit(inline="always")
def _fill_checked(s, a, b, out, args):
    """:func:`_fill` where some moves are blocked (Illegal lines)."""
    aoff, boff, qe, sizes, weights, n = args[4], args[5], args[6], args[7], args[8], args[9]
    none = ~np.uint64(0)
    out[:] = 0
    for k in range(len(sizes) - 1, -1, -1):
        c = s % sizes[k]
        s = s // sizes[k]
        r = np.int64(c // qe[k])
        ra = aoff[k] + r * n
        qb = boff[k] + np.int64(c - np.uint64(r) * qe[k]) * n
        for t in range(n):
            x = a[ra + t]
            if x == _BLOCKED:
                out[t] = none
            elif out[t] != none:
                out[t] += (np.uint64(x) * qe[k] + np.uint64(b[qb + t])) * weights[k]


@njit(inline="always")
def _moved(s, a, b, t, args):
    """State ``s`` moved by column t of tables ``a`` and ``b``; ``~0`` when blocked."""
    aoff, boff, qe, sizes, weights, n = args[4], args[5], args[6], args[7], args[8], args[9]
    out = np.uint64(0)
    for k in range(len(sizes) - 1, -1, -1):
        c = s % sizes[k]
        s = s // sizes[k]
        r = np.int64(c // qe[k])
        x = a[aoff[k] + r * n + t]
        if x == _BLOCKED:
            return ~np.uint64(0)
        q = np.int64(c - np.uint64(r) * qe[k])
        out += (np.uint64(x) * qe[k] + np.uint64(b[boff[k] + q * n + t])) * weights[k]
    return out


@njit(inline="always")
def _keys_core(states, skip, lo, hi, out, fill, args):
    """Every move of every state whose key lies in [lo, hi], minus the move back to ``skip``."""
    n, tag_bits = args[_N], args[_TAG]
    kids = np.empty(n, np.uint64)
    use_skip = len(skip) > 0
    m = 0
    for i in range(len(states)):
        if m + n > len(out):
            out = room(out, m, n)
        fill(states[i], args[_FA], args[_FB], kids, args)
        for t in range(n):
            child = kids[t]
            key = (child << np.uint64(tag_bits)) | np.uint64(t)
            out[m] = key
            ok = (child != ~np.uint64(0)) & (key >= lo) & (key <= hi)
            if use_skip:
                ok &= child != skip[i]
            m += ok
    return out[:m]


@njit(nogil=True, cache=True)
def _twisty_keys(states, skip, lo, hi, out, args):
    return _keys_core(states, skip, lo, hi, out, _fill, args)


@njit(nogil=True, cache=True)
def _twisty_keys_checked(states, skip, lo, hi, out, args):
    return _keys_core(states, skip, lo, hi, out, _fill_checked, args)


@njit(inline="always")
def _twisty_undo(key, args):
    tag_bits = args[_TAG]
    t = np.int64(key & np.uint64((1 << tag_bits) - 1))
    return _moved(key >> np.uint64(tag_bits), args[_BA], args[_BB], t, args)


@njit(nogil=True, cache=True)
def _twisty_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _twisty_undo, args
    )


@njit(nogil=True, cache=True)
def _twisty_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _twisty_undo, args)


# -- the dense engine's bitmaps --------------------------------------------------------
# The bitmaps read states in increasing order. The states of a block (those that differ
# only in their low digit: the coordinates of the last sets, or the last orientation)
# share each move's terms but the low digit's: those are summed once a block
# (``base``), and a state's child is one look-up more in a table of the low digit's
# terms (:func:`low_tables`), where _fill divides by every set's sizes again. With
# moves blocked (Illegal lines), or a set computed, each state is its own block.
@njit(inline="always")
def _block(s, a, b, low, base, args):
    """``base[t]``: the first state of ``s``'s block moved by column t of tables ``a``
    and ``b``, less the low digit's term ``low[t]``; returns the block's bounds."""
    n, size = args[_N], args[_LOW]
    first = s - s % size
    _fill(first, a, b, base, args)
    for t in range(n):
        base[t] -= low[t]
    return first, first + size


@njit(inline="always")
def _near(s, lo, base, low, out, args):
    """Each move's term (child, or parent) of ``s`` in its block from ``lo``."""
    n = args[_N]
    row = np.int64(s - lo) * n
    for t in range(n):
        out[t] = base[t] + low[row + t]


@njit(inline="always")
def _forward_block(s, base, args):
    return _block(s, args[_FA], args[_FB], args[_LOW_FORWARD], base, args)


@njit(inline="always")
def _backward_block(s, base, args):
    return _block(s, args[_BA], args[_BB], args[_LOW_BACK], base, args)


@njit(inline="always")
def _children(s, lo, base, out, args):
    _near(s, lo, base, args[_LOW_FORWARD], out, args)


@njit(inline="always")
def _parents(c, lo, base, out, args):
    _near(c, lo, base, args[_LOW_BACK], out, args)


@njit(inline="always")
def _back(c, lo, base, t, args):
    """``c`` moved back by move t's inverse."""
    return base[t] + args[_LOW_BACK][np.int64(c - lo) * args[_N] + t]


@njit(inline="always")
def _alone(s, base, args):
    """A block of one state (moves blocked, or a set computed): its moves are made in
    full."""
    return s, s + np.uint64(1)


@njit(inline="always")
def _children_checked(s, lo, base, out, args):
    _fill_checked(s, args[_FA], args[_FB], out, args)


@njit(inline="always")
def _parents_checked(c, lo, base, out, args):
    """``c`` moved back by each move's inverse; ``~0`` for a move that does not reach
    ``c`` (c is an Illegal position: no move reaches it)."""
    _fill_checked(c, args[_BA], args[_BB], out, args)
    for t in range(len(out)):
        p = out[t]
        if p != ~np.uint64(0) and _moved(p, args[_FA], args[_FB], t, args) == ~np.uint64(0):
            out[t] = ~np.uint64(0)


@njit(inline="always")
def _back_checked(c, lo, base, t, args):
    return _moved(c, args[_BA], args[_BB], t, args)


@njit(nogil=True, cache=True)
def _twisty_forward(frontier, seen, nxt, move, groups, bit_index, args):
    kids, base = np.empty(args[_N], np.uint64), np.empty(args[_N], np.uint64)
    block, fill = _forward_block, _children
    return forward_core(frontier, seen, nxt, move, kids, base, groups, bit_index, block, fill, args)


@njit(nogil=True, cache=True)
def _twisty_forward_checked(frontier, seen, nxt, move, groups, bit_index, args):
    kids, base = np.empty(args[_N], np.uint64), np.empty(0, np.uint64)
    block, fill = _alone, _children_checked
    return forward_core(frontier, seen, nxt, move, kids, base, groups, bit_index, block, fill, args)


@njit(nogil=True, cache=True)
def _twisty_backward(frontier, seen, nxt, move, size, bit_index, args):
    kids, base = np.empty(args[_N], np.uint64), np.empty(args[_N], np.uint64)
    block, fill = _backward_block, _parents
    return backward_core(frontier, seen, nxt, move, size, kids, base, bit_index, block, fill, args)


@njit(nogil=True, cache=True)
def _twisty_backward_checked(frontier, seen, nxt, move, size, bit_index, args):
    kids, base = np.empty(args[_N], np.uint64), np.empty(0, np.uint64)
    block, fill = _alone, _parents_checked
    return backward_core(frontier, seen, nxt, move, size, kids, base, bit_index, block, fill, args)


@njit(nogil=True, cache=True)
def _twisty_rows(nxt, move, pos, states, parents, bit_index, args):
    base = np.empty(args[_N], np.uint64)
    block = _backward_block
    return rows_core(nxt, move, pos, states, parents, base, bit_index, block, _back, args)


@njit(nogil=True, cache=True)
def _twisty_rows_checked(nxt, move, pos, states, parents, bit_index, args):
    base = np.empty(0, np.uint64)
    block = _alone
    return rows_core(nxt, move, pos, states, parents, base, bit_index, block, _back_checked, args)


#: The most entries (a state's terms in a block, times the moves) of a low digit's table.
LOW_ENTRIES = 1 << 17


def low_tables(tabs: MoveTables, turns: int, inverse: np.ndarray) -> tuple:
    """The size of a block (the states that differ in their low digit only) and the
    terms of its low digit, for the moves and their inverses: each move's term of
    every low digit (``digit * turns + t``). The low digit is the coordinates of the
    last sets together, as many as fit :data:`LOW_ENTRIES`; else the last set's
    orientation (its terms the set's orientation table), up to 16 times as many;
    else none (a block of one state)."""
    weights, sizes = tabs.pack.weights, [c.size for c in tabs.pack.sets]
    k = len(sizes)
    while k > 0 and weights[k - 1] * sizes[k - 1] * turns <= LOW_ENTRIES:
        k -= 1
    columns = (np.arange(turns), np.asarray(inverse, np.intp))
    last = tabs.sets[-1]
    if k == len(sizes) and last.q * turns > LOW_ENTRIES << 4:  # a block of one state
        return (np.uint64(1), np.zeros(turns, np.uint64), np.zeros(turns, np.uint64))
    if k == len(sizes):  # no whole set fits: the last one's orientation
        return (np.uint64(last.q), *(last.b[:, c].astype(np.uint64).ravel() for c in columns))
    size = weights[k] * sizes[k]  # the sets from k on
    digit = np.arange(size, dtype=np.uint64)
    out = []
    for cols in columns:
        terms = np.zeros((size, turns), np.uint64)
        for j in range(k, len(sizes)):
            t, q = tabs.sets[j], np.uint64(tabs.sets[j].q)
            c = digit // np.uint64(weights[j]) % np.uint64(sizes[j])
            a, b = t.a[c // q][:, cols].astype(np.uint64), t.b[c % q][:, cols].astype(np.uint64)
            terms += (a * q + b) * np.uint64(weights[j])
        out.append(terms.ravel())
    return (np.uint64(size), *out)


# -- sets whose orientations are computed (tables.py's COUPLED and COMPUTED) ----------
#: args[12]: the data of such sets (:func:`_extra`), in the kernels of a puzzle that has one.
_EXT = 12


@njit(inline="always")
def _decoded(kind, r, q, m, o, digits, implied, total, at, ko, labels, counted, wild, counts,
             work, total0, even, parity, seq, tw, dv):  # fmt: skip
    """A computed set's label indices (tabled from ``at`` in ``labels``, or unranked) of
    arrangement ``r`` into ``seq``, and each position's piece's digit as it moves into
    ``dv`` (:func:`ranks.twists_into`'s twists of ``q``; -1 for a piece that keeps no
    digit, -2 for one whose digit is always 0: version 1's ``?``). ``ko``: the set's
    first label in ``counted`` and ``wild``; no array sliced in the common case (a
    slice costs a reference count)."""
    if kind == COUPLED:
        for j in range(m):
            seq[j] = labels[at + j]
    else:
        k = len(counts)
        ranks._arrangement(np.uint64(r), counts, work[:k], total0, even, parity, seq[:m])
    kept = 0
    for j in range(m):
        tw[j] = 0
        if kept < digits and counted[ko + seq[j]]:
            tw[j] = -1
            kept += 1
    for j in range(m - 1, -1, -1):
        if tw[j] == -1:
            tw[j] = np.int64(q % np.uint64(o))
            q //= np.uint64(o)
    if implied:
        rest = 0
        for j in range(m - 1):
            rest += tw[j]
        tw[m - 1] = (total - rest) % o
    for j in range(m):
        v = ko + seq[j]
        dv[j] = (-2 if wild[v] else tw[j]) if counted[v] else -1


@njit(inline="always")
def _oriented(m, o, implied, place, perm, add, dv):
    """A computed set's orientation value after the move whose part starts at ``place`` in
    ``perm``/``add``: the digits read as the pieces land (pack.py's order; the last
    position's left out when ``implied``), a twist below ``2 * o`` before its wrap (no
    division)."""
    q = np.uint64(0)
    for j in range(m - implied):
        v = dv[perm[place + j]]
        if v >= 0:
            d = v + add[place + j]
            if d >= o:
                d -= o
            q = q * np.uint64(o) + np.uint64(d)
        elif v == -2:
            q = q * np.uint64(o)
    return q


@njit(inline="never")
def _ranked(m, place, perm, seq, moved, forbid, counts, work, total0, even):
    """A computed set's arrangement rank after a move (``~0``: blocked)."""
    k = len(counts)
    for j in range(m):
        moved[j] = seq[perm[place + j]]
        if forbid[j * k + moved[j]]:
            return ~np.uint64(0)
    return ranks._rank(moved[:m], counts, work[:k], total0, even)


@njit(inline="always")
def _mixed_fill(s, a, b, perm, add, out, cx):
    """:func:`_fill_checked` where some sets are computed (``cx``: the arguments, and
    room to work in)."""
    args, seq, tw, moved, dv, work = cx
    aoff, boff, qe, sizes, weights, n = args[4], args[5], args[6], args[7], args[8], args[9]
    ext = args[_EXT]
    kinds, pieces, os_, digits, implied, totals = ext[0], ext[1], ext[2], ext[3], ext[4], ext[5]
    loff, labels, poff, koff, counted, nk = ext[6], ext[7], ext[8], ext[13], ext[14], ext[15]
    counts, total0, evens, parities, wild, foff, forbid = (
        ext[16], ext[17], ext[18], ext[19], ext[20], ext[21], ext[22],
    )  # fmt: skip
    out[:] = 0
    for k in range(len(sizes) - 1, -1, -1):
        c = s % sizes[k]
        s = s // sizes[k]
        r = np.int64(c // qe[k])
        q = c - np.uint64(r) * qe[k]
        kind = kinds[k]
        if kind == TABLED:
            _tabled_into(
                out, a, b, aoff[k] + r * n, boff[k] + np.int64(q) * n, n, qe[k], weights[k]
            )
            continue
        m, o, ko, kk = pieces[k], os_[k], koff[k], nk[k]
        its_counts = counts[ko : ko + kk]
        _decoded(kind, r, q, m, o, digits[k], implied[k], totals[k], loff[k] + r * m, ko, labels,
                 counted, wild, its_counts, work, total0[k], evens[k], parities[k], seq, tw,
                 dv)  # fmt: skip
        _computed_into(out, kind, a, aoff[k] + r * n, n, m, o, m - implied[k], poff[k], perm,
                       add, dv, qe[k], weights[k], seq, moved, forbid[foff[k] :], its_counts,
                       work, total0[k], evens[k])  # fmt: skip


@njit(inline="always")
def _tabled_into(out, a, b, ra, qb, n, qe, w):
    """A tabled set's part of each move's child, added into ``out`` (~0 stays blocked)."""
    none = ~np.uint64(0)
    for t in range(n):
        x = a[ra + t]
        if x == _BLOCKED:
            out[t] = none
        elif out[t] != none:
            out[t] += (np.uint64(x) * qe + np.uint64(b[qb + t])) * w


@njit(inline="always")
def _computed_into(out, kind, a, ra, n, m, o, last, first, perm, add, dv, qe, w, seq, moved,
                   forbid, counts, work, total0, even):  # fmt: skip
    """A computed set's part of each move's child (its rank tabled at ``ra`` in ``a``,
    or computed; its digits ``dv``; its moves' parts from ``first`` in ``perm``/``add``),
    added into ``out``. The orientation value is :func:`_oriented`, written out here:
    a function called in the loop over the moves costs a reference count an array."""
    none = ~np.uint64(0)
    for t in range(n):
        if out[t] == none:
            continue
        place = first + t * m
        if kind == COUPLED:
            x = a[ra + t]
            rank = none if x == _BLOCKED else np.uint64(x)
        else:
            rank = _ranked(m, place, perm, seq, moved, forbid, counts, work, total0, even)
        if rank == none:
            out[t] = none
            continue
        value = np.uint64(0)
        for j in range(last):
            v = dv[perm[place + j]]
            if v >= 0:
                d = v + add[place + j]
                if d >= o:
                    d -= o
                value = value * np.uint64(o) + np.uint64(d)
            elif v == -2:
                value = value * np.uint64(o)
        out[t] += (rank * qe + value) * w


@njit(inline="always")
def _mixed_moved(s, a, b, perm, add, t, cx):
    """:func:`_moved` where some sets are computed."""
    args, seq, tw, moved, dv, work = cx
    aoff, boff, qe, sizes, weights, n = args[4], args[5], args[6], args[7], args[8], args[9]
    ext = args[_EXT]
    kinds, pieces, os_, digits, implied, totals = ext[0], ext[1], ext[2], ext[3], ext[4], ext[5]
    loff, labels, poff, koff, counted, nk = ext[6], ext[7], ext[8], ext[13], ext[14], ext[15]
    counts, total0, evens, parities, wild, foff, forbid = (
        ext[16], ext[17], ext[18], ext[19], ext[20], ext[21], ext[22],
    )  # fmt: skip
    none = ~np.uint64(0)
    out = np.uint64(0)
    for k in range(len(sizes) - 1, -1, -1):
        c = s % sizes[k]
        s = s // sizes[k]
        r = np.int64(c // qe[k])
        q = c - np.uint64(r) * qe[k]
        kind = kinds[k]
        x = a[aoff[k] + r * n + t] if kind != COMPUTED else 0
        if kind == TABLED:
            if x == _BLOCKED:
                return none
            out += (np.uint64(x) * qe[k] + np.uint64(b[boff[k] + np.int64(q) * n + t])) * weights[k]
            continue
        m, o, ko, kk = pieces[k], os_[k], koff[k], nk[k]
        its_counts = counts[ko : ko + kk]
        _decoded(kind, r, q, m, o, digits[k], implied[k], totals[k], loff[k] + r * m, ko, labels,
                 counted, wild, its_counts, work, total0[k], evens[k], parities[k], seq, tw,
                 dv)  # fmt: skip
        place = poff[k] + t * m
        if kind == COUPLED:
            rank = none if x == _BLOCKED else np.uint64(x)
        else:
            rank = _ranked(m, place, perm, seq, moved, forbid[foff[k] :], its_counts, work,
                           total0[k], evens[k])  # fmt: skip
        if rank == none:
            return none
        out += (rank * qe[k] + _oriented(m, o, implied[k], place, perm, add, dv)) * weights[k]
    return out


@njit(inline="always")
def _cx(args):
    """The arguments with room for the computed sets' work (made in each kernel call:
    threads share no room): a set's labels, twists, moved labels and digits, and the
    ranks' counts."""
    m = args[_EXT][24]
    room = (np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64))
    return args, *room, np.empty(m, np.int64), np.empty(args[_EXT][25], np.uint64)


@njit(inline="always")
def _mixed_children(s, out, cx):
    args = cx[0]
    ext = args[_EXT]
    _mixed_fill(s, args[_FA], args[_FB], ext[9], ext[10], out, cx)


@njit(inline="always")
def _mixed_parents(c, out, cx):
    """``c`` moved back by each move's inverse; ``~0`` for a move that does not reach it."""
    args = cx[0]
    ext = args[_EXT]
    _mixed_fill(c, args[_BA], args[_BB], ext[11], ext[12], out, cx)
    for t in range(len(out)):
        p = out[t]
        fa, fb = args[_FA], args[_FB]
        if p != ~np.uint64(0) and _mixed_moved(p, fa, fb, ext[9], ext[10], t, cx) == ~np.uint64(0):
            out[t] = ~np.uint64(0)


@njit(inline="always")
def _mixed_back(c, t, cx):
    args = cx[0]
    ext = args[_EXT]
    return _mixed_moved(c, args[_BA], args[_BB], ext[11], ext[12], t, cx)


@njit(inline="always")
def _mixed_undo(key, cx):
    tag_bits = cx[0][_TAG]
    t = np.int64(key & np.uint64((1 << tag_bits) - 1))
    return _mixed_back(key >> np.uint64(tag_bits), t, cx)


@njit(nogil=True, cache=True)
def _mixed_keys(states, skip, lo, hi, out, args):
    cx = _cx(args)
    n, tag_bits = args[_N], args[_TAG]
    kids = np.empty(n, np.uint64)
    use_skip = len(skip) > 0
    m = 0
    for i in range(len(states)):
        if m + n > len(out):
            out = room(out, m, n)
        _mixed_children(states[i], kids, cx)
        for t in range(n):
            child = kids[t]
            key = (child << np.uint64(tag_bits)) | np.uint64(t)
            out[m] = key
            ok = (child != ~np.uint64(0)) & (key >= lo) & (key <= hi)
            if use_skip:
                ok &= child != skip[i]
            m += ok
    return out[:m]


@njit(nogil=True, cache=True)
def _mixed_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _mixed_undo,
        _cx(args),
    )  # fmt: skip


@njit(nogil=True, cache=True)
def _mixed_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _mixed_undo, _cx(args))


# The bitmaps' kernels of a puzzle with a computed set: each state a block of its own
# (a block's low digit's terms are its sets' tables, :func:`low_tables`, which a
# computed set has not).
@njit(inline="always")
def _mixed_near_children(s, lo, base, out, cx):
    _mixed_children(s, out, cx)


@njit(inline="always")
def _mixed_near_parents(c, lo, base, out, cx):
    _mixed_parents(c, out, cx)


@njit(inline="always")
def _mixed_near_parents_plain(c, lo, base, out, cx):
    """``c`` moved back by each move's inverse (no move is ever blocked)."""
    args = cx[0]
    ext = args[_EXT]
    _mixed_fill(c, args[_BA], args[_BB], ext[11], ext[12], out, cx)


@njit(inline="always")
def _mixed_near_back(c, lo, base, t, cx):
    return _mixed_back(c, t, cx)


@njit(nogil=True, cache=True)
def _mixed_forward(frontier, seen, nxt, move, groups, bit_index, args):
    kids, base, cx = np.empty(args[_N], np.uint64), np.empty(0, np.uint64), _cx(args)
    block, near = _alone, _mixed_near_children
    return forward_core(frontier, seen, nxt, move, kids, base, groups, bit_index, block, near, cx)


@njit(nogil=True, cache=True)
def _mixed_backward_plain(frontier, seen, nxt, move, size, bit_index, args):
    kids, base, cx = np.empty(args[_N], np.uint64), np.empty(0, np.uint64), _cx(args)
    block, near = _alone, _mixed_near_parents_plain
    return backward_core(frontier, seen, nxt, move, size, kids, base, bit_index, block, near, cx)


@njit(nogil=True, cache=True)
def _mixed_backward(frontier, seen, nxt, move, size, bit_index, args):
    kids, base, cx = np.empty(args[_N], np.uint64), np.empty(0, np.uint64), _cx(args)
    block, near = _alone, _mixed_near_parents
    return backward_core(frontier, seen, nxt, move, size, kids, base, bit_index, block, near, cx)


@njit(nogil=True, cache=True)
def _mixed_rows(nxt, move, pos, states, parents, bit_index, args):
    base, block, undo = np.empty(0, np.uint64), _alone, _mixed_near_back
    return rows_core(nxt, move, pos, states, parents, base, bit_index, block, undo, _cx(args))


def _extra(tabs: MoveTables, turns: int, inv: np.ndarray) -> tuple:
    """The computed sets' data, flat, each set's offsets into it (the kernels read them
    by index: see :func:`_decoded` and :func:`_after`)."""
    sets = list(zip(tabs.pack.sets, tabs.sets, strict=True))
    pieces = [c.n for c, _ in sets]
    labels_at = [len(c.labels) for c, _ in sets]
    koff = np.cumsum([0, *labels_at[:-1]]).astype(np.int64)
    poff = np.cumsum([0] + [m * turns for m in pieces[:-1]]).astype(np.int64)
    tables_ = [t.labels.ravel() for _, t in sets]
    loff = np.cumsum([0] + [len(x) for x in tables_[:-1]]).astype(np.int64)
    forbids = [tables.forbidden(c, [r for r in tabs.rules if r.set == i]).ravel()
               for i, (c, _) in enumerate(sets)]  # fmt: skip
    foff = np.cumsum([0] + [len(f) for f in forbids[:-1]]).astype(np.int64)

    def parts(cols: np.ndarray, field: str) -> np.ndarray:
        rows = [getattr(tabs.moves[int(t)][i], field) for i in range(len(sets)) for t in cols]
        return np.array([x for row in rows for x in row], np.int64)

    def each(f) -> np.ndarray:
        return np.array([f(c) for c, _ in sets], np.int64)

    fwd = np.arange(turns)
    return (
        np.array([t.kind for _, t in sets], np.int64),  # 0
        np.array(pieces, np.int64),  # 1
        each(lambda c: c.o),  # 2
        each(lambda c: c.digits),  # 3
        each(lambda c: int(c.implied)),  # 4
        each(lambda c: c.total),  # 5
        loff,  # 6
        np.concatenate(tables_),  # 7: uint8
        poff,  # 8
        parts(fwd, "perm"),  # 9
        parts(fwd, "twist"),  # 10
        parts(inv, "perm"),  # 11
        parts(inv, "twist"),  # 12
        koff,  # 13
        np.array([x for c, _ in sets for x in c.counted], np.bool_),  # 14
        np.array(labels_at, np.int64),  # 15
        np.array([x for c, _ in sets for x in c.counts], np.uint64),  # 16
        np.array([multinomial(c.counts) for c, _ in sets], np.uint64),  # 17
        np.array([c.even for c, _ in sets], np.bool_),  # 18
        each(lambda c: c.parity),  # 19
        np.array([x for c, _ in sets for x in c.wild], np.bool_),  # 20
        foff,  # 21
        np.concatenate(forbids).astype(np.bool_),  # 22
        np.array([c.twists for c, _ in sets], np.uint64),  # 23
        max(pieces),  # 24
        max(labels_at),  # 25
    )


# -- the dense engine's marks (a state its own rank; at most 4 moves, each undone by one)
@njit(nogil=True, cache=True)
def _twisty_marked_keys(states, skip, back, out, scratch, args):
    """Keys ``child << 2 | tag`` (``tag``: the child's move back, ``args[_INV][t]``) of
    every move but a move ``t`` with bit ``t`` of ``back[i]`` set, NO_KEY for a move to
    ``skip[i]``; returns how many."""
    n, inverse = args[_N], args[_INV]
    kids = np.empty(n, np.uint64)
    use_skip, use_back = len(skip) > 0, len(back) > 0
    m = 0
    for i in range(len(states)):
        _fill(states[i], args[_FA], args[_FB], kids, args)
        for t in range(n):
            if use_back and (back[i] >> t) & 1:
                continue  # a move back to a parent
            c = kids[t]
            key = np.uint32((c << np.uint64(2)) | np.uint64(inverse[t]))
            out[m] = NO_KEY if use_skip and c == skip[i] else key
            m += 1
    return m


@njit(inline="always")
def _same(s, args):
    return s


@njit(inline="always")
def _marked_undo(key, args):
    """The parent of a key ``child << 2 | tag``: the child moved by its move ``tag``."""
    t = np.int64(key & np.uint64(3))
    return _moved(key >> np.uint64(2), args[_FA], args[_FB], t, args)


@njit(nogil=True, cache=True)
def _twisty_scan(marks, seen, w0, w1, states, parents, back, args):
    return scan_core(marks, seen, w0, w1, states, parents, back, _same, _marked_undo, args)


@njit(nogil=True, cache=True)
def _twisty_mark(states, seen, args):
    mark_core(states, seen, _same, args)


def _marks(args: tuple, inverse: np.ndarray, size: int) -> MarkKernels | None:
    """The marks' kernels, where they serve: at most :data:`TAGS` moves, none ever
    blocked, each move's inverse a move (its tag), keys within 32 bits."""
    turns = args[_N]
    if not args[_PLAIN] or turns > TAGS or any(int(i) >= turns for i in inverse):
        return None
    if size << 2 >= int(NO_KEY):
        return None
    with_inverse = (*args, np.asarray(inverse, np.int64))
    return MarkKernels(_twisty_marked_keys, _twisty_scan, _twisty_mark, with_inverse)


def kernel_args(tabs: MoveTables, turns: int, inverse: np.ndarray) -> tuple:
    """The arguments every kernel takes: the moves' tables and their inverses' (flat,
    ``turns`` columns each), each set's offsets in them, orientation count, size and
    weight; the moves, the tag bits, and whether no move is ever blocked; and, when
    some set is computed, that data (:func:`_extra`)."""
    inv = np.asarray(inverse, np.intp)

    def flat(tables: list[np.ndarray], cols: np.ndarray) -> np.ndarray:
        if len(tables) == 1 and np.array_equal(cols, np.arange(tables[0].shape[1])):
            return tables[0].ravel()  # the table itself (a pattern table's one set)
        return np.concatenate([t[:, cols].ravel() for t in tables])

    fwd = np.arange(turns)
    a_tables, b_tables = [t.a for t in tabs.sets], [t.b for t in tabs.sets]
    aoff = np.cumsum([0] + [len(t) * turns for t in a_tables[:-1]]).astype(np.int64)
    boff = np.cumsum([0] + [len(t) * turns for t in b_tables[:-1]]).astype(np.int64)
    qe = np.array([t.q for t in tabs.sets], np.uint64)
    sizes = np.array([c.size for c in tabs.pack.sets], np.uint64)
    weights = np.array(tabs.pack.weights, np.uint64)
    tag_bits = max(1, (turns - 1).bit_length())
    plain = not any((t == _BLOCKED).any() for t in a_tables)
    tables_ = (flat(a_tables, fwd), flat(b_tables, fwd), flat(a_tables, inv), flat(b_tables, inv))
    base = (*tables_, aoff, boff, qe, sizes, weights, turns, tag_bits, plain)
    if all(t.kind == TABLED for t in tabs.sets):
        return base
    return (*base, _extra(tabs, turns, inv))


def twisty_moves(tabs: MoveTables, turns: int, inverse: np.ndarray, groups: np.ndarray) -> Kernels:
    """The kernels for the first ``turns`` columns of the tables (``inverse[t]``: the
    column that undoes turn t), with the dense engine's bitmaps over the states."""
    args = kernel_args(tabs, turns, inverse)
    mixed = len(args) > _EXT
    plain = args[_PLAIN] and not (mixed and tabs.rules)  # no move is ever blocked
    groups = np.asarray(groups, np.int64)
    if mixed:
        backward = _mixed_backward_plain if plain else _mixed_backward
        bitmaps = BitmapKernels(_mixed_forward, backward, _mixed_rows, args, groups)
    else:
        bitmaps = BitmapKernels(
            _twisty_forward if plain else _twisty_forward_checked,
            _twisty_backward if plain else _twisty_backward_checked,
            _twisty_rows if plain else _twisty_rows_checked,
            (*args, *low_tables(tabs, turns, inverse)),
            groups,
        )
    # The marks' kernels read tabled sets only: a computed set's puzzle takes the bitmaps.
    marks = None if mixed else _marks(args, inverse, tabs.pack.size)
    space = DenseSpace(tabs.pack.size, turns, marks=marks, bitmaps=bitmaps)
    if mixed:
        return Kernels(args[_TAG], _mixed_keys, args, _mixed_resolve, weigher=_mixed_weigh,
                       space=space)  # fmt: skip
    keys = _twisty_keys if plain else _twisty_keys_checked
    return Kernels(args[_TAG], keys, args, _twisty_resolve, weigher=_twisty_weigh, space=space)
