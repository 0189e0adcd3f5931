"""An independent count of the English board's levels, bucketed on disk (for test-full).

    python -m tools.english33_count OUTDIR

Written apart from the pipeline (its own board geometry, no engine, no
Parquet) so that it can check the engine: each level is expanded in chunks
of a million positions, the children go to value-range buckets on disk, and
each bucket is deduplicated alone, so memory stays under about 1 GB. It
prints the size of every level, the total, the holes of the last level's
pegs, and the number of positions that can still be won: by the peg/hole
duality (a reversed jump in a position is a jump in its complement, and the
goal is the complement of the start), a reachable position can still be won
exactly when its complement is reachable too. About 15 minutes on 2 cores.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import time

import numpy as np

CELLS = [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]
FULL = (1 << len(CELLS)) - 1
CHUNK = 1 << 20
BUCKETS = 16


def jump_masks() -> list[tuple[np.uint64, np.uint64]]:
    """(bits a jump flips, bits that must be set) for every jump of the cross."""
    index = {rc: i for i, rc in enumerate(CELLS)}
    out = []
    for (r, c), a in index.items():
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            o, t = index.get((r + dr, c + dc)), index.get((r + 2 * dr, c + 2 * dc))
            if o is not None and t is not None:
                out.append(
                    (np.uint64((1 << a) | (1 << o) | (1 << t)), np.uint64((1 << a) | (1 << o)))
                )
    return out


JUMPS = jump_masks()


def children(states: np.ndarray) -> np.ndarray:
    return np.unique(np.concatenate([states[(states & f) == n] ^ f for f, n in JUMPS]))


def next_level(prev: np.ndarray, out: str) -> np.ndarray:
    first = children(np.asarray(prev[:CHUNK]))
    if len(first) < 10 * BUCKETS:
        bounds = np.empty(0, np.uint64)
    else:
        bounds = np.quantile(first, np.linspace(0, 1, BUCKETS + 1)[1:-1]).astype(np.uint64)
    names = [f"{out}/bucket{b}.bin" for b in range(len(bounds) + 1)]
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(n, "wb")) for n in names]
        for lo in range(0, len(prev), CHUNK):
            kids = first if lo == 0 else children(np.asarray(prev[lo : lo + CHUNK]))
            for f, part in zip(files, np.split(kids, np.searchsorted(kids, bounds)), strict=True):
                part.tofile(f)
    parts = []
    for n in names:
        parts.append(np.unique(np.fromfile(n, dtype=np.uint64)))
        os.unlink(n)
    return np.concatenate(parts)


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    level = np.array([FULL ^ (1 << 16)], dtype=np.uint64)
    sizes = [1]
    np.save(f"{out}/d00.npy", level)
    clock = time.time()
    while True:
        prev = np.load(f"{out}/d{len(sizes) - 1:02d}.npy", mmap_mode="r")
        level = next_level(prev, out)
        if len(level) == 0:
            break
        np.save(f"{out}/d{len(sizes):02d}.npy", level)
        sizes.append(len(level))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(len(sizes) - 1, len(level), f"{time.time() - clock:.0f} s, peak {peak:.2f} GB")
    deepest = len(sizes) - 1
    print("levels", sizes)
    print("total", sum(sizes), "max depth", deepest)
    last = np.load(f"{out}/d{deepest:02d}.npy")
    print("last level pegs in holes", [int(s).bit_length() - 1 for s in last])
    winnable = []
    for d in range(deepest + 1):
        here = np.load(f"{out}/d{d:02d}.npy")
        other = deepest - d  # the complement of a position with p pegs has 33 - p
        there = np.load(f"{out}/d{other:02d}.npy")
        complement = (np.uint64(FULL) ^ there)[::-1]
        winnable.append(len(np.intersect1d(here, complement, assume_unique=True)))
    print("winnable", winnable)
    print("winnable total", sum(winnable))


if __name__ == "__main__":
    main(sys.argv[1])
