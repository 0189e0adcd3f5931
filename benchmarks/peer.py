"""`make bench-peer PEER=path/to/peer_bfs`: our builds against a C++ breadth-first search.

The peer is lightln2's PuzzleSearch in-memory frontier search (one thread,
counts only), built outside this repository: its driver takes ``WIDTH HEIGHT
frontier`` and prints ``depth count`` lines and ``total N``. Each round runs
the peer and ``puzzledb build B --force`` (into a fresh folder) on every
board, the order alternating round by round so that a change of load hits
both alike; each run is a child process whose CPU time (user + system), wall
time and peak memory (``ru_maxrss``) are its own. Then it prints, per board,
the medians, ours over the peer's, the table's bytes, and whether the counts
at every depth agree (it stops if they do not), with the load averages seen.

    python -m benchmarks.peer PEER [--rounds 3] [--boards 3x4,2x6] [--one-core]
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

HERE = Path(__file__).resolve().parents[1]
#: Board name to the peer's arguments (WIDTH HEIGHT): rows x columns here.
BOARDS = {"3x4": ("4", "3"), "2x6": ("6", "2"), "2x5": ("5", "2"), "3x3": ("3", "3")}


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[dict[str, float], str]:
    """Run ``cmd`` as a child; its wall, CPU (user + system) and peak RSS, and its stdout."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env=env, cwd=HERE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        err = proc.stderr.read().decode() if proc.stderr else ""
        out.seek(0)
        text = out.read().decode()
    if status:
        raise SystemExit(f"bench-peer: {' '.join(cmd)} failed:\n{err.strip()[-500:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "peak": usage.ru_maxrss * 1024}, text


def peer_counts(text: str) -> list[int]:
    """The peer's count at each depth, from its ``depth count`` lines."""
    counts = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            assert int(parts[0]) == len(counts), f"the peer's depths are out of order: {line}"
            counts.append(int(parts[1]))
    return counts


def run_peer(peer: str, board: str, pin: list[str]) -> dict:
    m, text = timed([*pin, peer, *BOARDS[board], "frontier"])
    return {**m, "counts": peer_counts(text)}


def run_ours(board: str, work: Path, pin: list[str], memory: str) -> dict:
    folder = work / f"data-{board}"
    shutil.rmtree(folder, ignore_errors=True)
    cmd = [sys.executable, "-m", "pipeline.cli", "build", board, "--data", str(folder)]
    env = dict(os.environ, PYTHONPATH=str(HERE))
    m, _ = timed([*pin, *cmd, "--force", "--memory", memory], env)
    manifest = json.loads((folder / board / "_manifest.json").read_text())
    shutil.rmtree(folder, ignore_errors=True)
    counts = [lv["positions"] for lv in manifest["levels"]]
    return {**m, "counts": counts, "bytes": sum(f["bytes"] for f in manifest["files"])}


def table(runs: list[dict], boards: list[str]) -> list[str]:
    """The report: a markdown table of medians and ratios, then the load."""
    lines = [
        "| board | peer CPU | ours CPU | ours / peer | peer wall | ours wall | ours / peer "
        "| peak memory, peer / ours | table | counts |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---|",
    ]
    for board in boards:
        side = {
            s: [r for r in runs if r["board"] == board and r["side"] == s] for s in ("peer", "ours")
        }
        med = {s: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "peak")}
               for s, rs in side.items()}  # fmt: skip
        p, o = med["peer"], med["ours"]
        cpu_ratios = ", ".join(f"{r['cpu']:.1f}" for r in side["ours"])
        lines.append(
            f"| {board} | {p['cpu']:.1f} s | {o['cpu']:.1f} s ({cpu_ratios}) | "
            f"**{o['cpu'] / p['cpu']:.2f}** | {p['wall']:.1f} s | {o['wall']:.1f} s | "
            f"**{o['wall'] / p['wall']:.2f}** | {p['peak'] / 1e6:,.0f} MB / "
            f"{o['peak'] / 1e6:,.0f} MB | {side['ours'][0]['bytes'] / 1e6:,.0f} MB | "
            f"equal at all {len(side['ours'][0]['counts'])} depths |"
        )
    loads = [r["load"] for r in runs]
    lines.append("")
    lines.append(
        f"{len(runs) // (2 * len(boards))} rounds; load average (1 min) before each run: "
        f"median {statistics.median(loads):.2f}, {min(loads):.2f} to {max(loads):.2f}"
    )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("peer", help="the peer's binary (peer_bfs WIDTH HEIGHT frontier)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--boards", default="3x4,2x6")
    ap.add_argument("--memory", default="3GB", help="our build's budget")
    ap.add_argument("--one-core", action="store_true", help="both pinned to CPU 0 (taskset)")
    ap.add_argument("--out", default="bench-results/bench-peer.md", help="a copy of the table")
    args = ap.parse_args()
    if not os.access(args.peer, os.X_OK):
        raise SystemExit(f"bench-peer: {args.peer} is not an executable")
    boards = args.boards.split(",")
    pin = ["taskset", "-c", "0"] if args.one_core else []
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="puzzledb-peer-") as tmp:
        for r in range(args.rounds):
            for board in boards:
                order = ["peer", "ours"] if r % 2 == 0 else ["ours", "peer"]
                for side in order:
                    load = os.getloadavg()[0]
                    if side == "peer":
                        m = run_peer(args.peer, board, pin)
                    else:
                        m = run_ours(board, Path(tmp), pin, args.memory)
                    m.update(side=side, board=board, round=r, load=load)
                    print(json.dumps({k: v for k, v in m.items() if k != "counts"}), flush=True)
                    runs.append(m)
                _same_counts([x for x in runs if x["board"] == board], board)
    lines = table(runs, boards)
    print("\n".join(lines))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")


def _same_counts(runs: list[dict], board: str) -> None:
    """Stop unless every run of ``board`` counted the same positions at every depth."""
    first = runs[0]["counts"]
    for r in runs[1:]:
        if r["counts"] != first:
            depth = next(
                (d for d, (a, b) in enumerate(zip(first, r["counts"], strict=False)) if a != b),
                min(len(first), len(r["counts"])),
            )
            raise SystemExit(
                f"bench-peer: {board}: {r['side']} counts differ from {runs[0]['side']}'s "
                f"at depth {depth} ({len(r['counts'])} depths against {len(first)})"
            )


if __name__ == "__main__":
    main()
