"""`make bench-pairs OLD=<rev>`: interleaved builds of an old commit and this tree.

Each round builds every board (as a command, in a fresh folder) with the old
commit (a temporary git worktree) and with this tree, the order alternating
round by round so that a change of load hits both sides alike; then prints the
median wall time, CPU time (user + system) and peak RSS of each side, their
ratios, and the load averages seen.

    python -m benchmarks.pairs OLD_REV [--rounds 5] [--boards 2x5,3x4,english33]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
#: Runs one command and prints its wall time, CPU time and peak RSS as JSON.
MEASURE = (
    "import json, resource, subprocess, sys, time; t = time.perf_counter(); "
    "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
    "w = time.perf_counter() - t; r = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(json.dumps({'wall': w, 'cpu': r.ru_utime + r.ru_stime, 'peak': r.ru_maxrss * 1024}))"
)


def build(src: Path, board: str, work: Path, *flags: str) -> dict[str, float]:
    """One build of ``board`` (with ``flags``) with the package in ``src``, measured."""
    folder = work / f"data-{board}"
    shutil.rmtree(folder, ignore_errors=True)
    cmd = [sys.executable, "-m", "pipeline.cli", "build", board, "--data", str(folder), *flags]
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *cmd], env=env, cwd=work, capture_output=True, text=True
    )
    shutil.rmtree(folder, ignore_errors=True)
    if out.returncode:
        raise SystemExit(f"build {board} failed with {src}: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout)


def medians(runs: list[dict], board: str, sides: list[str]) -> dict[str, dict[str, float]]:
    """Per side, the median wall, CPU and peak of the board's runs."""
    return {
        side: {
            k: statistics.median(r[k] for r in runs if r["board"] == board and r["side"] == side)
            for k in ("wall", "cpu", "peak")
        }
        for side in sides
    }


def load_line(runs: list[dict]) -> str:
    loads = [r["load"] for r in runs]
    return (
        f"load average during the runs: median {statistics.median(loads):.2f}, "
        f"{min(loads):.2f} to {max(loads):.2f}"
    )


def report(runs: list[dict], boards: list[str]) -> None:
    for board in boards:
        med = medians(runs, board, ["old", "new"])
        o, n = med["old"], med["new"]
        print(
            f"{board:10} wall {o['wall']:.2f} -> {n['wall']:.2f} s ({n['wall'] / o['wall']:.3f}x)"
            f"  cpu {o['cpu']:.2f} -> {n['cpu']:.2f} s ({n['cpu'] / o['cpu']:.3f}x)"
            f"  peak {o['peak'] / 2**20:.0f} -> {n['peak'] / 2**20:.0f} MiB"
            f" ({n['peak'] / o['peak']:.3f}x)"
        )
    print(load_line(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("old", help="the commit to compare with (any git revision)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--boards", default="2x5,3x4,english33")
    args = ap.parse_args()
    boards = args.boards.split(",")
    with tempfile.TemporaryDirectory(prefix="puzzledb-pairs-") as tmp:
        work, old = Path(tmp), Path(tmp) / "old"
        added = subprocess.run(
            ["git", "-C", str(HERE), "worktree", "add", "--detach", str(old), args.old],
            capture_output=True, text=True,
        )  # fmt: skip
        if added.returncode:
            raise SystemExit(f"bench-pairs: no commit {args.old!r} here ({added.stderr.strip()})")
        try:
            runs = []
            for r in range(args.rounds):
                sides = [("old", old), ("new", HERE)][:: 1 if r % 2 == 0 else -1]
                for board in boards:
                    for side, src in sides:
                        m = build(src, board, work)
                        m.update(side=side, board=board, round=r, load=os.getloadavg()[0])
                        print(json.dumps(m), flush=True)
                        runs.append(m)
            report(runs, boards)
        finally:
            subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(old)])


if __name__ == "__main__":
    main()
