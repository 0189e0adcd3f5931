"""`make bench-lookups OLD=<rev> LOOKUP_DATA=<folder>`: point look-ups of an old commit
and this tree on the same files, cold and warm, in interleaved rounds.

The table (3x4 by default) must be built in LOOKUP_DATA by this tree. Its level files
are linked (hard links: the same bytes, the same page cache) into one folder per side:
this tree reads the manifest as built, the old commit (a temporary git worktree) and
this tree's reading of an older folder (``v1``) read it as format version 1 wrote it
(no column chunk hashes). Each round, in an order that alternates, every side runs

- ``show`` of the deepest position (a command: probes levels until it finds it),
- ``solve`` of it (a command: the walk to the goal, a row group a depth),
- ``position``: ``documents.position`` of it in a process (what ``/api/position``
  answers: the position and every move from it), the call alone timed,
- ``walk``: ``db.solve`` of it in a process, the call alone timed,

first cold (a fresh memory of checked files, ``PUZZLEDB_CACHE``) then warm (the same
memory again). The page cache is warm for every side alike (the first round is
discarded). Prints the median wall and CPU time of each and their ratios to OLD.

    python -m benchmarks.lookups OLD_REV DATA [--table 3x4] [--rounds 5]
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
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
#: Runs one command and prints its wall and CPU time (user + system) as JSON.
MEASURE = (
    "import json, resource, subprocess, sys, time; t = time.perf_counter(); "
    "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
    "w = time.perf_counter() - t; r = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(json.dumps({'wall': w, 'cpu': r.ru_utime + r.ru_stime}))"
)
#: A call on one position in a fresh process, the call alone timed: ``documents.position``
#: (what ``/api/position`` answers) or ``db.solve`` (the walk to the goal).
CALL = (
    "import json, sys, time, pipeline\n"
    "try:\n    from pipeline.serve import documents as look\n"
    "except ImportError:  # a commit from before the name\n    from pipeline.serve import look\n"
    "db = pipeline.open(sys.argv[1]); t, c = time.perf_counter(), time.process_time(); "
    "look.position(db, sys.argv[2], sys.argv[3]) if sys.argv[4] == 'position' "
    "else db.solve(sys.argv[2], sys.argv[3]); "
    "print(json.dumps({'wall': time.perf_counter() - t, 'cpu': time.process_time() - c}))"
)
#: Commands (a process each, timed whole) and calls (timed alone).
COMMANDS, CALLS = ("show", "solve"), ("position", "walk")
KINDS = (*COMMANDS, *CALLS)


def sides(old: Path, data: Path, table: str, work: Path) -> dict[str, tuple[Path, Path]]:
    """Per side, (its package's folder, its data folder)."""
    doc = json.loads((data / table / "_manifest.json").read_text())
    doc["format_version"] = 1
    for entry in doc["files"]:
        entry.pop("chunk_sha256", None)
    out = {"old": (old, work / "old"), "new": (HERE, work / "new"), "v1": (HERE, work / "v1")}
    for side, (_, folder) in out.items():
        (folder / table).mkdir(parents=True)
        for f in (data / table).glob("*.parquet"):
            os.link(f, folder / table / f.name)
        text = (data / table / "_manifest.json").read_text() if side == "new" else json.dumps(doc)
        (folder / table / "_manifest.json").write_text(text)
    return out


def run(src: Path, folder: Path, cache: Path, kind: str, table: str, text: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), PUZZLEDB_CACHE=str(cache))
    if kind in CALLS:
        cmd = [sys.executable, "-c", CALL, str(folder), table, text, kind]
    else:
        cli = [sys.executable, "-m", "pipeline.cli", kind, table, text, "--data", str(folder)]
        cmd = [sys.executable, "-c", MEASURE, *cli]
    out = subprocess.run(cmd, env=env, cwd=src, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{kind} failed with {src}: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def deepest(data: Path, table: str) -> str:
    cmd = [sys.executable, "-m", "pipeline.cli", "longest", table, "--json", "--data", str(data)]
    out = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True, check=True)
    return str(json.loads(out.stdout)["positions"][0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("data", type=Path)
    ap.add_argument("--table", default="3x4")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    text = deepest(args.data, args.table)
    with tempfile.TemporaryDirectory(prefix="bench-lookups-") as tmp:
        work = Path(tmp)
        old = work / "src"
        subprocess.run(["git", "worktree", "add", "--detach", str(old), args.old], check=True)
        try:
            runs = rounds(sides(old, args.data.resolve(), args.table, work), args, text, work)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], check=False)
    report(runs, args)


def rounds(
    side: dict[str, tuple[Path, Path]], args: argparse.Namespace, text: str, work: Path
) -> list[dict]:
    runs = []
    for r in range(args.rounds + 1):  # the first warms the page cache: not counted
        order = list(side) if r % 2 == 0 else list(reversed(side))
        for name in order:
            src, folder = side[name]
            for kind in KINDS:
                cache = work / f"cache-{name}-{kind}-{r}"
                for state in ("cold", "warm"):
                    got = run(src, folder, cache, kind, args.table, text)
                    if r:
                        runs.append({**got, "side": name, "kind": kind, "state": state})
                shutil.rmtree(cache, ignore_errors=True)
        print(f"round {r} done, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return runs


def report(runs: list[dict], args: argparse.Namespace) -> None:
    print(f"{args.table}, {args.rounds} rounds, OLD={args.old}; medians (s) and ratios to old")
    print(f"{'look-up':18} {'side':5} {'wall':>8} {'cpu':>8} {'wall/old':>9} {'cpu/old':>8}")
    for kind in KINDS:
        for state in ("cold", "warm"):
            base = _medians(runs, "old", kind, state)
            for side in ("old", "new", "v1"):
                m = _medians(runs, side, kind, state)
                print(
                    f"{kind + ' ' + state:18} {side:5} {m['wall']:8.3f} {m['cpu']:8.3f} "
                    f"{m['wall'] / base['wall']:9.3f} {m['cpu'] / base['cpu']:8.3f}"
                )


def _medians(runs: list[dict], side: str, kind: str, state: str) -> dict[str, float]:
    mine = [r for r in runs if (r["side"], r["kind"], r["state"]) == (side, kind, state)]
    return {k: statistics.median(r[k] for r in mine) for k in ("wall", "cpu")}


if __name__ == "__main__":
    main()
