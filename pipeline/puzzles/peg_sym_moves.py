"""Peg jumps into canonical children as compiled kernels (tables ``<board>-sym``).

As peg_moves.py, with each child replaced by its smallest image under the
board's symmetries (byte tables: an image is the OR of its bytes' images).
A key is ``canonical child << 10 | g << 7 | j``: the child of jump j, mapped
by symmetry g to its canonical form, so the parent is the canonical child
mapped back by g's inverse with jump j's three bits flipped back. Imported on
first use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from pipeline.engine.packed import Kernels, bit_position, resolve_core, room
from pipeline.puzzles.peg_moves import TAG_BITS as JUMP_BITS
from pipeline.puzzles.peg_moves import peg_moves
from pipeline.puzzles.peg_sym import byte_tables

#: Bits of the symmetry in a key's tag (up to 8 symmetries).
SYM_BITS = 3
TAG_BITS = JUMP_BITS + SYM_BITS


@njit(inline="always")
def _image(s, tables, g):
    out = np.uint64(0)
    for b in range(tables.shape[1]):
        out |= tables[g, b, (s >> np.uint64(8 * b)) & np.uint64(255)]
    return out


@njit(nogil=True, cache=True)
def _sym_keys(states, skip, lo, hi, out, args):
    """Every legal jump of every state whose key lies in [lo, hi], children canonical."""
    to_grid, grid, left, right, lines, jump_at, flip, bit_index, most, perms, _ = args
    m = 0
    for i in range(len(states)):
        s = states[i]
        if m + most > len(out):
            out = room(out, m, most)
        g = np.uint64(0)
        for b in range(to_grid.shape[0]):
            g |= to_grid[b, (s >> np.uint64(8 * b)) & np.uint64(255)]
        empty = ~g & grid
        for d in range(len(left)):
            over = (g << np.uint64(left[d])) >> np.uint64(right[d])
            far = (over << np.uint64(left[d])) >> np.uint64(right[d])
            land = empty & over & far & lines[d]
            while land:
                low = land & (~land + np.uint64(1))
                land ^= low
                j = jump_at[d, bit_position(low, bit_index)]
                child = s ^ flip[j]
                best = child
                which = 0
                for h in range(1, perms.shape[0]):
                    img = _image(child, perms, h)
                    if img < best:
                        best = img
                        which = h
                tag = np.uint64((which << 7) | j)
                key = (best << np.uint64(TAG_BITS)) | tag
                out[m] = key
                m += (key >= lo) & (key <= hi)
    return out[:m]


@njit(inline="always")
def _sym_undo(key, args):
    flip, inverse = args[6], args[10]
    j = key & np.uint64((1 << JUMP_BITS) - 1)
    g = (key >> np.uint64(JUMP_BITS)) & np.uint64((1 << SYM_BITS) - 1)
    return _image(key >> np.uint64(TAG_BITS), inverse, g) ^ flip[j]


@njit(nogil=True, cache=True)
def _sym_resolve(run_a, run_b, shift, ex_a, ex_b, children, parents, args):
    return resolve_core(run_a, run_b, shift, ex_a, ex_b, children, parents, _sym_undo, args)


def peg_sym_moves(
    holes: Sequence[tuple[int, int]],
    jumps: Sequence[tuple[int, int, int]],
    perms: Sequence[tuple[int, ...]],
) -> Kernels | None:
    """The kernels of the symmetric table, or None when they would not fit."""
    plain = peg_moves(holes, jumps)
    if plain is None or len(perms) > 1 << SYM_BITS or len(holes) + TAG_BITS > 64:
        return None
    args = (*plain.args, byte_tables(perms), byte_tables(perms, inverse=True))
    return Kernels(TAG_BITS, _sym_keys, args, _sym_resolve)
