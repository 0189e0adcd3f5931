"""The DuckDB catalog: views over the Parquet tables and macros to read them.

Generated from the manifests alone (each records its puzzle's cell codec), so
the catalog describes exactly the tables on disk. The same SQL serves the
catalog file ``<data>/puzzles.duckdb`` (paths as given, for the DuckDB CLI run
from the repository root) and the API's in-memory connection (absolute paths,
from any folder).

Macros (part of the public contract):
  board(puzzle, state)       the position as typed, e.g. '1 2 3 4 5 0'
  drawing(puzzle, state)     the board in its real shape (several lines)
  state_of(puzzle, text)     a typed position as its state (error if malformed)
  cells(puzzle, state)       the cell values as an INTEGER list (cell 0 at index 1)
  path(puzzle, state)        table: the rows from state to its root, by parents
                             (pipeline/walk_sql.py: one generated walk a table)
  winnable(puzzle, state)    whether a position can still be won (peg boards whose
                             ``<puzzle>-winnable`` table is built; false if unreachable)
Tables and views: puzzles, levels, summary, and one view per table; for each
built ``<puzzle>-winnable`` table beside its ``<puzzle>`` table, the view
``<puzzle>-status``: every reachable position with ``winnable`` and ``jumps_left``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pipeline import walk_sql
from pipeline.puzzles.base import Cells, sql_str
from pipeline.store import MANIFEST

CATALOG = "puzzles.duckdb"
#: Written in the storage format DuckDB 1.2 and later can read, so the catalog
#: opens in whatever DuckDB CLI the user has, not only the newest.
STORAGE_VERSION = "v1.2.0"


def manifests(data: Path) -> list[dict[str, Any]]:
    """The manifests of every complete table under ``data``, by name."""
    found = []
    if data.is_dir():
        for p in sorted(data.iterdir()):
            m = p / MANIFEST
            if p.is_dir() and not p.name.startswith(".") and m.exists():
                try:
                    found.append(json.loads(m.read_text()))
                except (OSError, ValueError):
                    continue
    return found


def _codec(m: dict[str, Any]) -> Cells:
    pz = m["puzzle"]
    return Cells(
        pz["cells"], pz["bits_per_cell"], tuple(pz["symbols"]), pz["layout"], pz["separator"]
    )


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _dispatch(found: list[dict[str, Any]], sql_of: Any, fallback: str) -> str:
    if not found:
        return fallback
    arms = " ".join(f"WHEN {sql_str(m['table'])} THEN {sql_of(_codec(m))}" for m in found)
    return f"CASE puzzle {arms} ELSE {fallback} END"


def statements(data: Path, prefix: str) -> list[str]:
    """The SQL that creates the catalog for the tables under ``data``.

    ``prefix`` is how the views name the data folder (relative or absolute).
    """
    found = manifests(data)
    sql: list[str] = []
    for m in found:
        glob = f"{prefix}/{m['table']}/*.parquet"
        sql.append(
            f"CREATE OR REPLACE VIEW {ident(m['table'])} AS "
            f"SELECT * FROM read_parquet({sql_str(glob)})"
        )
    rows = [
        "("
        + ", ".join(
            [
                sql_str(m["table"]),
                sql_str(m["puzzle"]["title"]),
                sql_str(m["puzzle"]["graph"]),
                sql_str(m["puzzle"]["origin"]),
                sql_str(m["puzzle"]["encoding"]),
                str(int(m["puzzle"]["cells"])),
                str(int(m["total"])),
                str(int(m["max_depth"])),
                str(int(m["max_depth_positions"])),
                str(int(m["format_version"])),
                sql_str(m["build"]["finished"]),
            ]
        )
        + ")"
        for m in found
    ]
    sql.append(
        "CREATE OR REPLACE TABLE puzzles (name VARCHAR, title VARCHAR, graph VARCHAR, "
        "origin VARCHAR, encoding VARCHAR, cells INTEGER, positions UBIGINT, "
        "max_depth INTEGER, max_depth_positions UBIGINT, format_version INTEGER, "
        "built VARCHAR)"
    )
    if rows:
        sql.append("INSERT INTO puzzles VALUES " + ", ".join(rows))
    sql.append("CREATE OR REPLACE TABLE levels (puzzle VARCHAR, depth INTEGER, positions UBIGINT)")
    level_rows = [
        f"({sql_str(m['table'])}, {lv['depth']}, {lv['positions']})"
        for m in found
        for lv in m["levels"]
    ]
    if level_rows:
        sql.append("INSERT INTO levels VALUES " + ", ".join(level_rows))
    sql.append(
        "CREATE OR REPLACE VIEW summary AS SELECT name AS puzzle, positions, max_depth, "
        "max_depth_positions FROM puzzles ORDER BY name"
    )
    unknown = "error('no table named ' || puzzle || ' in the catalog')"
    macros = {  # name: (argument, the codec's SQL for it)
        "board": ("state", Cells.sql_text),
        "cells": ("state", Cells.sql_values),
        "drawing": ("state", Cells.sql_draw),
        "state_of": ("txt", Cells.sql_parse),
    }
    for name, (arg, sql_of) in macros.items():
        dispatch = _dispatch(found, lambda c, f=sql_of, a=arg: f(c, a), unknown)
        sql.append(f"CREATE OR REPLACE MACRO {name}(puzzle, {arg}) AS {dispatch}")
    sql += _winnable(found)
    sql.append(_can_jump(found))
    sql += walk_sql.statements(found, prefix)  # path(puzzle, state) and one walk a table
    return sql


def _can_jump(found: list[dict[str, Any]]) -> str:
    """``can_jump(puzzle, state)``: whether a peg position has a legal jump.

    Built from the jump lines each peg table's manifest records; a position
    without one ends a game (won or a dead end).
    """
    arms = []
    for m in found:
        jumps = m["puzzle"].get("jumps")
        if not jumps:
            continue
        tests = []
        for a, b, c in jumps:
            flip, need = (1 << a) | (1 << b) | (1 << c), (1 << a) | (1 << b)
            tests.append(f"(state & {flip}::UBIGINT) = {need}::UBIGINT")
        arms.append(f"WHEN {sql_str(m['table'])} THEN ({' OR '.join(tests)})")
    none = "error('no jump table for ' || puzzle || ' in the catalog')"
    body = f"CASE puzzle {' '.join(arms)} ELSE {none} END" if arms else none
    return f"CREATE OR REPLACE MACRO can_jump(puzzle, state) AS {body}"


def _winnable(found: list[dict[str, Any]]) -> list[str]:
    """The status views and the ``winnable`` macro over derived winnable tables."""
    names = {m["table"] for m in found}
    pairs = [
        (m["puzzle"]["derived_from"], m["table"])
        for m in found
        if m["puzzle"].get("kind") == "winnable"
    ]
    sql = [
        f"CREATE OR REPLACE VIEW {ident(src + '-status')} AS "
        f"SELECT f.state, f.depth, f.parent, w.state IS NOT NULL AS winnable, "
        f"w.depth AS jumps_left FROM {ident(src)} f LEFT JOIN {ident(win)} w USING (state)"
        for src, win in pairs
        if src in names
    ]
    arms = " ".join(
        f"WHEN {sql_str(src)} THEN (s IN (SELECT state FROM {ident(win)}))" for src, win in pairs
    )
    none = "error('no winnable table for ' || puzzle || ' in the catalog')"
    body = f"CASE puzzle {arms} ELSE {none} END" if arms else none
    sql.append(f"CREATE OR REPLACE MACRO winnable(puzzle, s) AS {body}")
    return sql


def write(data: Path) -> Path:
    """(Re)write ``<data>/puzzles.duckdb`` atomically; return its path."""
    import duckdb

    data.mkdir(parents=True, exist_ok=True)
    target = data / CATALOG
    tmp = data / (CATALOG + ".tmp")
    for p in (tmp, Path(str(tmp) + ".wal")):
        p.unlink(missing_ok=True)
    try:
        prefix = os.path.relpath(data)
        if prefix.startswith(".."):
            prefix = str(data.resolve())
    except ValueError:
        prefix = str(data.resolve())
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {sql_str(str(tmp))} AS catalog (STORAGE_VERSION '{STORAGE_VERSION}')")
        con.execute("USE catalog")
        for stmt in statements(data, prefix):
            con.execute(stmt)
        con.execute("USE memory")
        con.execute("DETACH catalog")
    finally:
        con.close()
    os.replace(tmp, target)
    return target


def connect(data: Path) -> Any:
    """An in-memory DuckDB connection with the catalog over absolute paths."""
    import duckdb

    con = duckdb.connect()
    for stmt in statements(data, str(data.resolve())):
        con.execute(stmt)
    return con
