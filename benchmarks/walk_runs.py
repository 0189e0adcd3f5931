"""One walk query timed in a fresh process, in DuckDB 2.x from Python or in the
DuckDB 1.x CLI: shared by bench-walk (walks.py) and its candidates (walk_candidates.py).

Each run connects to the catalog, runs the query twice (the first "cold", the
second "warm") and gives the times, the states walked and the process's seconds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TIMEOUT = 120

# One fresh interpreter: connect to the catalog, run the query twice, print times and rows.
PY_RUN = """
import json, sys, time
t0 = time.perf_counter()
import duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
times, rows = [], None
for _ in range(2):
    t = time.perf_counter()
    rows = con.execute(sys.argv[2]).fetchall()
    times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "states": [r[1] for r in rows],
                  "process": time.perf_counter() - t0}))
"""


def drop_caches() -> bool:
    """Empty the OS page cache (root only); False when it cannot."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def cli_path() -> Path:
    return Path(sys.executable).parent / "duckdb"


def cli_version() -> str:
    out = subprocess.run([str(cli_path()), "--version"], capture_output=True, text=True)
    return out.stdout.strip()


def deepest(data: Path, table: str) -> list[int]:
    """The states at the table's maximum depth, in state order."""
    from pipeline.engine.level import read_all
    from pipeline.storage.table import Table

    t = Table(data / table)
    return sorted(int(s) for s in read_all(t.level(t.max_depth)))


def run_python(catalog: Path, query: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", PY_RUN, str(catalog), query],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return json.loads(out.stdout)


def run_cli(catalog: Path, query: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The same in the DuckDB 1.x CLI: `.timer on`, the query twice (times as it prints them)."""
    script = f".timer on\n.mode csv\n{query};\n{query};\n"
    t0 = time.perf_counter()
    out = subprocess.run(
        [str(cli_path()), str(catalog)],
        input=script,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    process = time.perf_counter() - t0
    times = [float(x) for x in re.findall(r"Run Time \(s\): real ([\d.]+)", out.stdout)]
    first = out.stdout.split("Run Time")[0].splitlines()[1:]  # one result, header dropped
    return {
        "times": times,
        "states": [int(line.split(",")[1]) for line in first],
        "process": process,
    }
