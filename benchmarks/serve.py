"""`make bench-serve`: the explorer's position pages, cold and warm, its memory, and a load test.

    python -m benchmarks.serve [--data data] [--tables 3x4] [--requests 3000] [--clients 50]

For each table a fresh `puzzledb serve` (a subprocess on a free port of
127.0.0.1) is started; "cold" is its first position page (the board, every
move's depth, the walk to the root), "warm" the median of the next pages,
each a different position (the moves out of the first). Then a bounded load
test: ``--requests`` GETs of position pages and JSON answers from
``--clients`` threads, every answer checked for status 200; it stops by
itself. The server's RSS (VmRSS) is read before and after. 3x4 is built into
``--data`` when missing (``puzzledb build 3x4``: minutes); french37 is read
from $FRENCH_DATA when set, else skipped with a line saying so.
Goals (issue #37): warm <= 50 ms, cold <= 0.5 s, RSS growth <= 100 MB, no errors.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pipeline

WARM_GOAL, COLD_GOAL, RSS_GOAL = 0.050, 0.5, 100.0


@contextmanager
def server(data: Path) -> Iterator[tuple[str, int]]:
    """A fresh `puzzledb serve` on ``data``: its base URL and process id."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "pipeline.cli", "serve", "--data", str(data), "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(base)
        yield base, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _wait(base: str) -> None:
    for _ in range(600):
        try:
            with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), 1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("bench-serve: the server did not start")


def get(url: str) -> tuple[int, float]:
    """Status and seconds of one GET."""
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    except OSError:
        status = 0
    return status, time.perf_counter() - t0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(data: Path, name: str, requests: int, clients: int) -> dict[str, float]:
    """Cold and warm page times, RSS before/after and the load test's figures for one table."""
    db = pipeline.open(data)
    start = str(db.longest(name)["position"][0])
    kids = [m["position"] for m in _moves(db, name, start)] or [start]  # a dead end: itself
    with server(data) as (base, pid):
        page = f"{base}/p/{name}?s="
        rss_start = rss_mb(pid)
        status, cold = get(page + quote(start))
        warm = [get(page + quote(k))[1] for k in kids * 5]
        urls = [page + quote(k) for k in kids] + [
            f"{base}/api/position/{name}?s={quote(k)}" for k in kids
        ]
        rss0 = rss_mb(pid)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            got = list(pool.map(lambda i: get(urls[i % len(urls)])[0], range(requests)))
        seconds = time.perf_counter() - t0
        rss1 = rss_mb(pid)
    return {
        "cold": cold if status == 200 else float("nan"),
        "warm": statistics.median(warm),
        "rss_start": rss_start,
        "rss_before": rss0,
        "rss_after": rss1,
        "per_second": requests / seconds,
        "errors": sum(s != 200 for s in got),
    }


def _moves(db: pipeline.Database, name: str, text: str) -> list[dict]:
    from pipeline.serve import documents

    return documents.position(db, name, text)["moves"]


def report(name: str, r: dict[str, float]) -> bool:
    ok = (
        r["warm"] <= WARM_GOAL
        and r["cold"] <= COLD_GOAL
        and r["rss_after"] - r["rss_before"] <= RSS_GOAL
        and r["errors"] == 0
    )
    print(
        f"{name}: cold {r['cold'] * 1000:.0f} ms, warm {r['warm'] * 1000:.1f} ms (median), "
        f"RSS {r['rss_start']:.0f} MB at start, {r['rss_before']:.0f} -> {r['rss_after']:.0f} MB "
        "over the load test, "
        f"load {r['per_second']:.0f} requests/s, {r['errors']:.0f} errors: "
        f"{'ok' if ok else 'MISSES A GOAL'}"
    )
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("data"))
    ap.add_argument("--tables", default="3x4")
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--clients", type=int, default=50)
    a = ap.parse_args()
    jobs = [(a.data, n) for n in a.tables.split(",") if n]
    french = os.environ.get("FRENCH_DATA")
    if french:
        jobs.append((Path(french), "french37"))
    else:
        print("french37: skipped (set FRENCH_DATA to a folder holding it)")
    ok = True
    for data, name in jobs:
        if not pipeline.open(data).is_built(name):
            print(f"building {name} into {data} ...", flush=True)
            pipeline.open(data).build([name])
        ok = report(name, measure(data, name, a.requests, a.clients)) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
