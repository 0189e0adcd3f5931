"""An independent count of the first levels of the French, diamond and English peg boards.

    python -m tools.peg_count french37 DEPTH [OUTDIR]
    python -m tools.peg_count diamond41 DEPTH [OUTDIR]
    python -m tools.peg_count english33 DEPTH [OUTDIR]

Written apart from the pipeline (no engine, no Parquet, no picture of the
board): each board is the set of cells (row, column) of a square grid within
a distance of its centre, the French board |r-3| + |c-3| <= 4 on the 7x7
grid, the diamond |r-4| + |c-4| <= 4 on the 9x9 grid, the English cross the
cells of the 7x7 grid with 2 <= r <= 4 or 2 <= c <= 4, numbered row by row;
a jump is orthogonal. Each level is expanded in chunks of a million
positions and deduplicated with a sort; levels past a few million positions
go to value-range buckets on disk (OUTDIR, a temporary folder by default),
each bucket deduplicated alone, so memory stays near 1 GB. Prints the size
of every level, the total, and the seconds so far.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time

import numpy as np

CHUNK = 1 << 20
BUCKETS = 16
IN_MEMORY = 4 << 20  # levels up to this many positions stay in memory


def cells(name: str) -> list[tuple[int, int]]:
    """The holes of a board, row by row: a diamond of radius 4 cut to a square grid
    (the English cross: the 7x7 grid's middle three rows and columns)."""
    side = {"french37": 7, "diamond41": 9, "english33": 7}[name]
    mid = side // 2
    if name == "english33":
        return [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]
    return [(r, c) for r in range(side) for c in range(side) if abs(r - mid) + abs(c - mid) <= 4]


def centre(name: str) -> int:
    holes = cells(name)
    mid = {"french37": 3, "diamond41": 4, "english33": 3}[name]
    return holes.index((mid, mid))


def jump_masks(holes: list[tuple[int, int]]) -> list[tuple[np.uint64, np.uint64]]:
    """(bits a jump flips, bits that must be set) for every orthogonal jump."""
    index = {rc: i for i, rc in enumerate(holes)}
    out = []
    for (r, c), a in index.items():
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            o, t = index.get((r + dr, c + dc)), index.get((r + 2 * dr, c + 2 * dc))
            if o is not None and t is not None:
                flip = (1 << a) | (1 << o) | (1 << t)
                out.append((np.uint64(flip), np.uint64((1 << a) | (1 << o))))
    return out


def children(states: np.ndarray, jumps: list) -> np.ndarray:
    kids = [states[(states & f) == n] ^ f for f, n in jumps]
    return np.unique(np.concatenate(kids)) if kids else np.empty(0, np.uint64)


def next_level(prev: np.ndarray, jumps: list, out: str) -> np.ndarray:
    """The distinct children of a level, through buckets on disk when it is large."""
    if len(prev) * 4 <= IN_MEMORY:
        return children(np.asarray(prev), jumps)
    first = children(np.asarray(prev[:CHUNK]), jumps)
    bounds = np.quantile(first, np.linspace(0, 1, BUCKETS + 1)[1:-1]).astype(np.uint64)
    names = [f"{out}/bucket{b}.bin" for b in range(BUCKETS)]
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(n, "wb")) for n in names]
        for lo in range(0, len(prev), CHUNK):
            kids = first if lo == 0 else children(np.asarray(prev[lo : lo + CHUNK]), jumps)
            for f, part in zip(files, np.split(kids, np.searchsorted(kids, bounds)), strict=True):
                part.tofile(f)
    parts = []
    for n in names:
        parts.append(np.unique(np.fromfile(n, dtype=np.uint64)))
        os.unlink(n)
    return np.concatenate(parts)


def count(name: str, depth: int, out: str | None = None, echo: bool = False) -> list[int]:
    """The sizes of levels 0..depth (fewer if the board runs out of jumps)."""
    holes = cells(name)
    jumps = jump_masks(holes)
    level = np.array([((1 << len(holes)) - 1) ^ (1 << centre(name))], dtype=np.uint64)
    sizes = [1]
    clock = time.time()
    with contextlib.ExitStack() as stack:
        folder = out or stack.enter_context(tempfile.TemporaryDirectory())
        while len(sizes) <= depth:
            level = next_level(level, jumps, folder)
            if len(level) == 0:
                break
            sizes.append(len(level))
            if echo:
                print(len(sizes) - 1, len(level), f"{time.time() - clock:.0f} s", flush=True)
    return sizes


def main(argv: list[str]) -> None:
    sizes = count(argv[0], int(argv[1]), argv[2] if len(argv) > 2 else None, echo=True)
    print("levels", sizes)
    print("total", sum(sizes))


if __name__ == "__main__":
    main(sys.argv[1:])
