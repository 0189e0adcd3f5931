"""Peg moves (a run of jumps by one peg) as compiled kernels: a move of the board alone.

A move out of a board is every board that one peg reaches by a chain of one
or more jumps. The kernels walk each peg's chains depth-first (a jump removes a
peg, so a chain ends). Used by the English board in moves (chains.py), both
as packed keys for the fast level step and as ``(src, child)`` rows.

The packed key is ``child << tag_bits | tag`` with ``tag = f | loc(t) << fb |
overs << (fb + tb)``: ``f`` the hole the peg started from, ``loc(t)`` the
place of the hole it ended in among its class's holes, ``overs`` the pegs it
removed as a mask over its class's possible 'over' holes. A class is a
connected set of holes of the jump graph (holes a peg may land in from one
another); on the English board the largest has 12 holes and 16 'over' holes,
so the tag takes 6 + 4 + 16 = 26 bits and a key 59. The parent is then the
child with ``f``, ``t`` and the removed pegs flipped back (``f == t`` cancels).
Imported on first use, like moves.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from pipeline.engine.packed import Kernels, bit_position, resolve_core, room
from pipeline.puzzles.pegs.moves import each_jump, no_start, peg_moves

#: Room for the chains being walked (a chain is at most a board's pegs long).
STACK = 4096


def jump_table(n: int, jumps: Sequence[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Per hole, the (over, to) of each jump from it, padded with -1: shapes (n, k)."""
    most = max((sum(1 for f, _, _ in jumps if f == h) for h in range(n)), default=0)
    over = np.full((n, max(most, 1)), -1, np.int64)
    to = np.full((n, max(most, 1)), -1, np.int64)
    filled = [0] * n
    for f, o, t in jumps:
        over[f, filled[f]], to[f, filled[f]] = o, t
        filled[f] += 1
    return over, to


def _follower(over_bit: int) -> Callable[..., int]:
    """The walk of a peg's chains; ``over_bit`` is what a jump needs over its
    middle hole: 1 (a peg, removed) forwards, 0 (a hole, filled) for reversed
    jumps. The tag is the same either way (``overs`` the holes that flip), and
    so is the undo. A constant of the closure, so each walk compiles with it
    folded (as an argument it slows the forward walk: docs/BENCHMARKS.md, figures
    behind the code)."""
    need = np.uint64(over_bit)

    @njit(inline="always")
    def follow(out, m, lo, hi, s, f, o, t, stack, args):
        """Keys of the chains whose first jump is (f, o, t) out of ``s``: that jump and
        every continuation by the same peg (depth-first), written after the first
        ``m`` of ``out``. Returns the new count, or -1 when ``out`` is full (the
        caller grows it and asks again)."""
        over, to, comp, loc, over_loc, fb, tb, tag_bits = args[:8]
        boards, where, removed = stack
        one = np.uint64(1)
        c = comp[f]
        ftag = np.uint64(f)
        boards[0] = s ^ (one << np.uint64(f)) ^ (one << np.uint64(o)) ^ (one << np.uint64(t))
        where[0], removed[0] = t, one << np.uint64(over_loc[c, o])
        top = 1
        while top:
            top -= 1
            b, p, r = boards[top], where[top], removed[top]
            tag = ftag | (np.uint64(loc[p]) << np.uint64(fb)) | (r << np.uint64(fb + tb))
            key = (b << np.uint64(tag_bits)) | tag
            if m == len(out):
                return -1
            out[m] = key
            m += (key >= lo) & (key <= hi)
            for k in range(over.shape[1]):
                o2, t2 = over[p, k], to[p, k]
                if o2 < 0:
                    break
                if (b >> np.uint64(o2)) & one == need and not (b >> np.uint64(t2)) & one:
                    flip = (one << np.uint64(p)) ^ (one << np.uint64(o2)) ^ (one << np.uint64(t2))
                    boards[top], where[top] = b ^ flip, t2
                    removed[top] = r | (one << np.uint64(over_loc[c, o2]))
                    top += 1
        return m

    return follow


_follow = _follower(1)
_follow_back = _follower(0)


@njit(inline="always")
def _chains(out, m, lo, hi, s, j, extra):
    """The keys of jump ``j`` out of ``s`` and of every chain it starts."""
    jf, jo, jt, stack, args = extra
    return _follow(out, m, lo, hi, s, jf[j], jo[j], jt[j], stack, args)


