"""The DuckDB catalog: views over the Parquet tables and macros to read them.

Generated from the tables on disk, each paired with its puzzle from the
registry (or the spec kept in the folder): a manifest must record exactly that
puzzle (puzzles/trusted.py), and the SQL is made from the registry's puzzle
and from checked numbers and file names only, never from text of the folder;
the rows of ``puzzles`` and ``levels`` go in as bound parameters. The same SQL serves the
catalog file ``<data>/puzzles.duckdb`` and the API's connections: the views name
the files by absolute path (DuckDB resolves a relative one against the working
directory), so the catalog answers from any folder. The catalog file's views also
check that it is still the file in that folder (:func:`_home_guard`): a copy of the
folder elsewhere fails with one line naming ``puzzledb catalog --data NEWPLACE``
instead of silently reading the old place's files.

Macros (part of the public contract):
  board(puzzle, state)       the position as typed, e.g. '1 2 3 4 5 0'
  drawing(puzzle, state)     the board in its real shape (several lines)
  state_of(puzzle, text)     a typed position as its state (error if malformed)
  cells(puzzle, state)       the cell values as an INTEGER list (cell 0 at index 1)
  path(puzzle, state)        table: the rows from state to its root, by parents
                             (pipeline/query/walk_sql.py: one generated walk a table)
  winnable(puzzle, state)    whether a position can still be won (peg boards whose
                             ``<puzzle>-winnable`` table is built; false if unreachable)
Tables and views: puzzles, levels, summary, and one view per table; for each
built ``<puzzle>-winnable`` table beside its ``<puzzle>`` table, the view
``<puzzle>-status``: every reachable position with ``winnable`` and ``jumps_left``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import CannotWrite, LeftOut
from pipeline.puzzles import trusted
from pipeline.puzzles.base import Cells, glob_escape, ident, sql_str
from pipeline.puzzles.family import Statement
from pipeline.puzzles.registry import family_codec, family_sql
from pipeline.puzzles.reserved import reserved
from pipeline.puzzles.trusted import Checked, Scan
from pipeline.query import walk_sql
from pipeline.storage import files
from pipeline.storage.format import NAME
from pipeline.storage.manifest import Manifest

if TYPE_CHECKING:
    import duckdb

CATALOG = "puzzles.duckdb"
#: Written in the storage format DuckDB 1.2 and later can read, so the catalog
#: opens in whatever DuckDB CLI the user has, not only the newest.
STORAGE_VERSION = "v1.2.0"


def _warn(broken: dict[str, str]) -> None:
    for name, why in broken.items():
        warnings.warn(LeftOut(name, why), stacklevel=3)


def _codec(m: Manifest) -> Cells:
    pz = m.puzzle
    return Cells(
        pz["cells"], pz["bits_per_cell"], tuple(pz["symbols"]), pz["layout"], pz["separator"]
    )


def _dispatch(found: list[Checked], sql_of: Callable[[Checked], str], fallback: str) -> str:
    if not found:
        return fallback
    arms = " ".join(f"WHEN {sql_str(t.table)} THEN {sql_of(t)}" for t in found)
    return f"CASE puzzle {arms} ELSE {fallback} END"


def statements(tables: Scan, prefix: str, home: Path | None = None) -> list[Statement]:
    """The SQL that creates the catalog for ``tables`` (a folder's, puzzles/trusted.py).

    ``prefix`` is how the views name the data folder (absolute); ``home``: the
    catalog file the views must be read from (None: no check, for the API's own).
    A damaged table is left out with a warning line, and its name becomes a view
    that fails with that line, so a query of it says why and a query of any other
    table answers.
    """
    found, broken = list(tables[0].values()), tables[1]
    _warn(broken)
    return [
        *_views(found, prefix, home),
        *_broken_views(broken),
        *_tables(found),
        *family_sql(found),  # first: a family's codec may read its tables
        *_codec_macros(found),
        # path(puzzle, state) and one walk a table
        *walk_sql.statements(
            [t.manifest for t in found], prefix, "true" if home is None else _home_guard(home)
        ),
    ]


def _views(found: list[Checked], prefix: str, home: Path | None) -> list[Statement]:
    """One view per table over exactly the files its manifest lists (a stray
    file in the folder is never read), checked by :func:`_home_guard` if ``home``."""
    guard = "" if home is None else f" WHERE {_home_guard(home)}"
    out: list[Statement] = []
    for m in (t.manifest for t in found):
        files = ", ".join(
            sql_str(f"{glob_escape(prefix)}/{glob_escape(m.table)}/{f.name}") for f in m.files
        )
        out.append(
            f"CREATE OR REPLACE VIEW {ident(m.table)} AS "
            f"SELECT * FROM read_parquet([{files}]){guard}"
        )
    return out


def _broken_views(broken: dict[str, str]) -> list[Statement]:
    """A view a damaged table (of a name that may be one), that fails with its line.

    Each column is the error itself, not a constant: a filter over a constant column
    is folded before the scan (``WHERE depth = 31`` on ``NULL AS depth`` answered
    no rows, silently), one over ``error(...)`` must call it."""
    out: list[Statement] = []
    for name, why in broken.items():
        if NAME.fullmatch(name) and reserved(name) is None:
            fail = f"error({sql_str(why)})"
            out.append(
                f"CREATE OR REPLACE VIEW {ident(name)} AS SELECT {fail}::UBIGINT AS state, "
                f"{fail}::UTINYINT AS depth, {fail}::UBIGINT AS parent "
                f"FROM range(1) WHERE {fail}"
            )
    return out


def _home_guard(home: Path) -> str:
    """True if the catalog file ``home`` is open, else an error naming the command.

    DuckDB lists each open database file by its real absolute path; a copy of the data
    folder elsewhere carries views over the old place's files, which would answer
    from them without a word: this makes that copy fail instead. One scalar subquery
    a query, not a check a row."""
    real = str(home.resolve())
    msg = (
        f"this catalog reads the tables of {home.parent.resolve()}, not the folder it is "
        "in now: run `puzzledb catalog --data FOLDER` on the folder it is in"
    )
    return (
        f"(SELECT CASE WHEN count(*) > 0 THEN true ELSE error({sql_str(msg)}) END "
        f"FROM duckdb_databases() WHERE path = {sql_str(real)})"
    )


#: The columns of the tables ``puzzles`` and ``levels`` (part of the public contract;
#: ``derived``, a table made for a solver, added last on 2026-11-26: docs/CATALOG.md).
PUZZLES = {
    "name": "VARCHAR", "title": "VARCHAR", "graph": "VARCHAR", "origin": "VARCHAR",
    "encoding": "VARCHAR", "cells": "INTEGER", "positions": "UBIGINT", "max_depth": "INTEGER",
    "max_depth_positions": "UBIGINT", "format_version": "INTEGER", "built": "VARCHAR",
    "partial_depth": "INTEGER", "derived": "BOOLEAN",
}  # fmt: skip
LEVELS = {"puzzle": "VARCHAR", "depth": "INTEGER", "positions": "UBIGINT"}


def _tables(found: list[Checked]) -> list[Statement]:
    """The tables ``puzzles`` and ``levels`` (their rows as bound parameters) and the
    view ``summary``."""
    rows = [_puzzle_row(t.manifest, t.puzzle.derived) for t in found]
    levels = [
        [t.table, int(lv.depth), int(lv.positions)] for t in found for lv in t.manifest.levels
    ]
    return [
        *_table("puzzles", PUZZLES, rows),
        *_table("levels", LEVELS, levels),
        "CREATE OR REPLACE VIEW summary AS SELECT name AS puzzle, positions, max_depth, "
        "max_depth_positions, partial_depth, derived FROM puzzles ORDER BY name",
    ]


def _puzzle_row(m: Manifest, derived: bool) -> list[object]:
    """A row of ``puzzles``: the checked manifest's figures, as plain values."""
    return [
        m.table,
        *(str(m.puzzle[k]) for k in ("title", "graph", "origin", "encoding")),
        *(int(v) for v in (m.puzzle["cells"], m.total, m.max_depth)),
        *(int(v) for v in (m.max_depth_positions, m.format_version)),
        str(m.build.get("finished", "")),
        None if m.partial_depth is None else int(m.partial_depth),
        derived,
    ]


def _table(name: str, columns: dict[str, str], rows: list[list[object]]) -> list[Statement]:
    """A table and its rows, bound as one list a column in a single INSERT (DuckDB runs
    ``executemany`` once a row: 37 ms for 2x5's 56 levels, against under 1 ms)."""
    made = ", ".join(f"{c} {t}" for c, t in columns.items())
    out: list[Statement] = [f"CREATE OR REPLACE TABLE {name} ({made})"]
    if rows:
        values = ", ".join(f"unnest(?::{t}[])" for t in columns.values())
        lists = [list(c) for c in zip(*rows, strict=True)]
        out.append((f"INSERT INTO {name} SELECT {values}", lists))
    return out


def _codec_macros(found: list[Checked]) -> list[Statement]:
    """``board``, ``cells``, ``drawing`` and ``state_of``: each table's cell codec, or
    its family's SQL for a state that is no cells (registry.family_codec)."""
    unknown = "error('no table named ' || puzzle || ' in the catalog')"
    macros = {  # name: (argument, the codec's SQL for it)
        "board": ("state", Cells.sql_text),
        "cells": ("state", Cells.sql_values),
        "drawing": ("state", Cells.sql_draw),
        "state_of": ("txt", Cells.sql_parse),
    }
    own = {t.table: family_codec(t) for t in found}  # a state that is no cells (twisty)

    def arm(t: Checked, name: str, arg: str, sql_of: Callable[[Cells, str], str]) -> str:
        mine = own[t.table]
        return mine[name] if mine is not None else sql_of(_codec(t.manifest), arg)

    out: list[Statement] = []
    for name, (arg, sql_of) in macros.items():
        dispatch = _dispatch(
            found, functools.partial(arm, name=name, arg=arg, sql_of=sql_of), unknown
        )
        out.append(f"CREATE OR REPLACE MACRO {name}(puzzle, {arg}) AS {dispatch}")
    return out


def write(data: Path, tables: Scan) -> Path:
    """(Re)write ``<data>/puzzles.duckdb`` for ``tables`` (the folder's: puzzles/trusted.py)
    atomically (nothing left behind on failure).

    Under a lock of its own, so builds and ``catalog`` runs at once into one
    folder wait for each other; made in a new folder of a unique name (DuckDB
    opens its file following links: none can be planted in a folder made just
    now), then renamed into place (a link as the target is replaced, not followed).
    """
    target = data / CATALOG
    with _catalog_lock(data):
        for old in data.glob(CATALOG + ".*tmp*"):  # leftovers: no other writer holds the lock
            with contextlib.suppress(OSError):
                files.remove(old)
        work = None
        try:
            work = Path(tempfile.mkdtemp(prefix=CATALOG + ".", suffix=".tmp", dir=data))
            write_file(data, work / CATALOG, str(data.resolve()), tables, target)
            os.replace(work / CATALOG, target)
        except Exception as e:  # DuckDB's own write errors too ("CHECKPOINT during DETACH")
            raise _cannot_write(target, e) from None
        finally:
            if work is not None:
                with contextlib.suppress(OSError):
                    files.remove(work)
    return target


def _cannot_write(target: Path, e: Exception) -> Exception:
    """One line for a catalog that could not be written: the disk's free space when it
    is full (DuckDB says "CHECKPOINT during DETACH failed"), else the error's first line."""
    if not isinstance(e, OSError) and type(e).__module__ not in ("duckdb", "_duckdb"):
        return e
    free = shutil.disk_usage(target.parent).free
    if free < 1 << 20 or getattr(e, "errno", None) == errno.ENOSPC:
        why = f"the disk is full ({free >> 10} KiB free): free some space and run `catalog`"
    else:
        why = e.strerror if isinstance(e, OSError) and e.strerror else _first_line(e)
    return CannotWrite(f"{target} cannot be written: {why}")


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


@contextlib.contextmanager
def _catalog_lock(data: Path) -> Iterator[None]:
    """Hold ``<data>/.staging/catalog.lock`` (waiting for another writer), never
    following a link: a hostile folder cannot make the lock a file elsewhere."""
    fd = files.lock(files.folder(data, ".staging") / "catalog.lock")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_file(data: Path, path: Path, prefix: str, tables: Scan, home: Path | None = None) -> None:
    """The catalog of ``tables`` (in ``data``) into the new database file ``path``, its
    views naming the folder as ``prefix`` (and read only from ``home`` if given:
    :func:`_home_guard`); made on a connection sealed before any statement of it runs."""
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {sql_str(str(path))} AS catalog (STORAGE_VERSION '{STORAGE_VERSION}')")
        con.execute("USE catalog")
        seal(con, data, prefix)
        _run(con, statements(tables, prefix, home))
        con.execute("USE memory")
        con.execute("DETACH catalog")
    finally:
        con.close()


def _run(con: duckdb.DuckDBPyConnection, found: list[Statement]) -> None:
    for stmt in found:
        if isinstance(stmt, tuple):
            con.execute(*stmt)
        else:
            con.execute(stmt)


def seal(con: duckdb.DuckDBPyConnection, data: Path, *prefixes: str) -> None:
    """The connection reads and writes under ``data`` only (as ``prefixes`` and its
    absolute path name it), loads no extension, and no setting can lift that:
    done before any statement made from the folder runs."""
    folders = [p.rstrip(os.sep) + os.sep for p in (str(data.resolve()), *prefixes)]
    con.execute("SET allowed_directories = ?", [[*folders, *map(glob_escape, folders)]])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def connect(
    data: Path, tables: Scan, sealed: bool = True, also: tuple[Path, ...] = ()
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the catalog of ``tables`` over absolute paths.

    Every table's files are checked against their manifest first (DuckDB does
    not check page checksums; the check is remembered: storage/integrity.py); a
    damaged table's view fails with the line saying why (:func:`statements`).
    ``sealed``: the connection reads the data folder and nothing else outside
    the process (no file written or read elsewhere, no extension loaded, and
    no setting can lift that: :func:`seal`), sealed before the catalog is made
    in it (``also``: other folders it may write, as pipeline/query/readonly.py's copy);
    statements that write are refused before they run (pipeline/query/sql_guard.py).
    """
    import duckdb

    con = duckdb.connect()
    if sealed:
        seal(con, data, *map(str, also))
    _run(con, statements(trusted.hashed(data, tables), str(data.resolve())))
    return con
