"""Walking parents in plain SQL: the catalog's ``path`` macro and one walk per table.

``path(puzzle, state)`` runs the walk written for that table when the catalog
was written (a string in the macro, through DuckDB's ``query()``, so only
that table's SQL is parsed and bound). A walk is an unrolled chain, one step
a depth, from the table's maximum depth down to 0, each step a MATERIALIZED
CTE:

    r52 AS MATERIALIZED (SELECT 0 AS i, t.state, t.parent
        FROM read_parquet([the depth-52 files]) t
        JOIN (SELECT coalesce(p, <start>) AS key
              FROM (SELECT arg_max(parent, i) AS p FROM r53)) q
        ON t.state = q.key LIMIT 1)

The key is the parent of the row found one depth up, or the start state while
nothing has been found (so the start is met at its own depth on the way
down). Every depth is read once, with one key: DuckDB builds its hash table
on the one-row key and pushes it into the Parquet scan as a filter, which
skips every row group but the one whose state range holds it (the files of a
level are sorted by state). A walk reads one row group a depth, wherever it
starts, in DuckDB 1.x and 2.x alike, with no session setting.

Why this shape (measured; docs/CATALOG.md and docs/BENCHMARKS.md): a recursive CTE over
the table's view let DuckDB build its hash table on the 239-million-row scan
(DuckDB estimates a multi-file scan as the first file's rows times the file
count, and the first file holds the one root); with the walk made the build
side, each iteration still opened every file and read a row group at every
depth. In the chain, the key is an aggregate (always one row), so DuckDB's
estimates stay at one row all the way down; joining each step to the
previous CTE instead multiplied the estimates until DuckDB built on the
scans. MATERIALIZED (never inline a step into the next: the chain would be
read quadratically often) and ``LIMIT 1`` (one row out; the scan stops at
it) are safeguards: DuckDB 1.5 and 2.0 walk as fast without them.

Tables whose parents can sit at the same depth (zero-cost moves: pattern
databases, peg boards counted in moves; their graph is "general") walk each
depth with a small recursive CTE over that depth's files only. A moves table
(its manifest names ``last_jump_bits``) takes a position typed without the
last-jump bits as every state it stands for, and walks from the nearest one,
as ``puzzledb solve`` does.
"""

from __future__ import annotations

from pipeline.puzzles.base import glob_escape, sql_str
from pipeline.storage.manifest import Manifest

#: Where the walk's SQL takes the start state (replaced when ``path`` is called).
START = "$start"


def statements(found: list[Manifest], prefix: str, guard: str = "true") -> list[str]:
    """The ``path`` macro over the tables in ``found`` (checked manifests, whose puzzle is
    the registry's description: puzzles/trusted.py).

    ``prefix`` is how the SQL names the data folder, as in the views; ``guard``: the
    views' check that the catalog file is read in its folder (catalog._home_guard).
    """
    return [path_macro(found, prefix, guard)]


def path_macro(found: list[Manifest], prefix: str, guard: str = "true") -> str:
    """``path(puzzle, state)``: the walk of that table, with step and position.

    Each table's walk is a string in the macro, run by ``query()`` with the
    state put in: creating the macro parses none of them (a catalog opens as
    fast as before), and a call parses only its own table's walk. The state
    must be a constant expression (a number, ``state_of(...)``,
    ``getvariable(...)``); a NULL state walks nowhere.
    """
    if START in prefix:
        raise ValueError(f"the data folder's path may not contain {START!r}: {prefix}")
    unknown = "error('no table named ' || puzzle || ' in the catalog')"
    arms = " ".join(f"WHEN {sql_str(m.table)} THEN {sql_str(walk(m, prefix))}" for m in found)
    walks = f"CASE puzzle {arms} ELSE {unknown} END" if found else unknown
    state = "coalesce(CAST(start AS UBIGINT)::VARCHAR, '0')"
    none = "CASE WHEN start IS NULL THEN ' LIMIT 0' ELSE '' END"
    return (
        "CREATE OR REPLACE MACRO path(puzzle, start) AS TABLE "
        "SELECT step, state, depth, parent, board(puzzle, state) AS position "
        f"FROM query(replace({walks}, {sql_str(START)}, {state}) || {none}) "
        f"WHERE {guard} ORDER BY step"
    )