@njit(nogil=True, cache=True)
def _chain_keys(states, skip, lo, hi, out, args):
    """The keys in [lo, hi] of every chain of jumps by one peg out of every state.

    The first jumps are moves.py's (:func:`each_jump`, bit-parallel on the board's
    grid); each is then followed by its peg's further jumps."""
    stack = (np.empty(STACK, np.uint64), np.empty(STACK, np.int64), np.empty(STACK, np.uint64))
    extra = (args[11], args[12], args[13], stack, args)
    return each_jump(states, lo, hi, out, args[10], no_start, _chains, extra)


@njit(nogil=True, cache=True)
def _chain_keys_back(states, skip, lo, hi, out, args):
    """The keys in [lo, hi] of every reversed chain out of every state: one peg
    jumping back over empty holes (which fill) into empty holes, as the tables
    counted towards the goal need. First jumps are found peg by peg (the boards
    near the goal are sparse)."""
    over, to, bit_index = args[0], args[1], args[10][7]
    stack = (np.empty(STACK, np.uint64), np.empty(STACK, np.int64), np.empty(STACK, np.uint64))
    one = np.uint64(1)
    m = 0
    for i in range(len(states)):
        s = states[i]
        pegs = s
        while pegs:
            low = pegs & (~pegs + one)
            pegs ^= low
            f = bit_position(low, bit_index)
            for k in range(over.shape[1]):
                o, t = over[f, k], to[f, k]
                if o < 0:
                    break
                if not (s >> np.uint64(o)) & one and not (s >> np.uint64(t)) & one:
                    n = _follow_back(out, m, lo, hi, s, f, o, t, stack, args)
                    while n < 0:
                        out = room(out, m, len(out) + 1 - m)  # doubled
                        n = _follow_back(out, m, lo, hi, s, f, o, t, stack, args)
                    m = n
    return out[:m]


@njit(inline="always")
def _chain_undo(key, args):
    comp_holes, over_masks = args[8], args[9]
    fb, tb, tag_bits, comp = args[5], args[6], args[7], args[2]
    tag = key & ((np.uint64(1) << np.uint64(tag_bits)) - np.uint64(1))
    f = np.int64(tag & ((np.uint64(1) << np.uint64(fb)) - np.uint64(1)))
    t_loc = np.int64((tag >> np.uint64(fb)) & ((np.uint64(1) << np.uint64(tb)) - np.uint64(1)))
    overs = tag >> np.uint64(fb + tb)
    c = comp[f]
    flip = (np.uint64(1) << np.uint64(f)) ^ (np.uint64(1) << np.uint64(comp_holes[c, t_loc]))
    for b in range(over_masks.shape[1]):
        flip ^= over_masks[c, b, (overs >> np.uint64(8 * b)) & np.uint64(255)]
    return (key >> np.uint64(tag_bits)) ^ flip


@njit(nogil=True, cache=True)
def _chain_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _chain_undo, args
    )


@njit(nogil=True, cache=True)
def _grown(a):
    """``a`` with room for as many again."""
    return np.concatenate((a, np.empty(len(a), a.dtype)))


@njit(inline="always")
def _with_room(src, kid, m):
    """``src`` and ``kid`` with room for row ``m`` (grown when full)."""
    if m == len(kid):
        return _grown(src), _grown(kid)
    return src, kid


@njit(nogil=True, cache=True)
def _unique_tail(kid, first, m):
    """Sort ``kid[first:m]`` keeping each value once; the new end."""
    part = np.sort(kid[first:m])
    w = first
    for j in range(len(part)):
        if j == 0 or part[j] != part[j - 1]:
            kid[w] = part[j]
            w += 1
    return w


