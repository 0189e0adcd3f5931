"""Peg jumps into canonical children as compiled kernels (tables ``<board>-sym``).

As moves.py, with each child replaced by its smallest image under the
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

from pipeline.engine.packed import Kernels, resolve_core
from pipeline.puzzles.pegs.moves import TAG_BITS as JUMP_BITS
from pipeline.puzzles.pegs.moves import each_jump, peg_moves
from pipeline.puzzles.pegs.symmetries import byte_tables

#: Bits of the symmetry in a key's tag (up to 8 symmetries).
SYM_BITS = 3
TAG_BITS = JUMP_BITS + SYM_BITS


@njit(inline="always")
def _image(s, tables, g):
    out = np.uint64(0)
    for b in range(tables.shape[1]):
        out |= tables[g, b, (s >> np.uint64(8 * b)) & np.uint64(255)]
    return out


@njit(inline="always")
def _images(s, extra):
    """Every image of board ``s`` into ``mine`` (each jump's child maps by XOR)."""
    perms, mine = extra[1], extra[3]
    for h in range(1, perms.shape[0]):
        mine[h] = _image(s, perms, h)


@njit(inline="always")
def _sym_key(out, m, lo, hi, s, j, extra):
    """The key of jump ``j``'s child mapped to its smallest image."""
    flip, perms, flips, mine = extra
    best = s ^ flip[j]
    which = 0
    for h in range(1, perms.shape[0]):
        img = mine[h] ^ flips[h, j]  # a symmetry maps a XOR to the XOR of images
        if img < best:
            best = img
            which = h
    key = (best << np.uint64(TAG_BITS)) | np.uint64((which << JUMP_BITS) | j)
    out[m] = key
    return m + ((key >= lo) & (key <= hi))


@njit(nogil=True, cache=True)
def _sym_keys(states, skip, lo, hi, out, args):
    """Every legal jump of every state whose key lies in [lo, hi], children canonical."""
    perms = args[9]
    extra = (args[6], perms, args[11], np.empty(perms.shape[0], np.uint64))
    return each_jump(states, lo, hi, out, args, _images, _sym_key, extra)


@njit(inline="always")
def _sym_undo(key, args):
    flip, inverse = args[6], args[10]
    j = key & np.uint64((1 << JUMP_BITS) - 1)
    g = (key >> np.uint64(JUMP_BITS)) & np.uint64((1 << SYM_BITS) - 1)
    return _image(key >> np.uint64(TAG_BITS), inverse, g) ^ flip[j]


@njit(nogil=True, cache=True)
def _sym_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _sym_undo, args
    )


def peg_sym_moves(
    holes: Sequence[tuple[int, int]],
    jumps: Sequence[tuple[int, int, int]],
    perms: Sequence[tuple[int, ...]],
) -> Kernels | None:
    """The kernels of the symmetric table, or None when they would not fit."""
    plain = peg_moves(holes, jumps)
    if plain is None or len(perms) > 1 << SYM_BITS or len(holes) + TAG_BITS > 64:
        return None
    tables = byte_tables(perms)
    flips = np.array(
        [[_permute(p, (1 << f) | (1 << o) | (1 << t)) for f, o, t in jumps] for p in perms],
        np.uint64,
    )
    args = (*plain.args, tables, byte_tables(perms, inverse=True), flips)
    return Kernels(TAG_BITS, _sym_keys, args, _sym_resolve)


def _permute(perm: Sequence[int], state: int) -> int:
    return sum(1 << perm[i] for i in range(len(perm)) if state >> i & 1)


@njit(nogil=True, cache=True)
def canonical_sizes(states, tables):
    """(smallest image, class size) of each state: the class size is the number
    of symmetries over the number that fix the state."""
    n = len(states)
    canon = np.empty(n, np.uint64)
    sizes = np.empty(n, np.uint8)
    count = tables.shape[0]
    for i in range(n):
        s = states[i]
        best = s
        fixed = 1
        for h in range(1, count):
            img = _image(s, tables, h)
            best = min(best, img)
            fixed += img == s
        canon[i] = best
        sizes[i] = count // fixed
    return canon, sizes
