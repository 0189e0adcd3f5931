"""The read-only, sealed DuckDB database the API's read connections are cursors of.

One in-memory database shared by cursors would let any caller's CREATE OR
REPLACE change what every later query sees, and a fresh in-memory catalog for
each caller costs 0.1 to 0.2 s on the default data (its SQL is parsed again;
``db.connection().execute(...)`` in a loop pays it every time). DuckDB has no read-only
in-memory database, so the catalog is written once into a database file
(catalog.write_file, as ``puzzles.duckdb`` is, with absolute paths) that is
opened read-only and deleted at once (DuckDB keeps it open); a cursor of it
is then a connection of its own for a fraction of a millisecond: views, macros
and tables cannot be changed through it, and what a caller makes (TEMP views
or macros, variables) stays in the caller's cursor. The file's folder, private
to the process, is where a large query spills (an in-memory database spills
into ``.tmp`` in the current folder, maybe the data folder); it is removed
with the connection, or at exit.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.errors import BadQuery
from pipeline.puzzles import trusted
from pipeline.puzzles.trusted import Scan
from pipeline.query import catalog, sql_guard
from pipeline.storage import scratch

if TYPE_CHECKING:
    import duckdb

#: The file's name, which is also the name DuckDB gives the database.
NAME = "puzzles.duckdb"


#: The temp folders of the connections still open (removed with them, or by cleanup).
_FOLDERS: set[Path] = set()


def _remove(folder: Path) -> None:
    _FOLDERS.discard(folder)
    shutil.rmtree(folder, ignore_errors=True)


def cleanup() -> None:
    """Remove every temp folder now: before an exit that runs no finalizer (os._exit
    after a cancelled query, whose DuckDB thread may still run)."""
    for folder in list(_FOLDERS):
        _remove(folder)


def connect(data: Path, tables: Scan) -> duckdb.DuckDBPyConnection:
    """A read-only, sealed connection with the catalog of ``tables`` (the folder ``data``'s,
    puzzles/trusted.py), every file hashed against its manifest first."""
    import duckdb

    folder = Path(tempfile.mkdtemp(prefix="puzzledb-"))
    path = folder / NAME
    try:
        catalog.write_file(data, path, str(data.resolve()), trusted.hashed(data, tables))
        con = duckdb.connect(str(path), read_only=True)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _FOLDERS.add(folder)
    weakref.finalize(con, _remove, folder)
    os.unlink(path)
    con.execute("SET temp_directory = ?", [str(scratch.query_spill(folder))])
    catalog.seal(con, data)
    return con


class Cursor:
    """A caller's cursor of the read-only database, that writes no file.

    DuckDB lets a sealed connection write wherever it may read: ``COPY ... TO``
    a level file of the data folder overwrote it, ``EXPORT DATABASE`` made a
    folder there. So every SQL text handed to it passes :func:`sql_guard.refuse_files`
    first, the methods that write (a relation's ``to_parquet``, ``write_csv``,
    ``to_table``...; the connection's ``duplicate``, ``register_filesystem``...)
    are refused, and whatever it hands back (a cursor, a relation) is guarded
    the same way. What stays in memory (TEMP views, macros, tables, variables)
    is the caller's to make.
    """

    #: Methods that take SQL text first.
    SQL = frozenset({"execute", "executemany", "sql", "query", "from_query"})
    #: Methods that write a file, open another connection or reach past the seal.
    REFUSED = frozenset(
        {
            "duplicate", "register_filesystem", "enable_profiling", "install_extension",
            "load_extension", "to_csv", "to_parquet", "write_csv", "write_parquet",
            "to_table", "create", "insert_into", "insert", "update", "append", "appender",
        }
    )  # fmt: skip

    def __init__(self, inner: duckdb.DuckDBPyConnection | duckdb.DuckDBPyRelation) -> None:
        object.__setattr__(self, "_inner", inner)

    # Any: a proxy of DuckDB's connection and relation, whatever attribute they have.
    def __getattr__(self, name: str) -> Any:
        if name in self.REFUSED:
            raise BadQuery(f"{name} writes: refused on a read-only connection (use write=True)")
        value = getattr(self._inner, name)
        if not callable(value):
            return value
        return lambda *args, **kwargs: self._call(name, value, args, kwargs)

    def _call(
        self,
        name: str,
        method: Callable[..., object],
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> object:
        texts = [a for a in args if isinstance(a, str)]
        if name in self.SQL or (name == "query" and len(texts) > 1):
            sql_guard.refuse_files(texts[-1] if texts else kwargs.get("query", ""))
        out = _guarded(method(*args, **kwargs), self._inner)
        return self if out is None else out

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self._inner, name, value)

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.close()

    def __iter__(self) -> Iterator[tuple[object, ...]]:
        return iter(self._inner.fetchall())


def _guarded(value: object, inner: object) -> object:
    """What a guarded call returns: the same connection as the caller's cursor, another
    connection or a relation guarded too, anything else (rows, frames) as it is."""
    import duckdb

    if value is inner:
        return None  # replaced by the caller's cursor below
    if isinstance(value, duckdb.DuckDBPyConnection | duckdb.DuckDBPyRelation):
        return Cursor(value)
    return value
