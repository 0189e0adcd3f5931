"""A big board's build with its figures: per level positions, rate, buckets, bytes; peak disk.

    python -m benchmarks.bigpeg [NAME ...] --data DIR [--memory 3GB] [--max-depth N]
        [--report-only]

Runs ``puzzledb build NAME --data DIR --memory M`` as a child process (its
lines echoed with a UTC time stamp), samples the size of DIR every few
seconds from a thread (the finished table, the staging folder and the spill
files all sit under it), then prints one line a level from the table's
manifest (or, while unfinished, its progress file): positions, seconds,
positions a second, buckets, bytes a position on disk; and the totals, the
peak disk, the child's peak memory and the load average. ``--report-only``
prints the table of a build already there (with ``--du LOG``: the peak of a
sampling log of lines ``time bytes ...``). Several names are built one after
the other in the same run, into the same DIR (the peak disk of each is what
it added to DIR), and the last lines compare
each board's positions a second over its level steps with the first's: the
French board's goal is 80% of the English board's (``make bench-french37``),
the diamond's classes 80% of the French board's (``make bench-diamond41``:
``french37-sym diamond41-sym``; a table of classes also prints the positions
its classes stand for, its orbit sums). ``--max-depth N`` builds the first
levels only (a short run of the same comparison).
A name given again is built again (``--force``): the machine's speed drifts
by a tenth and more over a quarter of an hour, so ``english33 french37
english33`` times the baseline on both sides of the long build and compares
with the mean of its runs.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

EVERY = 3.0  # seconds between two samples of the disk


def _size(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for f in files:
            with contextlib.suppress(FileNotFoundError):  # a spill file removed meanwhile
                total += os.lstat(os.path.join(root, f)).st_size
    return total


def _stamp() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def build(
    name: str, data: Path, memory: str, force: bool = False, max_depth: int | None = None
) -> tuple[int, float]:
    """Run the build (``force``: again, over the table there); (peak bytes it added
    under ``data``, its peak memory in GB)."""
    before = _size(data) if data.exists() else 0  # tables of other boards built before
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(EVERY):
            peak[0] = max(peak[0], _size(data))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    cmd = [sys.executable, "-m", "pipeline.cli", "build", name, "--data", str(data)]
    cmd += ["--force"] if force else []
    cmd += ["--max-depth", str(max_depth)] if max_depth is not None else []
    print(_stamp(), "start", " ".join(cmd[2:]), "--memory", memory, "load", os.getloadavg())
    child = subprocess.Popen(
        [*cmd, "--memory", memory], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert child.stdout is not None
    for line in child.stdout:
        print(_stamp(), line.rstrip(), flush=True)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not every child's
    child.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    thread.join()
    peak[0] = max(peak[0], _size(data))
    print(_stamp(), "end, exit", child.returncode, "load", os.getloadavg())
    return peak[0] - before, usage.ru_maxrss / 1e6


def _levels(data: Path, name: str) -> tuple[list[dict], list[dict]]:
    """(levels, files) of the finished manifest, else of the build's progress file."""
    for path in (data / name / "_manifest.json", data / ".staging" / name / "progress.json"):
        if path.exists():
            doc = json.loads(path.read_text())
            return doc["levels"], doc["files"]
    raise SystemExit(f"no table {name} under {data}")


def report(data: Path, name: str) -> float:
    """One line a level, then the totals; returns positions a second over the level steps."""
    levels, files = _levels(data, name)
    size: dict[int, int] = {}
    for f in files:
        size[f["depth"]] = size.get(f["depth"], 0) + f["bytes"]
    print(
        f"{'depth':>5} {'positions':>14} {'seconds':>9} {'M pos/s':>8} {'buckets':>7} {'B/pos':>6}"
    )
    for lv in levels:
        d, n, s = lv["depth"], lv["positions"], lv["seconds"]
        rate = n / s / 1e6 if s else 0.0
        print(
            f"{d:>5} {n:>14,} {s:>9.1f} {rate:>8.2f} {lv.get('buckets', 1):>7}"
            f" {size.get(d, 0) / n:>6.2f}"
        )
    total, seconds, disk = (
        sum(lv["positions"] for lv in levels),
        sum(lv["seconds"] for lv in levels),
        sum(size.values()),
    )
    if all("orbit_positions" in lv for lv in levels):
        print(f"the classes stand for {sum(lv['orbit_positions'] for lv in levels):,} positions")
    print(
        f"total {total:,} positions over {len(levels) - 1} levels, {seconds:.0f} s of level "
        f"steps ({total / max(seconds, 1e-9) / 1e6:.2f} M/s), {disk / 1e9:.2f} GB on disk, "
        f"{disk / max(total, 1):.2f} bytes a position"
    )
    return total / max(seconds, 1e-9)


def _peak_of_log(log: Path) -> int:
    return max(int(line.split()[1]) for line in log.read_text().splitlines() if line.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=["french37"])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--memory", default="3GB")
    ap.add_argument("--max-depth", type=int, help="build the first levels only")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--du", type=Path, help="a disk sampling log (time bytes ...)")
    args = ap.parse_args()
    rates: dict[str, list[float]] = {}
    for name in args.names:
        data = args.data
        clock = time.perf_counter()
        if not args.report_only:
            peak, rss = build(name, data, args.memory, name in rates, args.max_depth)
            print(f"wall {time.perf_counter() - clock:.0f} s, peak memory {rss:.2f} GB")
            print(f"peak disk under {data}: {peak / 1e9:.2f} GB")
        elif args.du:
            print(f"peak disk (sampled): {_peak_of_log(args.du) / 1e9:.2f} GB")
        rates.setdefault(name, []).append(report(data, name))
    compare(rates, args.names[0])


def compare(rates: dict[str, list[float]], first: str) -> None:
    """Each board's rate against the mean of the first board's runs (each run listed)."""
    base = sum(rates[first]) / len(rates[first])
    runs = ", ".join(f"{r / 1e6:.2f}" for r in rates[first])
    for name, got in rates.items():
        if name == first:
            continue
        rate = sum(got) / len(got)
        print(
            f"{name}: {rate / 1e6:.2f} M positions/s over its level steps, "
            f"{rate / base:.0%} of {first}'s {base / 1e6:.2f} (runs: {runs}; "
            f"{rate / max(rates[first]):.0%} of the fastest)"
        )


if __name__ == "__main__":
    main()
