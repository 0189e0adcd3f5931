"""The shapes the ``path`` macro was chosen from, timed on one position (bench-walk --candidates).

Each runs in a fresh process, twice on one connection (the second run is the
warm time), in DuckDB 2.x from Python and in the DuckDB 1.x CLI, with no
session setting and a time limit; see docs/BENCHMARKS.md.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from benchmarks import walk_runs
from pipeline.query.walk_sql import _files_by_depth
from pipeline.storage import manifest

LIMIT = 30


def recursive_join(table: str, start: int) -> str:
    """The macro before: a recursive CTE joining the walk to the table's view."""
    return (
        f"WITH RECURSIVE walk(step, state, depth, parent) AS ("
        f'SELECT 0, state, depth, parent FROM "{table}" WHERE state = {start} UNION ALL '
        f'SELECT walk.step + 1, t.state, t.depth, t.parent FROM "{table}" t '
        "JOIN walk ON t.state = walk.parent) SELECT * FROM walk ORDER BY step"
    )


def recursive_semi(table: str, start: int) -> str:
    """A recursive CTE whose step is a semi-join on the walk (the walk is the build side)
    with the depth as a second key, so each step prunes to about one row group."""
    return (
        f"WITH RECURSIVE walk(step, state, depth, parent) AS ("
        f'SELECT 0, state, depth, parent FROM "{table}" WHERE state = {start} UNION ALL '
        f'SELECT (SELECT max(step) + 1 FROM walk), state, depth, parent FROM "{table}" '
        "WHERE state IN (SELECT parent FROM walk) "
        "AND depth IN (SELECT depth::INTEGER - 1 FROM walk)) SELECT * FROM walk ORDER BY step"
    )


def chain_every_depth(data: Path, m: manifest.Manifest, start: int) -> str:
    """The unrolled chain, but looking the start up at every depth as well as the parent
    (two scans a depth instead of one)."""
    files, top = _files_by_depth(m, str(data.resolve())), m.max_depth
    ctes = []
    for k in range(top, -1, -1):
        scan = f"SELECT state, {k} AS depth, parent FROM read_parquet({files[k]})"
        walk = (
            f" UNION ALL SELECT t.state, {k}, t.parent FROM read_parquet({files[k]}) t "
            f"JOIN r{k + 1} ON t.state = r{k + 1}.parent"
            if k < top
            else ""
        )
        ctes.append(
            f"r{k} AS MATERIALIZED (SELECT * FROM ({scan} WHERE state = {start}{walk}) LIMIT 1)"
        )
    rows = " UNION ALL ".join(f"SELECT * FROM r{k}" for k in range(top, -1, -1))
    return f"WITH {', '.join(ctes)} SELECT * FROM ({rows}) ORDER BY depth DESC"


def _timed(run: Any) -> str:
    try:
        r = run()
    except subprocess.TimeoutExpired:
        return f"> {LIMIT} s (stopped)"
    return f"cold {r['times'][0]:.3f} s, warm {r['times'][1]:.3f} s"


def report(data: Path, catalog: Path, table: str) -> list[str]:
    """Lines: each candidate's cold and warm seconds in both DuckDB versions."""
    m = manifest.read(data / table)
    start = walk_runs.deepest(data, table)[0]
    shapes = {
        "recursive CTE joined to the view (the macro before)": recursive_join(table, start),
        "recursive CTE, semi-join on walk and depth": recursive_semi(table, start),
        "chain, start looked up at every depth": chain_every_depth(data, m, start),
        "chain, one key a depth (path)": f"SELECT * FROM path('{table}', {start})",
    }
    lines = [f"candidates on {table} from {start} (depth {m.max_depth}):"]
    for name, sql in shapes.items():
        walk_runs.drop_caches()
        py = _timed(lambda q=sql: walk_runs.run_python(catalog, q, LIMIT))
        walk_runs.drop_caches()
        cli = _timed(lambda q=sql: walk_runs.run_cli(catalog, q, LIMIT))
        lines.append(f"  {name}\n    DuckDB 2.x: {py}; DuckDB 1.x CLI: {cli}")
        print(lines[-1], flush=True)
    return lines
