"""Benchmark of the peg boards: english33 level by level, median of 3, printed as a table.

    python -m benchmarks.pegs [--depth N] [--full]

By default the English board is enumerated to depth N (12: 7.0 million
positions) because the current engine holds a whole level's expansion in
memory: the full board (187,636,299 positions, levels up to ~27 million) needs
the bucketed engine. ``--full`` builds the whole table through the normal
build (only with a memory budget that fits). Each run enumerates with the
engine and writes the Parquet level files, as a build does; it reports
positions per second, bytes on disk per position and the peak memory of the
process. The triangle's three tables are measured in the same run as a
baseline, so ratios survive a noisy machine.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from pipeline.engine import reference
from pipeline.puzzles import registry as puzzles
from pipeline.storage.writer import write_level


def _peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def enumerate_levels(name: str, depth: int | None, folder: Path) -> tuple[int, int, float]:
    """(positions, bytes written, seconds) for the levels 0..depth of one table."""
    p = puzzles.get(name)
    meta = {"puzzledb.table": name, "puzzledb.puzzle": name, "puzzledb.encoding": p.encoding}
    clock = time.perf_counter()
    levels = reference.search(p.roots(), p.expand, p.graph, p.expand_free)
    if depth is not None:
        levels = itertools.islice(levels, depth + 1)
    positions = written = 0
    for level in levels:
        positions += len(level)
        written += sum(e["bytes"] for e in write_level(folder, level, meta))
    return positions, written, time.perf_counter() - clock


def full_build(name: str, folder: Path) -> tuple[int, int, float]:
    import pipeline

    clock = time.perf_counter()
    (m,) = pipeline.open(folder).build([name])
    return m.total, sum(f.bytes for f in m.files), time.perf_counter() - clock


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=12, help="english33 levels 0..DEPTH")
    ap.add_argument("--full", action="store_true", help="build english33 in full")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    cases = [("triangle15", None), ("triangle15-moves", None), ("english33", args.depth)]
    rows = []
    for name, depth in cases:
        times = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="bench-pegs-") as tmp:
                if args.full and name == "english33":
                    positions, written, seconds = full_build(name, Path(tmp))
                else:
                    positions, written, seconds = enumerate_levels(name, depth, Path(tmp))
            times.append(seconds)
        rows.append((name, depth, positions, written, statistics.median(times)))
    base = rows[0][2] / rows[0][4]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"median of {args.runs}; load average {load}; peak memory {_peak_gb():.2f} GB")
    print(
        f"{'table':<18} {'depths':>7} {'positions':>12} {'seconds':>8} "
        f"{'positions/s':>12} {'ratio':>6} {'bytes/pos':>9}"
    )
    for name, depth, positions, written, seconds in rows:
        depths = "all" if depth is None or (args.full and name == "english33") else f"0..{depth}"
        rate = positions / seconds
        print(
            f"{name:<18} {depths:>7} {positions:>12,} {seconds:>8.2f} "
            f"{rate:>12,.0f} {rate / base:>6.2f} {written / positions:>9.2f}"
        )


if __name__ == "__main__":
    main()