def walk(m: Manifest, prefix: str) -> str:
    """The SELECT that walks table ``m`` from the state ``$start`` to its root, one CTE a depth."""
    files = _files_by_depth(m, prefix)
    sizes = {int(lv.depth): int(lv.positions) for lv in m.levels}
    runs = m.puzzle.get("graph") == "general"
    ctes, start = [], f"{START}::UBIGINT"
    if m.puzzle.get("last_jump_bits"):
        ctes.append(_nearest_variant(m, files))
        start = "(SELECT state FROM s)"
    top = int(m.max_depth)
    for k in range(top, -1, -1):
        key = f"SELECT {start} AS key" if k == top else _key(k + 1, start)
        if runs:
            ctes.append(
                f"r{k} AS MATERIALIZED ({_level_with_runs(files.get(k), key, sizes.get(k, 0))})"
            )
        else:
            ctes.append(f"r{k} AS MATERIALIZED ({_level(files.get(k), key)})")
    rows = " UNION ALL ".join(
        f"SELECT i, state, parent, {k} AS depth FROM r{k}" for k in range(top, -1, -1)
    )
    return (
        f"WITH {', '.join(ctes)} "
        "SELECT (row_number() OVER (ORDER BY depth DESC, i) - 1)::INTEGER AS step, "
        f"state, depth::UTINYINT AS depth, parent FROM ({rows}) ORDER BY step"
    )


def _key(above: int, start: str) -> str:
    """The one-row key for the next depth down: the parent of the last row found at
    depth ``above``, or the start while nothing has been found.

    An aggregate always gives one row, so DuckDB's estimate stays one row at
    every depth of the chain and it builds the join's hash table on the key.
    """
    return f"SELECT coalesce(p, {start}) AS key FROM (SELECT arg_max(parent, i) AS p FROM r{above})"


def _files_by_depth(m: Manifest, prefix: str) -> dict[int, str]:
    """depth -> a SQL list of that depth's Parquet files (state order), non-empty ones only."""
    names: dict[int, list[str]] = {}
    for f in m.files:
        if f.rows:
            names.setdefault(int(f.depth), []).append(f"{glob_escape(prefix)}/{m.table}/{f.name}")
    return {d: "[" + ", ".join(sql_str(n) for n in ns) + "]" for d, ns in names.items()}


def _empty() -> str:
    return "SELECT 0 AS i, NULL::UBIGINT AS state, NULL::UBIGINT AS parent WHERE false"


def _level(files: str | None, key: str) -> str:
    """The row of one depth whose state is ``key`` (none if absent): one row group read."""
    if files is None:
        return _empty()
    return (
        f"SELECT 0 AS i, t.state, t.parent FROM read_parquet({files}) t "
        f"JOIN ({key}) q ON t.state = q.key LIMIT 1"
    )


def _level_with_runs(files: str | None, key: str, size: int) -> str:
    """The rows of one depth from ``key`` along same-depth parents (zero-cost moves).

    A recursive CTE over this depth's files only: it ends when a parent is not
    at this depth (it is one depth up, or the row is a root). ``i`` counts the
    rows; a run is never longer than its level (a damaged table with a cycle).
    """
    if files is None:
        return _empty()
    return (
        f"WITH RECURSIVE run(i, state, parent) AS (SELECT * FROM ({_level(files, key)}) "
        "UNION ALL SELECT (SELECT max(i) + 1 FROM run), t.state, t.parent "
        f"FROM read_parquet({files}) t WHERE t.state IN (SELECT parent FROM run) "
        f"AND (SELECT max(i) FROM run) < {size}) SELECT * FROM run"
    )


def _nearest_variant(m: Manifest, files: dict[int, str]) -> str:
    """CTE ``s``: the start, or for a position typed without its last-jump bits the
    nearest state it stands for (fewest moves, then the smallest state)."""
    shift = int(m.puzzle["last_jump_bits"][0])
    cells = int(m.puzzle["cells"])
    s = f"{START}::UBIGINT"
    jumped = (
        f"list_transform(list_filter(range({cells}), lambda h: ({s} >> h) & 1 = 1), "
        f"lambda h: {s} | ((h + 1)::UBIGINT << {shift}))"
    )
    variants = f"CASE WHEN {s} >> {shift} = 0 THEN list_prepend({s}, {jumped}) ELSE [{s}] END"
    every = "[" + ", ".join(lst[1:-1] for _, lst in sorted(files.items())) + "]"
    return (
        f"s AS MATERIALIZED (SELECT state FROM read_parquet({every}) "
        f"WHERE state IN (SELECT unnest({variants}::UBIGINT[])) ORDER BY depth, state LIMIT 1)"
    )
