"""Twisty moves as compiled kernels for the fast level step (engine/packed.py).

A key is ``child << tag_bits | t`` for move t; the parent is the child moved
by t's inverse (a column of the tables: tables.py). A state splits into its
sets' coordinates (a division a set), each coordinate into arrangement and
orientation (another), and a move is then two table look-ups a set:
``A[r, t] * Q + B[q, t]``. The keys kernel splits a parent once for all its
moves. Imported on first use, like the other ``moves.py`` modules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.engine.packed import Kernels, resolve_core, room, weigh_core
from pipeline.puzzles.twisty.tables import Tables

_BLOCKED = 0xFFFF_FFFF


@njit(inline="always")
def _moved(s, u, args):
    """State ``s`` moved by table column ``u`` (the inverses included); ``~0`` when
    the move is blocked (an Illegal position)."""
    a, b, aoff, boff, qe, sizes, weights, cols, _, _, _ = args
    out = np.uint64(0)
    for i in range(len(sizes) - 1, -1, -1):
        c = s % sizes[i]
        s = s // sizes[i]
        r = c // qe[i]
        q = c - r * qe[i]
        x = a[aoff[i] + np.int64(r) * cols + u]
        if x == _BLOCKED:
            return ~np.uint64(0)
        out += (np.uint64(x) * qe[i] + np.uint64(b[boff[i] + np.int64(q) * cols + u])) * weights[i]
    return out


@njit(nogil=True, cache=True)
def _twisty_keys(states, skip, lo, hi, out, args):
    """Every move of every state whose key lies in [lo, hi], minus the move back to ``skip``."""
    a, b, aoff, boff, qe, sizes, weights, cols, n, _, tag_bits = args
    kids = np.empty(n, np.uint64)
    use_skip = len(skip) > 0
    m = 0
    for i in range(len(states)):
        if m + n > len(out):
            out = room(out, m, n)
        s = states[i]
        kids[:] = 0
        for k in range(len(sizes) - 1, -1, -1):
            c = s % sizes[k]
            s = s // sizes[k]
            r = np.int64(c // qe[k])
            q = np.int64(c - np.uint64(r) * qe[k])
            ra = aoff[k] + r * cols
            qb = boff[k] + q * cols
            for t in range(n):
                x = a[ra + t]
                if x == _BLOCKED:
                    kids[t] = ~np.uint64(0)
                elif kids[t] != ~np.uint64(0):
                    kids[t] += (np.uint64(x) * qe[k] + np.uint64(b[qb + t])) * weights[k]
        for t in range(n):
            child = kids[t]
            key = (child << np.uint64(tag_bits)) | np.uint64(t)
            out[m] = key
            ok = (child != ~np.uint64(0)) & (key >= lo) & (key <= hi)
            if use_skip:
                ok &= child != skip[i]
            m += ok
    return out[:m]


@njit(inline="always")
def _twisty_undo(key, args):
    inverse, tag_bits = args[9], args[10]
    t = key & np.uint64((1 << tag_bits) - 1)
    return _moved(key >> np.uint64(tag_bits), inverse[t], args)


@njit(nogil=True, cache=True)
def _twisty_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _twisty_undo, args
    )


@njit(nogil=True, cache=True)
def _twisty_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _twisty_undo, args)


def kernel_args(tabs: Tables, turns: int, inverse: np.ndarray) -> tuple:
    """The tables as flat arrays with each set's offsets, sizes and weights."""
    cols = tabs.sets[0].a.shape[1]
    a = np.concatenate([t.a.ravel() for t in tabs.sets])
    b = np.concatenate([t.b.ravel() for t in tabs.sets])
    aoff = np.cumsum([0] + [t.a.size for t in tabs.sets[:-1]]).astype(np.int64)
    boff = np.cumsum([0] + [t.b.size for t in tabs.sets[:-1]]).astype(np.int64)
    qe = np.array([t.q for t in tabs.sets], np.uint64)
    sizes = np.array([c.size for c in tabs.pack.sets], np.uint64)
    weights = np.array(tabs.pack.weights, np.uint64)
    tag_bits = max(1, (turns - 1).bit_length())
    inv = np.ascontiguousarray(inverse, np.int64)
    return (a, b, aoff, boff, qe, sizes, weights, cols, turns, inv, tag_bits)


def twisty_moves(tabs: Tables, turns: int, inverse: np.ndarray) -> Kernels:
    """The kernels for the first ``turns`` columns of the tables (``inverse[t]``: the
    column that undoes turn t)."""
    args = kernel_args(tabs, turns, inverse)
    return Kernels(args[-1], _twisty_keys, args, _twisty_resolve, weigher=_twisty_weigh)
