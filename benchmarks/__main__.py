"""`make bench`: the issue-2 benchmarks, as a table of medians and ratios.

Commands are timed as a user runs them (a fresh interpreter each time); peak
memory is the child's maximum resident set (from wait4). A plain C
breadth-first enumeration (baseline_bfs.c, compiled here with gcc -O2) runs in
the same session so that the report gives ratios, which survive a noisy
shared machine better than seconds do. The table is printed and written to
bench-results/bench.md.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

RUNS = 3
HERE = Path(__file__).resolve().parent
LONGEST_2X5 = "0 9 3 7 1 5 4 8 2 6"


def run_timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"benchmark command failed: {' '.join(cmd)}\n{err}")
    return wall, usage.ru_maxrss * 1024


def median_of(fn: Callable[[], tuple[float, int]]) -> tuple[float, int]:
    results = [fn() for _ in range(RUNS)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def main() -> None:
    load_before = os.getloadavg()
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        m = _measure(Path(tmp))
    load_after = os.getloadavg()
    lines = [
        f"# puzzledb benchmarks (median of {RUNS} runs)",
        "",
        f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
        f"on {os.cpu_count()} cores",
        "",
        "| what | wall | peak RSS | notes |",
        "|---|---|---|---|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in _rows(m)],
    ]
    text = "\n".join(lines) + "\n"
    (out / "bench.md").write_text(text)
    print(text)


def _measure(tmpdir: Path) -> dict[str, float]:
    """Every figure of the table, measured in ``tmpdir``."""
    puzzledb = [sys.executable, "-m", "pipeline.cli"]
    data, paths_data = tmpdir / "data", tmpdir / "paths"
    baseline = tmpdir / "baseline_bfs"
    subprocess.run(["gcc", "-O2", "-o", str(baseline), str(HERE / "baseline_bfs.c")], check=True)
    m: dict[str, float] = {}
    m["c_wall"], m["c_rss"] = median_of(lambda: run_timed([str(baseline), "2", "5"]))
    m["py_wall"], _ = median_of(lambda: run_timed([sys.executable, "-c", "pass"]))

    def build(folder: Path, *extra: str) -> tuple[float, int]:
        shutil.rmtree(folder, ignore_errors=True)
        return run_timed([*puzzledb, "build", "2x5", *extra, "--data", str(folder)])

    m["b_wall"], m["b_rss"] = median_of(lambda: build(data))
    m["size"] = sum(f.stat().st_size for f in (data / "2x5").glob("*.parquet"))
    solve = [*puzzledb, "solve", "2x5", LONGEST_2X5, "--data", str(data)]
    m["s_wall"], m["s_rss"] = median_of(lambda: run_timed(solve))
    m["api"], m["cold_api"] = _api(data)
    m["p_wall"], m["p_rss"] = median_of(lambda: build(paths_data, "--paths"))
    m["p_size"] = sum(f.stat().st_size for f in (paths_data / "2x5").glob("*.parquet"))
    return m


def _api(data: Path) -> tuple[float, float]:
    """A warm solve through the API (median), and the first on a new Database."""
    from pipeline import open as open_db

    db = open_db(data)
    db.solve("2x5", LONGEST_2X5)  # open + warm
    api = []
    for _ in range(max(RUNS, 5)):
        t = time.perf_counter()
        assert db.solve("2x5", LONGEST_2X5).moves == 55
        api.append(time.perf_counter() - t)
    t = time.perf_counter()
    open_db(data).solve("2x5", "0 5 3 2 1 9 4 8 7 6")
    return statistics.median(api), time.perf_counter() - t


def _rows(m: dict[str, float]) -> list[tuple[str, str, str, str]]:
    positions = 1_814_400
    return [
        (
            "C baseline: enumerate 2x5 (no parents, no files)",
            f"{m['c_wall']:.3f} s",
            f"{m['c_rss'] / 2**20:.0f} MiB",
            f"{positions / m['c_wall'] / 1e6:.1f} M positions/s",
        ),
        ("python3 -c pass (interpreter start)", f"{m['py_wall']:.3f} s", "", ""),
        (
            "puzzledb build 2x5 (Parquet + catalog, as a command)",
            f"{m['b_wall']:.3f} s",
            f"{m['b_rss'] / 2**20:.0f} MiB",
            f"{positions / m['b_wall'] / 1e6:.2f} M positions/s; "
            f"{m['b_wall'] / m['c_wall']:.1f}x the C baseline; goal 1.5 s",
        ),
        (
            "puzzledb build 2x5 --paths (with path counts)",
            f"{m['p_wall']:.3f} s",
            f"{m['p_rss'] / 2**20:.0f} MiB",
            f"{m['p_wall'] / m['b_wall']:.2f}x the plain build; "
            f"{m['p_size'] / positions:.2f} B/position ({m['p_size'] / m['size']:.2f}x the disk)",
        ),
        (
            "bytes on disk per position (2x5)",
            f"{m['size'] / positions:.2f} B",
            "",
            f"{m['size'] / 2**20:.1f} MiB in all",
        ),
        (
            "puzzledb solve 2x5 from depth 55 (as a command)",
            f"{m['s_wall']:.3f} s",
            f"{m['s_rss'] / 2**20:.0f} MiB",
            "goal 1 s",
        ),
        ("API solve 2x5, first on a new Database", f"{m['cold_api'] * 1000:.1f} ms", "", ""),
        (
            "API solve 2x5 from depth 55, warm",
            f"{m['api'] * 1000:.2f} ms",
            "",
            "goal 50 ms",
        ),
    ]


if __name__ == "__main__":
    main()
