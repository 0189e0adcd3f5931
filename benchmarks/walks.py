"""`make bench-walk`: the ``path`` macro from the deepest positions, cold and warm.

    python -m benchmarks.walks [--data data] [--tables 3x4,2x6] [--candidates]

For every position at a table's maximum depth (3x4: 18 at depth 53, 2x6: 2 at
depth 80) it runs ``SELECT * FROM path(table, state)`` in a fresh process,
twice on one connection: the first run is "cold" (with the OS page cache
dropped first when run as root, else only a fresh process), the second
"warm". Once in DuckDB 2.x from Python and once in the DuckDB 1.x CLI
(``.venv/bin/duckdb``), both on the catalog file with no session setting.
The baseline, in the same run and the same way, is ``puzzledb solve``'s own
walk (``pipeline.open(data).solve``). Every walk is checked against
``solve``'s states. ``--candidates`` also times the shapes the macro was
chosen from on the first 3x4 position (see docs/BENCHMARKS.md).
The load average is printed before and after; the report is also written to
bench-results/bench-walk.txt.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks import walk_candidates
from benchmarks.walk_runs import TIMEOUT, cli_version, deepest, drop_caches, run_cli, run_python

GOAL_WARM, GOAL_COLD = 0.5, 2.0

SOLVE_RUN = """
import json, sys, time
t0 = time.perf_counter()
import pipeline
db = pipeline.open(sys.argv[1])
times, states = [], None
for _ in range(2):
    t = time.perf_counter()
    states = db.solve(sys.argv[2], int(sys.argv[3])).states
    times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "states": states, "process": time.perf_counter() - t0}))
"""


def run_solve(data: Path, table: str, state: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", SOLVE_RUN, str(data), table, str(state)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    return json.loads(out.stdout)


def bench_table(data: Path, catalog: Path, table: str, drop: bool) -> list[dict[str, Any]]:
    """Every deepest position of ``table`` in each engine; rows checked against solve."""
    results: list[dict[str, Any]] = []
    for state in deepest(data, table):
        query = f"SELECT * FROM path('{table}', {state})"
        for engine, run in (
            ("solve (baseline)", lambda s=state: run_solve(data, table, s)),
            ("DuckDB 2.x Python", lambda q=query: run_python(catalog, q)),
            ("DuckDB 1.x CLI", lambda q=query: run_cli(catalog, q)),
        ):
            if drop:
                drop_caches()
            r = run()
            r.update(table=table, engine=engine, state=state)
            results.append(r)
        base = results[-3]["states"]
        for r in results[-2:]:
            if r["states"] != base:
                raise SystemExit(f"{r['engine']} walk from {state} differs from solve's")
    return results


def summary(results: list[dict[str, Any]]) -> list[str]:
    """One line per table and engine: medians and maxima of cold and warm seconds."""
    lines = [
        f"{'table':<6} {'engine':<18} {'n':>3} {'cold med':>9} {'cold max':>9} "
        f"{'warm med':>9} {'warm max':>9} {'process':>8} {'warm x solve':>12}"
    ]
    keys = sorted({(r["table"], r["engine"]) for r in results}, key=lambda k: (k[0], k[1]))
    base_warm = {
        t: statistics.median(
            r["times"][1] for r in results if r["table"] == t and "solve" in r["engine"]
        )
        for t, _ in keys
    }
    for table, engine in keys:
        rs = [r for r in results if r["table"] == table and r["engine"] == engine]
        cold = [r["times"][0] for r in rs]
        warm = [r["times"][1] for r in rs]
        lines.append(
            f"{table:<6} {engine:<18} {len(rs):>3} {statistics.median(cold):>9.3f} "
            f"{max(cold):>9.3f} {statistics.median(warm):>9.3f} {max(warm):>9.3f} "
            f"{statistics.median(r['process'] for r in rs):>8.2f} "
            f"{statistics.median(warm) / base_warm[table]:>12.1f}"
        )
    return lines


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data")
    ap.add_argument("--tables", default="3x4,2x6")
    ap.add_argument("--no-drop", action="store_true", help="keep the OS page cache")
    ap.add_argument("--candidates", action="store_true", help="also time the other shapes")
    ap.add_argument("--out", default="bench-results/bench-walk.txt")
    args = ap.parse_args()
    import duckdb

    import pipeline

    data = Path(args.data)
    catalog = pipeline.open(data).write_catalog()
    drop = not args.no_drop and drop_caches()
    lines = [
        f"load average before: {load()}; cores: {os.cpu_count()}; "
        f"cold = fresh process{' and OS page cache dropped' if drop else ' (page cache kept)'}",
        f"DuckDB {duckdb.__version__} (Python), CLI {cli_version()}",
    ]
    print("\n".join(lines), flush=True)
    if args.candidates:  # printed as they come
        lines += walk_candidates.report(data, catalog, args.tables.split(",")[0])
    results = []
    for table in args.tables.split(","):
        results += bench_table(data, catalog, table, drop)
    table = summary(results)
    table.append(f"goal: warm <= {GOAL_WARM} s, cold <= {GOAL_COLD} s; load after: {load()}")
    print("\n".join(table))
    lines += table
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
