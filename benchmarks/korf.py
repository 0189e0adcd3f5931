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


#: Felner, Korf & Hanan (JAIR 22, 2004): mean nodes a problem of IDA* with the
#: 7-8 partition and its reflection on Korf's 100.
PUBLISHED_78 = 37_000


def _solvers(db: object, args: argparse.Namespace) -> list[tuple[str, object, float]]:
    """(label, solver, load seconds): 6-6-3 (built if missing), 7-8 when built."""
    from pipeline.cli.bars import BuildBars
    from pipeline.errors import NotBuilt

    out = []
    clock = time.perf_counter()
    with BuildBars([]) as progress:
        s663 = db.pattern_solver("4x4", progress.level, databases="4x4-pdb")  # type: ignore[attr-defined]
    out.append(("6-6-3", s663, time.perf_counter() - clock))
    if args.baseline:
        plain = db.pattern_solver("4x4", reflect=False, databases="4x4-pdb")  # type: ignore[attr-defined]
        out.append(("plain", plain, 0.0))
    clock = time.perf_counter()
    try:
        s78 = db.pattern_solver("4x4", databases="4x4-pdb78")  # type: ignore[attr-defined]
        out.append(("7-8", s78, time.perf_counter() - clock))
    except NotBuilt:
        print(f"7-8 not built: run puzzledb build 4x4-pdb78 --data {args.data} (about 25 min)")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("PUZZLEDB_DATA", "data")))
    ap.add_argument("--first", type=int, default=None, help="only the first N instances")
    ap.add_argument("--repeat", type=int, default=1, help="median of N runs per instance")
    ap.add_argument(
        "--baseline",
        action="store_true",
        help="also solve with 6-6-3 without the reflection (plain additive sum)",
    )
    args = ap.parse_args(argv)

    import pipeline

    try:
        instances = read_instances(args.file)[: args.first]
    except (OSError, ValueError) as e:
        print(f"korf: {args.file}: cannot read the instances ({e})", file=sys.stderr)
        return 1
    solvers = _solvers(pipeline.open(args.data), args)
    for label, solver, load in solvers:
        solver.solve(from_korf([1, 0, *range(2, SIZE)]))  # type: ignore[attr-defined]
        print(f"{label}: pattern databases ready in {load:.1f} s")
    totals = _run(instances, solvers, args.repeat)
    _summary(totals, len(instances), args.repeat)
    return 0


def _run(
    instances: list[tuple[int, list[int]]], solvers: list[tuple[str, object, float]], repeat: int
) -> dict[str, list[float]]:
    """Solve each instance with each solver, one line an instance; label -> [nodes, s]."""
    head = f"{'id':>4} {'length':>6}" + "".join(
        f" {label + ' h0':>9} {label + ' nodes':>15} {label + ' s':>9}" for label, _, _ in solvers
    )
    print(head)
    totals = {label: [0.0, 0.0] for label, _, _ in solvers}
    for ident, korf in instances:
        cells = from_korf(korf)
        line, lengths = "", set()
        for label, solver, _ in solvers:
            length, nodes, secs = _timed(solver, cells, repeat)
            lengths.add(length)
            totals[label][0] += nodes
            totals[label][1] += secs
            h0 = solver.heuristic(cells)  # type: ignore[attr-defined]
            line += f" {h0:>9} {nodes:>15,} {secs:>9.3f}"
        assert len(lengths) == 1, f"instance {ident}: lengths differ {lengths}"
        print(f"{ident:>4} {lengths.pop():>6}{line}", flush=True)
    return totals


def _summary(totals: dict[str, list[float]], n: int, repeat: int) -> None:
    """The bench table: per heuristic total seconds, nodes, nodes/s, mean nodes."""
    print(
        f"{n} instances, after loading, median of {repeat} run(s) each, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(f"{'heuristic':>9} {'seconds':>9} {'nodes':>15} {'M nodes/s':>10} {'mean nodes':>12}")
    for label, (nodes, secs) in totals.items():
        mean = nodes / max(n, 1)
        line = f"{label:>9} {secs:>9.2f} {int(nodes):>15,} {nodes / max(secs, 1e-9) / 1e6:>10.1f}"
        line += f" {mean:>12,.0f}"
        if label == "7-8":
            line += f" (published ~{PUBLISHED_78:,}: {mean / PUBLISHED_78:.2f}x)"
        print(line)


if __name__ == "__main__":
    sys.exit(main())
