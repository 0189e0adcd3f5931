"""Twisty moves as compiled kernels: the fast level step's (engine/packed.py) and the
dense search's (engine/dense.py).

A state splits into its sets' coordinates (a division a set), each coordinate
into arrangement and orientation (another), and a move is then two table
look-ups a set: ``A[r, t] * Q + B[q, t]`` (tables.py). The tables are laid
out twice, a row a coordinate and a column a move: once for the moves, once
for their inverses in the same order, so that every kernel reads a state's
moves (or their inverses) from contiguous columns, split once. A packed key
is ``child << tag_bits | t``, the parent the child moved by t's inverse; the
dense search keeps, a state, the move that first reached it.
Imported on first use, like the other ``moves.py`` modules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.engine.dense import NO_MOVE, Dense, backward_core, forward_core, rows_core
from pipeline.engine.packed import Kernels, resolve_core, room, weigh_core
from pipeline.puzzles.twisty.tables import MoveTables

_BLOCKED = 0xFFFF_FFFF
#: Where each part of the kernels' arguments is (see :func:`kernel_args`; numba needs
#: literal indices to slice them: args[4] .. args[9] are aoff, boff, qe, sizes,
#: weights and n).
_FA, _FB, _BA, _BB, _N, _TAG, _PLAIN = 0, 1, 2, 3, 9, 10, 11


@njit(inline="always")
def _fill(s, a, b, out, args):
    """``out[t]``: state ``s`` moved by column t of tables ``a`` and ``b`` (the moves'
    or their inverses'), when no move is blocked. (A branch to :func:`_fill_checked`
    in here made the dense search 1.6 times slower: each has its kernels.)"""
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


# -- the dense search ---------------------------------------------------------------
@njit(inline="always")
def _children(s, out, args):
    _fill(s, args[_FA], args[_FB], out, args)


@njit(inline="always")
def _children_checked(s, out, args):
    _fill_checked(s, args[_FA], args[_FB], out, args)


@njit(inline="always")
def _parents(c, out, args):
    _fill(c, args[_BA], args[_BB], out, args)


@njit(inline="always")
def _parents_checked(c, out, args):
    """``c`` moved back by each move's inverse; ``~0`` for a move that does not reach
    ``c`` (c is an Illegal position: no move reaches it)."""
    _fill_checked(c, args[_BA], args[_BB], out, args)
    for t in range(len(out)):
        p = out[t]
        if p != ~np.uint64(0) and _moved(p, args[_FA], args[_FB], t, args) == ~np.uint64(0):
            out[t] = ~np.uint64(0)


@njit(inline="always")
def _back(c, t, args):
    return _moved(c, args[_BA], args[_BB], t, args)


@njit(nogil=True, cache=True)
def _twisty_forward(frontier, seen, nxt, move, groups, bit_index, args):
    kids = np.empty(args[_N], np.uint64)
    return forward_core(frontier, seen, nxt, move, kids, groups, bit_index, _children, args)


@njit(nogil=True, cache=True)
def _twisty_forward_checked(frontier, seen, nxt, move, groups, bit_index, args):
    kids = np.empty(args[_N], np.uint64)
    fill = _children_checked
    return forward_core(frontier, seen, nxt, move, kids, groups, bit_index, fill, args)


@njit(nogil=True, cache=True)
def _twisty_backward(frontier, seen, nxt, move, size, bit_index, args):
    kids = np.empty(args[_N], np.uint64)
    return backward_core(frontier, seen, nxt, move, size, kids, bit_index, _parents, args)


@njit(nogil=True, cache=True)
def _twisty_backward_checked(frontier, seen, nxt, move, size, bit_index, args):
    kids = np.empty(args[_N], np.uint64)
    fill = _parents_checked
    return backward_core(frontier, seen, nxt, move, size, kids, bit_index, fill, args)


@njit(nogil=True, cache=True)
def _twisty_rows(nxt, move, pos, states, parents, bit_index, args):
    return rows_core(nxt, move, pos, states, parents, bit_index, _back, args)


def kernel_args(tabs: MoveTables, turns: int, inverse: np.ndarray) -> tuple:
    """The arguments every kernel takes: the moves' tables and their inverses' (flat,
    ``turns`` columns each), each set's offsets in them, orientation count, size and
    weight; the moves, the tag bits, and whether no move is ever blocked."""
    inv = np.asarray(inverse, np.intp)

    def flat(tables: list[np.ndarray], cols: np.ndarray) -> np.ndarray:
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
    tables = (flat(a_tables, fwd), flat(b_tables, fwd), flat(a_tables, inv), flat(b_tables, inv))
    return (*tables, aoff, boff, qe, sizes, weights, turns, tag_bits, plain)


def twisty_moves(tabs: MoveTables, turns: int, inverse: np.ndarray, groups: np.ndarray) -> Kernels:
    """The kernels for the first ``turns`` columns of the tables (``inverse[t]``: the
    column that undoes turn t), with the dense search's."""
    args = kernel_args(tabs, turns, inverse)
    plain = args[_PLAIN]
    dense = None
    if turns < NO_MOVE:
        forward = _twisty_forward if plain else _twisty_forward_checked
        backward = _twisty_backward if plain else _twisty_backward_checked
        dense = Dense(
            tabs.pack.size,
            turns,
            forward,
            backward,
            _twisty_rows,
            args,
            np.asarray(groups, np.int64),
        )
    keys = _twisty_keys if plain else _twisty_keys_checked
    return Kernels(args[_TAG], keys, args, _twisty_resolve, weigher=_twisty_weigh, dense=dense)
