"""`make bench-solve4`: a 4x4 solve as a command, against `python -c "import pipeline"`.

Needs the 4x4 pattern databases in DATA (`puzzledb build 4x4-pdb --data DATA`:
about 3 minutes and 1.6 GB, once). Each command runs RUNS times in a fresh
interpreter; the medians and their difference are printed with the load
average before and after. The goal (issue 12): a position 30-40 moves deep
solved within 0.3 s more than the import.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from pipeline.benchmarks.__main__ import run_timed

#: The position to time (not yet checked to be 30-40 moves deep: pass --position
#: one that is; `puzzledb solve 4x4 POSITION` prints its move count).
DEEP = "5 1 3 4 9 2 7 8 0 6 10 11 13 14 15 12"
SHALLOW = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"


def median(cmd: list[str], runs: int) -> float:
    return statistics.median(run_timed(cmd)[0] for _ in range(runs))


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
    print(f"median of {args.runs}, load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    for label, secs in rows:
        print(f"{label:<30} {secs:6.3f} s   {secs - base:+.3f} s over the import")


if __name__ == "__main__":
    main()
