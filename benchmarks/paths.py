"""`make bench-paths`: what the path-count column costs a build.

Each round builds every board plain and with ``--paths`` (as commands, in fresh
folders, the order alternating round by round so a change of load hits both
alike), and with ``--old REV`` also that commit's ``--paths`` build; then prints
the median wall time, CPU time and peak RSS of each, the ratio to the plain
build (of the medians, and the median of the ratios round by round, each round's
builds having run back to back), and the load averages seen. The issue's goal:
``--paths`` within 1.5x.

    python -m benchmarks.paths [--rounds 3] [--boards 2x5,english33] [--old REV]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

from benchmarks.pairs import HERE, build, load_line, medians


def paired(runs: list[dict], board: str, side: str) -> list[float]:
    """The side's wall time over the plain build's, round by round (the two ran
    back to back, under the same load)."""
    wall = {(r["side"], r["round"]): r["wall"] for r in runs if r["board"] == board}
    rounds = sorted({r for s, r in wall if s == side and ("plain", r) in wall})
    return [wall[side, r] / wall["plain", r] for r in rounds]


def report(runs: list[dict], boards: list[str], sides: list[str]) -> None:
    """One line a board and side: medians, the ratio of the medians to the plain
    build's, and the median of the round-by-round ratios."""
    for board in boards:
        med = medians(runs, board, sides)
        plain = med["plain"]
        for side in sides:
            m = med[side]
            ratios = paired(runs, board, side)
            print(
                f"{board:10} {side:11} wall {m['wall']:8.2f} s ({m['wall'] / plain['wall']:.2f}x;"
                f" by round {', '.join(f'{x:.2f}' for x in ratios)}:"
                f" median {statistics.median(ratios):.2f}x)"
                f"  cpu {m['cpu']:8.2f} s ({m['cpu'] / plain['cpu']:.2f}x)"
                f"  peak {m['peak'] / 2**20:6.0f} MiB ({m['peak'] / plain['peak']:.2f}x)"
            )
    print(load_line(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--boards", default="2x5,english33")
    ap.add_argument("--old", help="also time this commit's --paths builds")
    args = ap.parse_args()
    boards = args.boards.split(",")
    with tempfile.TemporaryDirectory(prefix="puzzledb-paths-") as tmp:
        work, old = Path(tmp), Path(tmp) / "old"
        cases = [("plain", HERE, ()), ("paths", HERE, ("--paths",))]
        if args.old:
            added = subprocess.run(
                ["git", "-C", str(HERE), "worktree", "add", "--detach", str(old), args.old],
                capture_output=True, text=True,
            )  # fmt: skip
            if added.returncode:
                raise SystemExit(f"bench-paths: no commit {args.old!r} ({added.stderr.strip()})")
            cases.append(("old paths", old, ("--paths",)))
        try:
            runs = []
            for r in range(args.rounds):
                for board in boards:
                    for side, src, flags in cases[:: 1 if r % 2 == 0 else -1]:
                        m = build(src, board, work, *flags)
                        m.update(side=side, board=board, round=r, load=os.getloadavg()[0])
                        print(json.dumps(m), flush=True)
                        runs.append(m)
            report(runs, boards, [c[0] for c in cases])
        finally:
            if args.old:
                subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(old)])


if __name__ == "__main__":
    main()
