"""`make bench-twisty`: twisty definitions built from their .tws files, beside twsearch -g.

Each round builds every definition (a fresh process and data folder, all its
parents written) and, when a twsearch binary is given, runs ``twsearch -g`` on
the same file, the sides in turn (the order alternating round by round, so that
a change of load hits them alike), after a first build by each tree that fills
its cache of compiled kernels. ``--old REV`` adds builds by that commit (a
temporary git worktree), ``--search`` the dense engine's level steps alone
(this tree, no rows written: the search twsearch -g does, with each state's
first move kept). Printed: the median wall time, CPU time (user + system, the
whole process: Python's start and imports included; and the build alone,
measured inside), the peak memory, the ratios of our CPU to twsearch's and to
the old commit's, whether the counts a depth agree, and the load averages seen.

    python -m benchmarks.twisty [--twsearch BIN] [--old REV] [--search] [--rounds 3] [FILE.tws ...]

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.engine.level import LevelSource

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


def search(path: Path) -> None:
    """The dense engine's level steps alone on one definition (the bitmaps' rows never
    made): print the counts and the CPU of the steps after the first (which loads
    the kernels)."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from pipeline.build.resident import Unwritten
    from pipeline.engine import dense
    from pipeline.engine.bitmaps import Bitmaps
    from pipeline.engine.budget import memory_for_large_builds
    from pipeline.engine.buffers import Pool
    from pipeline.engine.level import InMemory
    from pipeline.puzzles.twisty.board import load

    memory_for_large_builds()  # as a build takes its memory (budget.py)
    puzzle = load(path, "bench")
    space = puzzle.kernels.space  # type: ignore[union-attr]
    engine = dense.DenseSearch(space, ThreadPoolExecutor(2), Pool(0), 1 << 20)
    if isinstance(engine.strategy, Bitmaps):
        engine.strategy._rows = lambda sink: None  # type: ignore[method-assign]
    level: LevelSource = InMemory(0, np.array(puzzle.roots(), np.uint64))
    counts, cpu = [len(level)], 0.0
    while len(level):
        clock = time.process_time()
        made = engine.step(level, [], True, lambda *run: True)
        cpu += (time.process_time() - clock) if len(counts) > 1 else 0.0
        counts.append(made.found)
        level = Unwritten(level.depth + 1, made.found, _never)
    print(json.dumps({"counts": counts[:-1], "build_cpu": cpu, "dense": True}))


def _never() -> LevelSource:
    raise AssertionError("the engine reads a level it holds")


def measured(cmd: list[str], src: Path = HERE) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, cwd=src, env=env
    )
    got = json.loads(out.stdout)
    if got["code"]:
        raise SystemExit(f"{' '.join(cmd)} failed: {got['err'].strip()[-300:]}")
    return got


def ours(path: Path, work: Path, src: Path = HERE) -> dict:
    data = work / f"data-{path.stem}"
    got = measured([sys.executable, "-m", "benchmarks.twisty", "--one", str(path), str(data)], src)
    shutil.rmtree(data, ignore_errors=True)
    return {**got, **json.loads(got["out"].strip().splitlines()[-1])}


def alone(path: Path) -> dict:
    got = measured([sys.executable, "-m", "benchmarks.twisty", "--search-one", str(path)])
    return {**got, **json.loads(got["out"].strip().splitlines()[-1])}


def theirs(binary: Path, path: Path) -> dict:
    got = measured([str(binary), "-g", str(path)])
    counts = [int(n) for n in re.findall(r"^Dist \d+ cnt (\d+)", got["out"], re.MULTILINE)]
    return {**got, "counts": [c for c in counts if c]}


@contextmanager
def checkout(rev: str | None, tmp: Path) -> Iterator[Path | None]:
    """A temporary git worktree of ``rev`` (None: none)."""
    if rev is None:
        yield None
        return
    old = tmp / "old"
    added = subprocess.run(
        ["git", "-C", str(HERE), "worktree", "add", "--detach", str(old), rev],
        capture_output=True, text=True,
    )  # fmt: skip
    if added.returncode:
        raise SystemExit(f"bench-twisty: no commit {rev!r} here ({added.stderr.strip()})")
    try:
        yield old
    finally:
        subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(old)])


