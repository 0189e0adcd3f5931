"""`make bench-cube`: optimal solutions of the 3x3x3 cube, each in its own process, beside
twsearch.

A seeded set of scrambles (random canonical sequences: no turn after one of
the same face, of two opposite faces one order only) of 10 to 15 moves is
solved by ``puzzledb solve cube3 --turns SCRAMBLE`` (with ``--tables seven``, by
``python -m benchmarks.cube --one DATA SCRAMBLE``) in a fresh process each:
Python's start, the imports, mapping the pattern tables' arrays (their pages
read as the search touches them), the position's check and the search are all
counted, as a user's ``solve`` pays them. When a
twsearch binary is given (built outside the repository: docs/BENCHMARKS.md),
``twsearch -t 1 -M 2048 --scramblealg SCRAMBLE FILE`` solves the same
scramble, the two in turn (the order alternating), its pruning table read
from its cache: the first run fills it to the depth its memory allows
(``--startprunedepth 20 --writeprunetables always``) unless it is there.
Printed: a row a scramble (its optimal length, our CPU and wall time, nodes,
twsearch's, the ratio of CPU), the totals, and the load averages seen.

    python -m benchmarks.cube [--data DIR] [--seed 1] [--lengths 10,11,12,13,14,15]
        [--tables korf|seven] [--symmetric 2] [--twsearch BIN --tws 3x3x3.tws]
        [--hard SCRAMBLE]

The cube's pattern tables are built into DATA first when missing (``cube3-pdb``,
Korf's three, minutes; ``cube3-pdb7``, the corners and two seven-edge tables,
about 20 minutes of CPU), and their arrays derived by a first solve.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.twisty import MEASURE

HERE = Path(__file__).resolve().parents[1]
#: twsearch's options: one thread, 2 GB for its pruning table.
TWSEARCH_OPTIONS = ["-t", "1", "-M", "2048"]


def measured(cmd: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, cwd=HERE
    )
    got = json.loads(out.stdout)
    if got["code"]:
        raise SystemExit(f"{' '.join(cmd[:6])} ... failed: {got['err'].strip()[-400:]}")
    return got


def scrambles(seed: int, lengths: list[int]) -> list[str]:
    """Random canonical sequences of the cube's turns, one a length."""
    from pipeline.solvers import twisty_layout

    d, turns = cube()
    machine = twisty_layout.canonical(d, turns)
    rng = random.Random(seed)
    out = []
    for n in lengths:
        state, names = 0, []
        while len(names) < n:
            t = rng.randrange(len(turns))
            if machine[state, t] >= 0:
                state = int(machine[state, t])
                names.append(turns[t].name)
        out.append(" ".join(names))
    return out


#: The pattern tables searched: Korf's three (``cube3-pdb``), or the corners and two
#: seven-edge tables (``cube3-pdb7``).
TABLE_SETS = {"korf": "cube3-pdb", "seven": "cube3-pdb7"}


def cube() -> tuple:
    """The built-in cube's definition and turns."""
    from pipeline.puzzles.twisty import cube3

    return cube3.CUBE3.definition, list(cube3.CUBE3.turns)


def patterns(tables: str) -> list:
    """The pattern puzzles of a set of tables (TABLE_SETS)."""
    from pipeline.puzzles.twisty import cube3

    if tables == "seven":
        return [cube3.TABLES[0], *cube3.TABLES7]
    return list(cube3.TABLES)


def one(data: Path, scramble: str, tables: str, symmetric: int) -> None:
    """Solve one scramble as a user's solve would (tables mapped, position checked)."""
    import pipeline
    from pipeline.puzzles.twisty import group
    from pipeline.solvers import twisty_layout, twisty_search

    began = time.perf_counter()
    d, turns = cube()
    db = pipeline.open(data)
    found = [
        twisty_search.pattern_table(d, turns, p.definition, p.turns, db.table(p.name))
        for p in patterns(tables)
    ]
    if symmetric:
        lay = twisty_layout.layout(d)
        found += twisty_search.symmetric(lay, found, group.symmetries(d, turns), symmetric)
    search = twisty_search.TwistySearch(d, turns, found)
    parts = search.apply(d.solved, scramble.split())
    why = group.why_not(d, turns, parts)
    if why is not None:
        raise SystemExit(why)
    ready = time.perf_counter()
    sol = search.solve(parts)
    assert sol is not None and search.apply(parts, sol.turns) == d.solved
    print(json.dumps({
        "length": sol.length, "nodes": sol.nodes, "search": sol.seconds,
        "setup": ready - began, "solution": " ".join(sol.turns),
    }))  # fmt: skip


def ensure_tables(data: Path, tables: str) -> None:
    """The tables built into ``data`` (and their arrays derived) when missing."""
    import pipeline

    db = pipeline.open(data)
    missing = [p.name for p in patterns(tables) if not db.is_built(p.name)]
    if missing:
        print(f"building {' '.join(missing)} into {data} first", file=sys.stderr)
        db.build(missing)
    measured([sys.executable, "-m", "benchmarks.cube", "--one", str(data), "U", tables, "0"])


