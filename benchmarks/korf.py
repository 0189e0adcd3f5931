"""Korf's 100 random 15-puzzle instances: the standard benchmark of optimal solvers.

The 100 positions are kept beside this module (``korf100.txt``; benchmarks/
is not in the wheel: run it from a clone). The file uses the convention of Korf's paper: goal
``0 1 2 ... 15``, blank in the top-left cell. Ours has the blank last and tile
t in cell t-1. Turning the board half round (cell c -> 15 - c) and renaming
tile t to 16 - t maps one goal onto the other and moves onto moves, so every
distance is kept:

    ours[15 - c] = 16 - korf[c]   (0 stays 0)

Run: ``python -m benchmarks.korf [FILE] [--data DIR] [--first N]``
(``make bench-korf``); prints per instance the length, nodes generated and
seconds, then the totals.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

SIZE = 16
DEFAULT_FILE = Path(__file__).resolve().with_name("korf100.txt")


def from_korf(cells: list[int]) -> list[int]:
    """A position in Korf's convention (blank-first goal) as ours (blank-last goal)."""
    if sorted(cells) != list(range(SIZE)):
        raise ValueError(f"not a 15-puzzle position: {cells}")
    ours = [0] * SIZE
    for c, v in enumerate(cells):
        ours[SIZE - 1 - c] = SIZE - v if v else 0
    return ours


def read_instances(path: Path) -> list[tuple[int, list[int]]]:
    """(id, cells in Korf's convention) for each line of the benchmark file."""
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        nums = [int(x) for x in line.split()]
        out.append((nums[0], nums[1:]))
    return out


def _timed(solver: object, cells: list[int], repeat: int) -> tuple[int, int, float]:
    """(length, nodes, median seconds of ``repeat`` runs)."""
    runs = [solver.solve(cells) for _ in range(repeat)]  # type: ignore[attr-defined]
    return runs[0].moves, runs[0].nodes, statistics.median(r.seconds for r in runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("PUZZLEDB_DATA", "data")))
    ap.add_argument("--first", type=int, default=None, help="only the first N instances")
    ap.add_argument("--repeat", type=int, default=1, help="median of N runs per instance")
    ap.add_argument(
        "--baseline",
        action="store_true",
        help="also solve without the reflection (plain additive sum) and print the ratios",
    )
    args = ap.parse_args(argv)

    import pipeline
    from pipeline.cli.bars import BuildBars
    from pipeline.solvers import optimal

    try:
        instances = read_instances(args.file)[: args.first]
    except (OSError, ValueError) as e:
        print(f"korf: {args.file}: cannot read the instances ({e})", file=sys.stderr)
        return 1
    db = pipeline.open(args.data)
    clock = time.perf_counter()
    with BuildBars([]) as progress:
        solver = db.pattern_solver("4x4", progress.level)
    load = time.perf_counter() - clock
    plain = db.pattern_solver("4x4", reflect=False) if args.baseline else None
    solver.solve(from_korf([1, 0, *range(2, SIZE)]))  # compile outside the timings
    print(f"pattern databases ready in {load:.1f} s (4x4: {', '.join(optimal.PARTITIONS['4x4'])})")
    head = f"{'id':>4} {'length':>6} {'h0':>4} {'nodes':>14} {'seconds':>9}"
    if plain:
        head += f" {'plain nodes':>14} {'plain s':>9} {'ratio':>6}"
    print(head)
    total_len = total_nodes = plain_nodes = 0
    total_s = plain_s = 0.0
    for ident, korf in instances:
        cells = from_korf(korf)
        length, nodes, secs = _timed(solver, cells, args.repeat)
        total_len += length
        total_nodes += nodes
        total_s += secs
        line = f"{ident:>4} {length:>6} {solver.heuristic(cells):>4} {nodes:>14,} {secs:>9.3f}"
        if plain:
            plen, pn, ps = _timed(plain, cells, args.repeat)
            assert plen == length, f"instance {ident}: {plen} != {length}"
            plain_nodes += pn
            plain_s += ps
            line += f" {pn:>14,} {ps:>9.3f} {ps / max(secs, 1e-9):>6.2f}"
        print(line, flush=True)
    n = len(instances)
    line = f"{'all':>4} {total_len:>6} {'':>4} {total_nodes:>14,} {total_s:>9.2f}"
    if plain:
        line += f" {plain_nodes:>14,} {plain_s:>9.2f} {plain_s / max(total_s, 1e-9):>6.2f}"
    print(line)
    print(
        f"{n} instances: mean length {total_len / max(n, 1):.2f}, "
        f"{total_nodes / max(total_s, 1e-9) / 1e6:.1f} M nodes/s, "
        f"median of {args.repeat} run(s) each, load average {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