@njit(nogil=True, cache=True)
def chain_rows(states, over, to, reverse):
    """``(src, child)`` of every move out of ``states``, each child once a source.

    ``reverse``: moves backwards (a peg jumps back over an empty hole, which
    fills, into an empty hole), as the tables counted towards the goal need.
    Chain states (board, hole) met twice from one source are walked once.
    """
    n = over.shape[0]
    one = np.uint64(1)
    src = np.empty(max(16, 8 * len(states)), np.int64)
    kid = np.empty(max(16, 8 * len(states)), np.uint64)
    boards = np.empty(STACK, np.uint64)
    where = np.empty(STACK, np.int64)
    seen = {np.uint64(0): 0}  # (board << 6 | hole) of the chain states walked
    m = 0
    for i in range(len(states)):
        s = states[i]
        seen.clear()
        first = m
        for f in range(n):
            if not (s >> np.uint64(f)) & one:
                continue
            boards[0], where[0] = s, f
            top = 1
            while top:
                top -= 1
                b, p = boards[top], where[top]
                for k in range(over.shape[1]):
                    o, t = over[p, k], to[p, k]
                    if o < 0:
                        break
                    has_o = (b >> np.uint64(o)) & one
                    if (has_o == 0) != reverse or (b >> np.uint64(t)) & one:
                        continue
                    nb = b ^ (one << np.uint64(p)) ^ (one << np.uint64(o)) ^ (one << np.uint64(t))
                    if reverse:  # sparse boards: many chains meet again
                        mark = (nb << np.uint64(6)) | np.uint64(t)
                        if mark in seen:
                            continue
                        seen[mark] = 0
                    boards[top], where[top] = nb, t
                    top += 1
                    src, kid = _with_room(src, kid, m)
                    src[m], kid[m] = i, nb
                    m += 1
        m = _unique_tail(kid, first, m)
    return src[:m], kid[:m]


def chain_kernels(
    holes: Sequence[tuple[int, int]], jumps: Sequence[tuple[int, int, int]], reverse: bool = False
) -> Kernels | None:
    """The packed kernels of moves between ``holes`` (row, column of the board's
    picture), or None when a key would not fit in 64 bits; ``reverse``: of
    reversed moves (see :func:`chain_rows`)."""
    n = len(holes)
    comp_of, members, overs = _classes(n, jumps)
    fb = max(1, (n - 1).bit_length())
    tb = max(1, (max(len(m) for m in members) - 1).bit_length())
    ob = max(len(o) for o in overs)
    tag_bits = fb + tb + ob
    if n + tag_bits > 64:
        return None
    grid = _grid_args(n, holes, jumps)
    if grid is None:
        return None
    over, to = jump_table(n, jumps)
    places = _places(n, members, overs, ob)
    ends = [np.array([j[i] for j in jumps], np.int64) for i in range(3)]
    args = (over, to, comp_of, places[0], places[1], fb, tb, tag_bits, *places[2:], grid, *ends)
    return Kernels(tag_bits, _chain_keys_back if reverse else _chain_keys, args, _chain_resolve)


def _classes(
    n: int, jumps: Sequence[tuple[int, int, int]]
) -> tuple[np.ndarray, list[list[int]], list[list[int]]]:
    """The classes of holes (connected by jumps): each hole's class, each class's
    holes and the 'over' holes of its jumps, in order."""
    comp = list(range(n))

    def find(x: int) -> int:
        while comp[x] != x:
            x = comp[x]
        return x

    for f, _, t in jumps:
        comp[find(f)] = find(t)
    roots = sorted({find(h) for h in range(n)})
    comp_of = np.array([roots.index(find(h)) for h in range(n)], np.int64)
    members = [[h for h in range(n) if comp_of[h] == c] for c in range(len(roots))]
    overs = [sorted({o for f, o, _ in jumps if comp_of[f] == c}) for c in range(len(roots))]
    return comp_of, members, overs


def _places(
    n: int, members: list[list[int]], overs: list[list[int]], ob: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(loc, over_loc, comp_holes, over_masks): each hole's place in its class, each
    'over' hole's bit in its class's mask, the holes of each class by place, and per
    class the holes each byte of an ``overs`` mask stands for."""
    loc = np.zeros(n, np.int64)
    comp_holes = np.zeros((len(members), max(len(m) for m in members)), np.int64)
    over_loc = np.zeros((len(members), n), np.int64)
    over_masks = np.zeros((len(members), (ob + 7) // 8, 256), np.uint64)
    for c, hs in enumerate(members):
        for i, h in enumerate(hs):
            loc[h], comp_holes[c, i] = i, h
        for i, o in enumerate(overs[c]):
            over_loc[c, o] = i
            for v in range(256):
                if v >> (i % 8) & 1:
                    over_masks[c, i // 8, v] |= np.uint64(1 << o)
    return loc, over_loc, comp_holes, over_masks


def _grid_args(
    n: int, holes: Sequence[tuple[int, int]], jumps: Sequence[tuple[int, int, int]]
) -> tuple[object, ...] | None:
    """The board's grid and jump lines as moves.py lays them (to find first jumps)."""
    single = peg_moves(holes, jumps)
    return None if single is None else single.args
