"""Benchmark of the full boards (`make bench-full`): builds, then look-ups, as tables.

Each build runs in a child process into a fresh folder, so its wall time and
peak memory (ru_maxrss of the child, from wait4) are its own. The machine is
shared: the load average is printed before and after, and every wall time is
also given as a ratio to a baseline measured in the same run (the in-memory
2x5 build, 1.8M positions), which moves with the load as the big builds do.
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
import time
from pathlib import Path
from typing import Any


def _run_build(name: str, data: Path, memory: str) -> dict[str, Any]:
    """One build in a child process: wall, CPU and peak RSS of that child."""
    cmd = [sys.executable, "-m", "pipeline.cli", "build", name, "--data", str(data)]
    cmd += ["--memory", memory]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"build of {name} failed:\n{err}")
    manifest = json.loads((data / name / "_manifest.json").read_text())
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": usage.ru_maxrss * 1024,
        "manifest": manifest,
        "bytes": sum(f["bytes"] for f in manifest["files"]),
    }


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return sorted(runs, key=lambda r: r["wall"])[len(runs) // 2]


def _timed(fn: Any, repeat: int = 3) -> float:
    fn()  # warm
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--memory", default="3GB", help="budget(s), comma-separated, e.g. 3GB,1GB")
    ap.add_argument("--puzzles", default="3x4,2x6")
    ap.add_argument("--work", default=None, help="folder for the builds (default: a temp dir)")
    ap.add_argument("--out", default="bench-results/bench-full.txt", help="a copy of the report")
    args = ap.parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as report:
        sys.stdout = _Tee(sys.stdout, report)
        try:
            _bench(args)
        finally:
            sys.stdout = sys.__stdout__
    print(f"(report also in {args.out})")


class _Tee:
    """Prints to the terminal and to the report file alike."""

    def __init__(self, *streams: Any) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
            s.flush()
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


def _bench(args: argparse.Namespace) -> None:
    work = Path(args.work or tempfile.mkdtemp(prefix="puzzledb-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    print(f"cores: {os.cpu_count()}, runs: {args.runs} (median shown)\n")
    baseline = _baseline(work, args.runs)
    rows, per_level, kept = _boards(args, work, baseline)
    print(f"baseline: 2x5 build (1,814,400 positions) {baseline:.2f} s wall, median\n")
    _print_boards(rows)
    for key, med in per_level.items():
        _print_levels(key, med)
    if "3x4" in kept:
        _queries(kept["3x4"])
    load_after = os.getloadavg()
    print(f"\nload average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    if not args.work:
        shutil.rmtree(work)


def _baseline(work: Path, runs: int) -> float:
    """The median wall time of a 2x5 build, the yardstick of this run."""
    base = []
    for i in range(runs):
        d = work / f"base{i}"
        base.append(_run_build("2x5", d, "3GB"))
        shutil.rmtree(d)
    return statistics.median(r["wall"] for r in base)


def _boards(
    args: argparse.Namespace, work: Path, baseline: float
) -> tuple[list[tuple], dict[str, dict[str, Any]], dict[str, Path]]:
    """Each board at each budget, ``args.runs`` times: a row of medians, the median run."""
    rows = []
    kept: dict[str, Path] = {}
    per_level: dict[str, dict[str, Any]] = {}
    for memory in args.memory.split(","):
        for name in args.puzzles.split(","):
            runs = []
            for i in range(args.runs):
                d = work / f"{name}-{memory}-{i}"
                runs.append(_run_build(name, d, memory))
                runs[-1]["dir"] = d
            med = _median_run(runs)
            for r in runs:
                if r is not med:
                    shutil.rmtree(r["dir"])
            if name in kept:
                shutil.rmtree(med["dir"])
            else:
                kept[name] = med["dir"]
            per_level[f"{name} {memory}"] = med
            rows.append(_row(name, memory, runs, med, baseline))
    return rows, per_level, kept


def _row(name: str, memory: str, runs: list[dict], med: dict, baseline: float) -> tuple:
    m = med["manifest"]
    return (
        name,
        memory,
        med["wall"],
        min(r["wall"] for r in runs),
        max(r["wall"] for r in runs),
        med["wall"] / baseline,
        med["cpu"],
        max(r["peak"] for r in runs) / 2**30,
        med["bytes"] / m["total"],
        m["total"] / med["wall"] / 1e6,
        max(lv.get("buckets", 1) for lv in m["levels"]),
    )


def _print_boards(rows: list[tuple]) -> None:
    head = (
        f"{'puzzle':<6} {'budget':>6} {'wall s':>8} {'min-max':>13} {'x base':>7} "
        f"{'cpu s':>7} {'peak GiB':>8} {'B/pos':>6} {'M pos/s':>8} {'buckets':>7}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r[0]:<6} {r[1]:>6} {r[2]:>8.1f} {r[3]:>6.1f}-{r[4]:<6.1f} {r[5]:>7.1f} "
            f"{r[6]:>7.1f} {r[7]:>8.2f} {r[8]:>6.2f} {r[9]:>8.2f} {r[10]:>7}"
        )


def _print_levels(key: str, med: dict[str, Any]) -> None:
    """The large levels of the median run, and where the time went."""
    levels = med["manifest"]["levels"]
    print(f"\n{key}: levels of 1M positions or more (median run)")
    print(
        f"{'depth':>5} {'positions':>12} {'s':>7} {'M/s':>6} {'bkts':>4} "
        f"{'expand':>7} {'dedup':>7} {'write':>7}"
    )
    for lv in levels:
        if lv["positions"] < 1_000_000:
            continue
        print(
            f"{lv['depth']:>5} {lv['positions']:>12,} {lv['seconds']:>7.2f} "
            f"{lv['positions'] / max(lv['seconds'], 1e-9) / 1e6:>6.2f} "
            f"{lv.get('buckets', 1):>4} {lv.get('expand_seconds', 0):>7.2f} "
            f"{lv.get('dedup_seconds', 0):>7.2f} {lv.get('write_wait_seconds', 0):>7.2f}"
        )
    tot = {
        k: sum(lv.get(k, 0.0) for lv in levels)
        for k in ("seconds", "expand_seconds", "dedup_seconds", "write_wait_seconds")
    }
    # Level steps (expansion, deduplication, the rest) run one after the other;
    # waiting for a level's writer comes after its step, while later ones run.
    rest = tot["seconds"] - tot["expand_seconds"] - tot["dedup_seconds"]
    print(
        f"where the time goes: level steps {tot['seconds']:.1f} s of "
        f"{med['wall']:.1f} s wall: expansion {tot['expand_seconds']:.1f} s, "
        f"deduplication {tot['dedup_seconds']:.1f} s, other (sampling, handing rows "
        f"to the writers) {rest:.1f} s; besides, waiting for the writers "
        f"{tot['write_wait_seconds']:.1f} s"
    )


def _queries(data: Path) -> None:
    import pipeline

    db = pipeline.open(data)
    db.write_catalog()
    deepest = db.longest("3x4")["position"].to_list()
    start = deepest[0]
    state = db.state("3x4", start)
    db.solve("3x4", start)  # warm: the footers are read, not these walks' row groups
    walks = []
    for other in deepest[1:4]:
        t = time.perf_counter()
        db.solve("3x4", other)
        walks.append(time.perf_counter() - t)
    walk = statistics.median(walks)
    hist = _timed(lambda: db.histogram("3x4").rows())
    cli = [sys.executable, "-m", "pipeline.cli", "histogram", "3x4", "--data", str(data)]
    hist_cli = _timed(lambda: subprocess.run(cli, capture_output=True, check=True), 1)
    con = db.connection()
    macro_sql = f"SELECT count(*) FROM path('3x4', {state}::UBIGINT)"
    macro = _timed(lambda: con.execute(macro_sql).fetchall(), 1)
    print("\n3x4 queries (median of 3)")
    print(f"  path from a new depth-53 position, API, footers warm: {walk * 1000:.0f} ms")
    print(f"  histogram, Python API (manifest):                    {hist * 1000:.1f} ms")
    print(f"  histogram, CLI process start to end:                 {hist_cli:.2f} s")
    print(f"  path macro in SQL (no session setting):              {macro:.2f} s")


if __name__ == "__main__":
    main()
