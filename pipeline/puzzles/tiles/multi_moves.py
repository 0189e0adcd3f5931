"""Multi-tile slides as compiled kernels for the fast level step (packed.py).

A key is ``child << tag_bits | k``: k is the index of the slide back (from the
child's blank to the parent's) among the child's slides, so the parent is that
slide applied to the child. Imported on first use, like tiles/moves.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from pipeline.engine.packed import BIT_INDEX, Kernels, resolve_core, room, weigh_core
from pipeline.puzzles.tiles.moves import _blank


@njit(nogil=True, cache=True)
def _multi_keys(states, skip, lo, hi, out, args):
    """Keys of every slide; writes every slot of the blank's row and advances only past
    real slides (a padded slot has an empty mask: the state itself)."""
    degree, masks, left, right, tags, low, bit_index, width, tag_bits = args
    use_skip = len(skip) > 0
    m = 0
    for i in range(len(states)):
        if m + width > len(out):
            out = room(out, m, width)
        s = states[i]
        b = _blank(s, low, bit_index)
        for k in range(width):
            moved = s & masks[b, k]
            child = (s ^ moved) | ((moved << np.uint64(left[b, k])) >> np.uint64(right[b, k]))
            key = (child << np.uint64(tag_bits)) | np.uint64(tags[b, k])
            out[m] = key
            ok = (k < degree[b]) & (key >= lo) & (key <= hi)
            if use_skip:
                ok &= child != skip[i]
            m += ok
    return out[:m]


@njit(inline="always")
def _multi_undo(key, args):
    _, masks, left, right, _, low, bit_index, _, tag_bits = args
    s = key >> np.uint64(tag_bits)
    c = _blank(s, low, bit_index)
    k = np.int64(key & np.uint64((1 << tag_bits) - 1))
    moved = s & masks[c, k]
    return (s ^ moved) | ((moved << np.uint64(left[c, k])) >> np.uint64(right[c, k]))


@njit(nogil=True, cache=True)
def _multi_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _multi_undo, args
    )


@njit(nogil=True, cache=True)
def _multi_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _multi_undo, args)


def multi_moves(slides: Sequence[Sequence[tuple[int, int, int, int]]], low: int) -> Kernels | None:
    """The kernels for a slide table (multi.slide_table: per blank cell, the slides
    ``(to, mask, left, right)``), or None when a tag does not fit beside the state."""
    n = len(slides)
    width = max(len(s) for s in slides)
    tag_bits = max(1, (width - 1).bit_length())
    if 4 * n + tag_bits > 64:
        return None
    degree = np.array([len(s) for s in slides], np.int64)
    masks = np.zeros((n, width), np.uint64)
    left = np.zeros((n, width), np.int64)
    right = np.zeros((n, width), np.int64)
    tags = np.zeros((n, width), np.int64)
    for b, row in enumerate(slides):
        for k, (t, mask, shl, shr) in enumerate(row):
            masks[b, k], left[b, k], right[b, k] = mask, shl, shr
            # The slide back from t to b: its index among t's slides names this move.
            tags[b, k] = [s[0] for s in slides[t]].index(b)
    args = (degree, masks, left, right, tags, np.uint64(low), BIT_INDEX, width, tag_bits)
    return Kernels(tag_bits, _multi_keys, args, _multi_resolve, weigher=_multi_weigh)
