"""Peg jumps as compiled kernels for the fast level step (packed.py).

A key is ``child << 7 | j`` for jump j (at most 128 jumps, so boards of up to
57 holes): the parent is the child with jump j's three bits flipped back.
Imported on first use, like tile_moves.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from pipeline.packed import Moves, room

TAG_BITS = 7
_DEBRUIJN = 0x03F7_9D71_B4CB_0A89
_BIT_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    _BIT_INDEX[((_DEBRUIJN << _i) & 0xFFFF_FFFF_FFFF_FFFF) >> 58] = _i


@njit(nogil=True)
def _peg_keys(states, skip, lo, hi, out, args):
    """Every jump of every state: for each empty hole, the jumps landing in it."""
    into, flip, need, board, bit_index = args
    width = into.shape[1]
    most = width * into.shape[0]  # slots one state may write at most
    m = 0
    for i in range(len(states)):
        s = states[i]
        holes = ~s & board
        if m + most > len(out):
            out = room(out, m, most)
        while holes:
            low = holes & (~holes + np.uint64(1))
            t = bit_index[(low * np.uint64(_DEBRUIJN)) >> np.uint64(58)]
            holes ^= low
            for k in range(width):
                j = into[t, k]
                if j < 0:
                    break
                key = ((s ^ flip[j]) << np.uint64(TAG_BITS)) | np.uint64(j)
                out[m] = key
                m += ((s & flip[j]) == need[j]) & (key >= lo) & (key <= hi)
    return out[:m]


@njit(inline="always")
def _peg_undo(key, args):
    flip = args[1]
    return (key >> np.uint64(TAG_BITS)) ^ flip[key & np.uint64((1 << TAG_BITS) - 1)]


def peg_moves(jumps: Sequence[tuple[int, int, int]], holes: int) -> Moves | None:
    """The kernels for jumps ``(from, over, to)`` on a board of ``holes`` holes, or
    None when a key would not fit (more than 128 jumps or 57 holes)."""
    if len(jumps) > 1 << TAG_BITS or holes + TAG_BITS > 64:
        return None
    landing: list[list[int]] = [[] for _ in range(holes)]
    for j, (_, _, t) in enumerate(jumps):
        landing[t].append(j)
    into = np.full((holes, max(1, max(map(len, landing)))), -1, np.int64)
    for t, js in enumerate(landing):
        into[t, : len(js)] = js
    flip = np.array([(1 << f) | (1 << o) | (1 << t) for f, o, t in jumps], np.uint64)
    need = np.array([(1 << f) | (1 << o) for f, o, _ in jumps], np.uint64)
    args = (into, flip, need, np.uint64((1 << holes) - 1), _BIT_INDEX)
    return Moves(TAG_BITS, _peg_keys, _peg_undo, args)