def ours(data: Path, scramble: str, tables: str, symmetric: int) -> dict:
    """One scramble solved in a process: by ``puzzledb solve cube3 --turns`` (what a user
    runs: Korf's tables, two symmetric look-ups) for ``korf``, else by :func:`one`."""
    if tables == "korf" and symmetric == 2:
        cli = [sys.executable, "-m", "pipeline.cli", "solve", "cube3", "--turns", scramble]
        got = measured([*cli, "--data", str(data)])
        length = re.search(r"(\d+) moves? to the goal", got["out"])
        nodes = re.search(r"([\d,]+) nodes", got["out"])
        assert length and nodes, got["out"]
        return {
            **got,
            "length": int(length.group(1)),
            "nodes": int(nodes.group(1).replace(",", "")),
        }
    cmd = [sys.executable, "-m", "benchmarks.cube", "--one", str(data), scramble, tables]
    got = measured([*cmd, str(symmetric)])
    return {**got, **json.loads(got["out"].strip().splitlines()[-1])}


def theirs(binary: Path, tws: Path, cache: Path, scramble: str) -> dict:
    cmd = [str(binary), *TWSEARCH_OPTIONS, "--cachedir", str(cache)]
    got = measured([*cmd, "--scramblealg", scramble, str(tws)])
    found = re.search(r"Found \d+ solution max depth (\d+)", got["out"])
    length = int(found.group(1)) if found else None
    return {**got, "length": length, "filled": "Filling" in got["out"]}


def warm(binary: Path, tws: Path, cache: Path) -> None:
    """twsearch's pruning table filled as far as its memory allows, and kept in ``cache``."""
    if cache.exists() and any(cache.glob("*.dat")):
        return
    cache.mkdir(parents=True, exist_ok=True)
    print(f"filling twsearch's pruning table into {cache} (minutes, once)", file=sys.stderr)
    cmd = [str(binary), *TWSEARCH_OPTIONS, "--cachedir", str(cache), "--startprunedepth", "20"]
    measured([*cmd, "--writeprunetables", "always", "--scramblealg", "R U F", str(tws)])


def run(args: argparse.Namespace) -> list[dict]:
    rows = []
    cache = args.cache.resolve()
    if args.twsearch:
        warm(args.twsearch, args.tws, cache)
    for k, scramble in enumerate(scrambles(args.seed, args.lengths) + args.hard):
        sides = ["ours", "twsearch"] if args.twsearch and scramble not in args.hard else ["ours"]
        row: dict = {"scramble": scramble, "moves": len(scramble.split())}
        for side in sides if k % 2 == 0 else reversed(sides):
            row["load"] = os.getloadavg()[0]
            if side == "ours":
                row["ours"] = ours(args.data, scramble, args.tables, args.symmetric)
            else:
                row["twsearch"] = theirs(args.twsearch, args.tws, cache, scramble)
            row[side].pop("out", None)
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def report(rows: list[dict]) -> None:
    print(
        "| moves | optimal | ours: CPU s | wall s | nodes | twsearch: CPU s | wall s | CPU ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    mine = theirs_total = 0.0
    for r in rows:
        o, t = r["ours"], r.get("twsearch")
        mine += o["cpu"]
        line = f"| {r['moves']} | {o['length']} | {o['cpu']:.2f} | {o['wall']:.2f} |"
        line += f" {o['nodes']:,} |"
        if t is not None:
            theirs_total += t["cpu"]
            same = "" if t["length"] == o["length"] else f" (length {t['length']}!)"
            line += f" {t['cpu']:.2f}{same} | {t['wall']:.2f} | {o['cpu'] / t['cpu']:.2f} |"
        else:
            line += " | | |"
        print(line)
    total = f"total CPU: ours {mine:.1f} s"
    if theirs_total:
        compared = sum(r["ours"]["cpu"] for r in rows if "twsearch" in r)
        total += f", twsearch {theirs_total:.1f} s: {compared / theirs_total:.2f} of its CPU"
    loads = [r["load"] for r in rows]
    print(total)
    print(
        f"load average during the runs: median {statistics.median(loads):.2f}, "
        f"{min(loads):.2f} to {max(loads):.2f}; {time.strftime('%Y-%m-%d')}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "bench-results" / "cube-data")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--lengths", type=lambda s: [int(x) for x in s.split(",")], default=[10, 11, 12, 13, 14, 15]
    )
    parser.add_argument("--twsearch", type=Path, help="a twsearch binary (built outside the repo)")
    parser.add_argument("--tws", type=Path, help="its 3x3x3.tws (twsearch's sample)")
    parser.add_argument("--cache", type=Path, default=HERE / "bench-results" / "twsearch-cache")
    parser.add_argument("--hard", action="append", default=[], help="a scramble solved by us only")
    parser.add_argument("--tables", choices=sorted(TABLE_SETS), default="korf")
    parser.add_argument(
        "--symmetric", type=int, default=2, help="look-ups of each edge table on conjugates"
    )
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(Path(args.one[0]), args.one[1], args.one[2], int(args.one[3]))
        return
    if args.twsearch and not args.tws:
        parser.error("--twsearch needs --tws (twsearch's samples/main/3x3x3.tws)")
    ensure_tables(args.data, args.tables)
    report(run(args))


if __name__ == "__main__":
    main()
