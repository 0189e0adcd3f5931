"""The ``query`` command: SQL against the catalog, printed or written to a file."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from pipeline.cli import table_text
from pipeline.cli.shared import DataOpt, JsonOpt, db
from pipeline.errors import BadOutput, BadQuery, PuzzleDBError
from pipeline.pictures import output
from pipeline.query import readonly
from pipeline.words import printable

if TYPE_CHECKING:
    import polars as pl

    from pipeline.api import Database

#: What ``--format`` takes.
FORMATS = ("table", "csv", "json", "parquet")


def query(
    sql: Annotated[str, typer.Argument(help="SQL text, or a path to a .sql file.")],
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
    fmt: Annotated[
        str, typer.Option("--format", help="table, csv, json or parquet (parquet needs --out).")
    ] = "table",
    out: Annotated[Path | None, typer.Option("--out", help="Write the result to a file.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="Rows shown as a table.")] = 200,
    show_all: Annotated[bool, typer.Option("--all", help="Show every row of the table.")] = False,
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", help="A variable for getvariable(), e.g. --set puzzle=2x5."),
    ] = None,
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Allow any statement (COPY, CREATE, ...) and --out in the data folder."
        ),
    ] = False,
) -> None:
    """Run SQL against the catalog (views, macros) and print the result.

    Read-only unless --write: only SELECT, WITH, VALUES, DESCRIBE, SHOW,
    SUMMARIZE and EXPLAIN of those run, and --out is not written inside the
    data folder. Ctrl-C cancels a long query.
    """
    params = _variables(sets or [])
    if limit < 0:
        raise BadQuery(f"--limit is a number of rows, 0 or more, not {limit}")
    fmt = "json" if as_json else fmt
    _check_output(fmt, out, data, write)
    database = db(data)
    try:
        df = database.query(sql, params, write=write)
        _print_frame(df, fmt, out, None if show_all else limit)
    except KeyboardInterrupt:
        _cancelled()
    except Exception as e:  # DuckDB's error on the SQL: one line, its suggestion kept
        if type(e).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
            raise
        raise BadQuery(_sql_error(e, database)) from None


def _sql_error(e: Exception, database: Database) -> str:
    """DuckDB's error as one line: its first line, then its own "Did you mean ..." or
    "Candidate bindings ...", then, for a table that is a puzzle not built here, what
    builds it (or, too large for the disk, what answers instead)."""
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()] or [type(e).__name__]
    said = " ".join([lines[0], *(x for x in lines[1:] if x.startswith(_SUGGESTIONS))])
    missing = re.search(r"Table with name (\S+) does not exist", lines[0])
    if missing is None:
        return said
    try:
        if database.is_built(missing[1]):
            return said
        return f"{said} ({database.not_built(missing[1])})"
    except PuzzleDBError:  # not a puzzle's name: DuckDB's words alone
        return said


#: The lines of a DuckDB error after its first that a user's next try needs.
_SUGGESTIONS = ("Did you mean", "Candidate bindings")


def _variables(sets: list[str]) -> dict[str, str]:
    """The --set NAME=VALUE pairs as variables for getvariable()."""
    params = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise BadQuery(f"--set takes NAME=VALUE, not {item!r}")
        params[key.strip()] = value
    return params


def _cancelled() -> NoReturn:
    """One line and exit 130 now. os._exit: a query that ignored the interrupt still
    runs in its thread (pipeline/query/interrupt.py), and the interpreter's shutdown can
    abort under it in DuckDB's C++ code (seen: "terminate called ...", exit 134)."""
    print("puzzledb: query cancelled", file=sys.stderr, flush=True)
    sys.stdout.flush()
    readonly.cleanup()  # os._exit runs no finalizer: the temp folders go now
    os._exit(130)


def _check_output(fmt: str, out: Path | None, data: Path, write: bool) -> None:
    """BadQuery or BadOutput before the query runs: a format, or an --out we would
    not write (a folder, a missing folder, a file in the data folder without --write)."""
    if fmt not in FORMATS:  # a value out of its choices: click's usage error, exit 2
        raise typer.BadParameter(
            f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="'--format'"
        )
    if out is None:
        if fmt == "parquet":
            raise BadQuery("--format parquet writes a file: give --out FILE.parquet")
        return
    if not write and _inside(out, data):
        raise BadOutput(
            f"--out {out} is inside the data folder {data}: refused "
            "(run the query with --write to allow it)"
        )
    if out.is_dir():
        raise BadOutput(f"--out {out} is a folder: give a file name")
    if not out.parent.is_dir():
        raise BadOutput(f"--out {out}: there is no folder {out.parent}")


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies in ``folder`` once symlinks are followed; folders are
    compared by device and inode, so another spelling of ``folder`` is caught too."""
    try:
        home = folder.stat()
    except OSError:
        return False  # no data folder: nothing in it to overwrite
    target = path.resolve()
    for p in (target, *target.parents):
        try:
            st = p.stat()
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (home.st_dev, home.st_ino):
            return True
    return False


def _print_frame(df: pl.DataFrame, fmt: str, out: Path | None, limit: int | None) -> None:
    """A query's result as a table (cut at ``limit`` rows, said so), CSV, JSON or Parquet."""
    text: str | bytes
    if fmt == "table":
        shown = df if limit is None else df.head(limit)
        text = table_text.frame_text(shown)
        if len(shown) < len(df):
            text += f"\n({len(df):,} rows, {len(shown):,} shown: --all or --limit N for more)"
    elif fmt == "parquet":
        buffer = io.BytesIO()
        df.write_parquet(buffer)
        text = buffer.getvalue()
    else:
        text = df.write_csv() if fmt == "csv" else df.write_json()
    if out is None:  # a terminal acts on escapes a folder's text may hold: shown as text
        assert isinstance(text, str), "parquet is written to a file (--out)"
        typer.echo(printable(text.rstrip("\n")))
    else:
        output.write(out, text)