def run(
    files: list[Path], binary: Path | None, rounds: int, rev: str | None, alone_too: bool
) -> list[dict]:
    runs = []
    with (
        tempfile.TemporaryDirectory(prefix="bench-twisty-") as tmp,
        checkout(rev, Path(tmp)) as old,
    ):
        sides = {"ours": lambda p: ours(p, Path(tmp))}
        if old is not None:
            sides["old"] = lambda p: ours(p, Path(tmp), old)
        if alone_too:
            sides["search"] = alone
        if binary is not None:
            sides["twsearch"] = lambda p: theirs(binary, p)
        for side in ("ours", "old"):  # each tree's numba cache filled first, not counted
            if side in sides:
                sides[side](files[0])
        for r in range(rounds):
            for path in files:
                for side in list(sides) if r % 2 == 0 else reversed(list(sides)):
                    got = sides[side](path)
                    got.pop("out", None)
                    runs.append(
                        {**got, "file": path.name, "side": side, "load": os.getloadavg()[0]}
                    )
                    print(json.dumps(runs[-1]), file=sys.stderr)
    return runs


def _medians(runs: list[dict], keys: tuple[str, ...]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs) for k in keys}


def report(runs: list[dict], files: list[Path]) -> None:
    for path in files:
        side = {
            s: [r for r in runs if r["file"] == path.name and r["side"] == s]
            for s in ("ours", "old", "search", "twsearch")
        }
        mine = side["ours"]
        med = _medians(mine, ("wall", "cpu", "peak", "build_cpu"))
        line = (
            f"{path.name:16} {sum(mine[0]['counts']):>13,} positions  ours: wall "
            f"{med['wall']:.2f} s, cpu {med['cpu']:.2f} s (build {med['build_cpu']:.2f} s), peak "
            f"{med['peak'] / 2**20:.0f} MiB, {'dense' if mine[0]['dense'] else 'sorted'}"
        )
        same = all(r["counts"] == mine[0]["counts"] for r in runs if r["file"] == path.name)
        if side["old"]:
            o = _medians(side["old"], ("wall", "cpu", "peak", "build_cpu"))
            line += (
                f"\n{'':16} old: wall {o['wall']:.2f} s, cpu {o['cpu']:.2f} s (build "
                f"{o['build_cpu']:.2f} s), peak {o['peak'] / 2**20:.0f} MiB; ours / old: cpu "
                f"{med['cpu'] / o['cpu']:.3f}x (build {med['build_cpu'] / o['build_cpu']:.3f}x)"
            )
        t = _medians(side["twsearch"], ("wall", "cpu", "peak")) if side["twsearch"] else None
        if t is not None:
            line += (
                f"\n{'':16} twsearch -g: wall {t['wall']:.2f} s, cpu {t['cpu']:.2f} s, peak "
                f"{t['peak'] / 2**20:.0f} MiB; cpu ratio {med['cpu'] / t['cpu']:.2f}x "
                f"(build alone {med['build_cpu'] / t['cpu']:.2f}x)"
            )
        if side["search"]:
            s = statistics.median(r["build_cpu"] for r in side["search"])
            vs = f" ({s / t['cpu']:.2f}x twsearch -g's cpu)" if t is not None else ""
            line += f"\n{'':16} the dense engine's steps alone: cpu {s:.2f} s{vs}"
        print(f"{line}\n{'':16} counts a depth {'equal' if same else 'DIFFER'}")
    loads = [r["load"] for r in runs]
    print(
        f"load average during the runs: median {statistics.median(loads):.2f}, "
        f"{min(loads):.2f} to {max(loads):.2f}; {time.strftime('%Y-%m-%d')}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--twsearch", type=Path, help="a twsearch binary (built outside the repo)")
    parser.add_argument("--old", help="also build with this commit (a git revision)")
    parser.add_argument("--search", action="store_true", help="also the search steps alone")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--search-one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(*args.one)
        return
    if args.search_one:
        search(args.search_one)
        return
    files = [f.resolve() for f in args.files] or DEFAULT
    runs = run(files, args.twsearch, args.rounds, args.old, args.search)
    report(runs, files)


if __name__ == "__main__":
    main()
