"""Benchmark of the Spark executor: one board through the local executor and through
Spark (the default threshold, then every level on Spark), median of ``--runs``,
and where each Spark level's time goes.

    python -m benchmarks.spark_bench [--board 2x5] [--runs 3] [--master local[2]]

All builds run in one process with one SparkSession (its start is reported
apart): the figures are the seconds of levels the manifest records
(``build.seconds``), computed and written. The load average is printed with
them: compare ratios within one run, not figures across machines.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import pipeline
from pipeline.executors.spark.executor import THRESHOLD, SparkExecutor
from pipeline.executors.spark.session import session

PHASES = ("plan", "job", "publish", "map_cpu", "exclude_read", "resolve", "write")


def _build(name: str, engine: Any) -> tuple[float, float]:
    """(seconds of levels in the manifest, wall seconds) of one build in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
        clock = time.perf_counter()
        (m,) = pipeline.open(Path(tmp)).build([name], engine=engine)
        return float(m.build["seconds"]), time.perf_counter() - clock


def _table(rows: list[dict[str, Any]]) -> None:
    print(f"{'depth':>5} {'positions':>10} {'ranges':>6} " + " ".join(f"{p:>12}" for p in PHASES))
    for t in rows:
        cells = " ".join(f"{t[p]:>12.3f}" for p in PHASES)
        print(f"{t['depth']:>5} {t['rows']:>10,} {t['ranges']:>6} {cells}")
    sums = " ".join(f"{sum(t[p] for t in rows):>12.3f}" for p in PHASES)
    print(f"{'all':>5} {'':>10} {'':>6} {sums}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="2x5")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args()
    clock = time.perf_counter()
    spark = session(args.master, {"spark.ui.enabled": "false"})
    print(f"SparkSession on {args.master} started in {time.perf_counter() - clock:.1f} s")
    _build(args.board, SparkExecutor(args.master, threshold=0))  # warm: numba caches, workers
    kinds: dict[str, Any] = {
        "local": lambda: "local",
        f"spark, threshold {THRESHOLD:,}": lambda: SparkExecutor(args.master),
        "spark, threshold 0": lambda: SparkExecutor(args.master, threshold=0),
    }
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    last: dict[str, Any] = {}
    for _ in range(args.runs):  # interleaved, so load changes touch every kind alike
        for kind, make in kinds.items():
            engine = make()
            times[kind].append(_build(args.board, engine))
            last[kind] = engine
    load = os.getloadavg()
    print(f"\n{args.board}, median of {args.runs}, load average {load[0]:.2f} {load[1]:.2f}")
    base = statistics.median(t[0] for t in times["local"])
    print(f"{'executor':<28} {'levels s':>9} {'wall s':>8} {'x local':>8}")
    for kind, got in times.items():
        lv, wall = statistics.median(t[0] for t in got), statistics.median(t[1] for t in got)
        print(f"{kind:<28} {lv:>9.2f} {wall:>8.2f} {lv / base:>8.1f}")
    for kind, engine in last.items():
        if kind != "local":
            print(f"\nwhere the Spark levels' time went ({kind}, last run; seconds):")
            _table(engine.timings)
    spark.stop()


if __name__ == "__main__":
    main()
