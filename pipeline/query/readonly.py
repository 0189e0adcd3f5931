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
from pathlib import Path
from typing import Any

#: The file's name, which is also the name DuckDB gives the database.
NAME = "puzzles.duckdb"


def connect(data: Path) -> Any:
    """A read-only, sealed connection with the catalog of ``data`` (its files checked)."""
    import duckdb

    from pipeline.query import catalog

    folder = Path(tempfile.mkdtemp(prefix="puzzledb-"))
    path = folder / NAME
    try:
        catalog.write_file(data, path, str(data.resolve()), hashed=True)
        con = duckdb.connect(str(path), read_only=True)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    weakref.finalize(con, shutil.rmtree, folder, ignore_errors=True)
    os.unlink(path)
    con.execute("SET temp_directory = ?", [str(folder / "spill")])
    catalog.seal(con, data)
    return con
