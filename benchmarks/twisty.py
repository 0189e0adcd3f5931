"""`make bench-twisty`: twisty definitions built from their .tws files, beside twsearch -g.

Each round builds every definition (a fresh process and data folder, all its
parents written) and, when a twsearch binary is given, runs ``twsearch -g`` on
the same file, the two in turn (the order alternating round by round, so that a
change of load hits both alike). Printed: the median wall time, CPU time (user
+ system, the whole process: Python's start and imports included; and the
build alone, measured inside), the peak memory, the ratio of our CPU to
twsearch's, whether the counts a depth agree, and the load averages seen.

    python -m benchmarks.twisty [--twsearch BIN] [--rounds 3] [FILE.tws ...]

twsearch is not part of puzzledb: build it outside the repository (docs/BENCHMARKS.md
says how). Without files, our own definitions in tests/data/twisty/ are built.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEFAULT = [
    HERE / "tests" / "data" / "twisty" / f for f in ("cube2.tws", "pocket.tws", "toplayer.tws")
]
#: Runs one command and prints its wall time, CPU time and peak RSS as JSON (with its output).
MEASURE = (
    "import json, resource, subprocess, sys, time; t = time.perf_counter(); "
    "out = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "w = time.perf_counter() - t; r = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(json.dumps({'wall': w, 'cpu': r.ru_utime + r.ru_stime, 'peak': r.ru_maxrss * 1024, "
    "'code': out.returncode, 'out': out.stdout[-20000:], 'err': out.stderr[-2000:]}))"
)


def one(path: Path, data: Path) -> None:
    """Build one definition into ``data`` and print its counts and the build's own CPU."""
    import resource

    from pipeline.build import loop
    from pipeline.executors.local.executor import LocalExecutor
    from pipeline.puzzles.twisty.board import load

    puzzle = load(path, "bench")
    before = resource.getrusage(resource.RUSAGE_SELF)
    made = loop.build(puzzle, data, executor=LocalExecutor())
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    dense = all(lv.stats.get("dense", False) for lv in made.levels[1:])
    counts = [lv.positions for lv in made.levels]
    print(json.dumps({"counts": counts, "build_cpu": cpu, "dense": dense}))


def measured(cmd: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, cwd=HERE
    )
    got = json.loads(out.stdout)
    if got["code"]:
        raise SystemExit(f"{' '.join(cmd)} failed: {got['err'].strip()[-300:]}")
    return got


def ours(path: Path, work: Path) -> dict:
    data = work / f"data-{path.stem}"
    env_cmd = [sys.executable, "-m", "benchmarks.twisty", "--one", str(path), str(data)]
    got = measured(env_cmd)
    shutil.rmtree(data, ignore_errors=True)
    return {**got, **json.loads(got["out"].strip().splitlines()[-1])}


def theirs(binary: Path, path: Path) -> dict:
    got = measured([str(binary), "-g", str(path)])
    counts = [int(n) for n in re.findall(r"^Dist \d+ cnt (\d+)", got["out"], re.MULTILINE)]
    return {**got, "counts": [c for c in counts if c]}


def run(files: list[Path], binary: Path | None, rounds: int) -> list[dict]:
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-twisty-") as tmp:
        for r in range(rounds):
            for path in files:
                sides = ["ours", "twsearch"] if binary is not None else ["ours"]
                for side in sides if r % 2 == 0 else reversed(sides):
                    got = ours(path, Path(tmp)) if side == "ours" else theirs(binary, path)
                    got.pop("out", None)
                    runs.append(
                        {**got, "file": path.name, "side": side, "load": os.getloadavg()[0]}
                    )
                    print(json.dumps(runs[-1]), file=sys.stderr)
    return runs


def report(runs: list[dict], files: list[Path]) -> None:
    for path in files:
        mine = [r for r in runs if r["file"] == path.name and r["side"] == "ours"]
        other = [r for r in runs if r["file"] == path.name and r["side"] == "twsearch"]
        med = {
            k: statistics.median(r[k] for r in mine) for k in ("wall", "cpu", "peak", "build_cpu")
        }
        line = (
            f"{path.name:16} {sum(mine[0]['counts']):>13,} positions  ours: wall "
            f"{med['wall']:.2f} s, cpu {med['cpu']:.2f} s (build {med['build_cpu']:.2f} s), peak "
            f"{med['peak'] / 2**20:.0f} MiB, {'dense' if mine[0]['dense'] else 'sorted'}"
        )
        if other:
            t = {k: statistics.median(r[k] for r in other) for k in ("wall", "cpu", "peak")}
            same = all(r["counts"] == mine[0]["counts"] for r in other + mine)
            line += (
                f"\n{'':16} twsearch -g: wall {t['wall']:.2f} s, cpu {t['cpu']:.2f} s, peak "
                f"{t['peak'] / 2**20:.0f} MiB; cpu ratio {med['cpu'] / t['cpu']:.2f}x "
                f"(build alone {med['build_cpu'] / t['cpu']:.2f}x); counts a depth "
                f"{'equal' if same else 'DIFFER'}"
            )
        print(line)
    loads = [r["load"] for r in runs]
    print(
        f"load average during the runs: median {statistics.median(loads):.2f}, "
        f"{min(loads):.2f} to {max(loads):.2f}; {time.strftime('%Y-%m-%d')}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--twsearch", type=Path, help="a twsearch binary (built outside the repo)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(*args.one)
        return
    files = [f.resolve() for f in args.files] or DEFAULT
    runs = run(files, args.twsearch, args.rounds)
    report(runs, files)


if __name__ == "__main__":
    main()
