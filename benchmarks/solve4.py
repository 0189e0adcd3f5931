"""`make bench-solve4`: a 4x4 solve as a command, against `python -c "import pipeline"`.

Needs the 4x4 pattern databases in DATA (`puzzledb build 4x4-pdb --data DATA`:
about 5 minutes and 2.2 GB on disk, once). Each command runs RUNS times in a fresh
interpreter; the medians and their difference are printed with the load
average before and after. The goal (issue 12): a position 30-40 moves deep
solved within 0.3 s more than the import. The last row is the deep solve
through the numba kernel, the fallback when the C kernel cannot be built.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from benchmarks.__main__ import run_timed
from pipeline.solvers.ida_c import ENV

#: The position to time: 38 moves (536 nodes), as `puzzledb solve 4x4 POSITION` says.
DEEP = "9 2 4 11 14 3 1 7 13 8 5 12 15 0 10 6"
SHALLOW = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"


def median(cmd: list[str], runs: int, kernel: str | None = None) -> float:
    """Median wall seconds; ``kernel`` forces the IDA* kernel (PUZZLEDB_IDA:
    pipeline/solvers/ida_c.py)."""
    before = os.environ.pop(ENV, None)
    if kernel:
        os.environ[ENV] = kernel
    try:
        return statistics.median(run_timed(cmd)[0] for _ in range(runs))
    finally:
        os.environ.pop(ENV, None)
        if before is not None:
            os.environ[ENV] = before


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="data")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--position", default=DEEP)
    args = ap.parse_args()
    if not (Path(args.data) / "4x4-pdb-6a").is_dir():
        raise SystemExit(f"build the 4x4 pattern databases first: puzzledb build 4x4-pdb "
                         f"--data {args.data}")  # fmt: skip
    py = sys.executable
    solve = [py, "-m", "pipeline.cli", "solve", "4x4", "--no-build", "--data", args.data]
    load = os.getloadavg()[0]
    base = median([py, "-c", "import pipeline"], args.runs)
    rows = [("python -c 'import pipeline'", base)]
    for label, pos in (("solve 4x4, 1 move", SHALLOW), ("solve 4x4, deep", args.position)):
        rows.append((label, median([*solve, pos], args.runs)))
    rows.append(
        ("solve 4x4, deep, numba kernel", median([*solve, args.position], args.runs, "numba"))
    )
    print(f"median of {args.runs}, load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    for label, secs in rows:
        print(f"{label:<30} {secs:6.3f} s   {secs - base:+.3f} s over the import")


if __name__ == "__main__":
    main()
