"""Pocket cube turns as compiled kernels for the fast level step (packed.py).

A key is ``child << tag_bits | t`` for turn t (4 bits for the 9 turns of the
half-turn metric, 3 for the 6 quarter turns): the parent is the child turned
by t's inverse. A turn is seven table look-ups, one a corner position
(``cube.turn_table``). Imported on first use, like tiles/moves.py.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.engine.packed import Kernels, resolve_core, room, weigh_core

CELLS = 7
BITS = 5


@njit(inline="always")
def _turn(tables, t, s):
    """State ``s`` turned by turn ``t``: the OR of each cell's entry in the turn's table."""
    child = np.uint64(0)
    for p in range(CELLS):
        child |= tables[t, p, (s >> np.uint64(BITS * p)) & np.uint64(31)]
    return child


@njit(nogil=True, cache=True)
def _cube_keys(states, skip, lo, hi, out, args):
    """Every turn of every state whose key lies in [lo, hi], minus the move back to ``skip``."""
    tables, _, tag_bits = args
    n = tables.shape[0]
    use_skip = len(skip) > 0
    m = 0
    for i in range(len(states)):
        if m + n > len(out):
            out = room(out, m, n)
        s = states[i]
        for t in range(n):
            child = _turn(tables, t, s)
            key = (child << np.uint64(tag_bits)) | np.uint64(t)
            out[m] = key
            ok = (key >= lo) & (key <= hi)
            if use_skip:
                ok &= child != skip[i]
            m += ok
    return out[:m]


@njit(inline="always")
def _cube_undo(key, args):
    tables, inverse, tag_bits = args
    t = inverse[key & np.uint64((1 << tag_bits) - 1)]
    return _turn(tables, t, key >> np.uint64(tag_bits))


@njit(nogil=True, cache=True)
def _cube_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _cube_undo, args
    )


@njit(nogil=True, cache=True)
def _cube_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _cube_undo, args)


def cube_moves(tables: np.ndarray, inverse: np.ndarray) -> Kernels:
    """The kernels for these turns (``tables[t]``: cube.turn_table; ``inverse[t]``: t undone)."""
    tag_bits = max(1, (len(tables) - 1).bit_length())
    args = (np.ascontiguousarray(tables), np.ascontiguousarray(inverse), tag_bits)
    return Kernels(tag_bits, _cube_keys, args, _cube_resolve, weigher=_cube_weigh)
