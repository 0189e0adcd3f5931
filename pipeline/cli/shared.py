"""What every command shares: the common options, opening the database, printing.

The commands import this, and app.py imports the commands: nothing here
imports a command module, so the package has no cycle.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from pipeline.api import Database

DataOpt = Annotated[
    Path,
    typer.Option(
        "--data",
        envvar="PUZZLEDB_DATA",
        help="Data folder (tables and catalog).",
        show_default=True,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document instead.")]
SvgOpt = Annotated[Path | None, typer.Option("--svg", help="Also draw it as SVG into this file.")]
PuzzleArg = Annotated[str, typer.Argument(help="Registry name, e.g. 3x3 (see `puzzledb list`).")]
PositionArg = Annotated[
    str,
    typer.Argument(
        help="A position, cell 0 first, e.g. '8 6 7 2 5 4 3 0 1' (one starting with '-' "
        "is taken as it is; `--` before it also works)."
    ),
]
#: Positions may start with '-' ("-1 2 3 ..." is then the project's one-line error).
POSITIONAL = {"ignore_unknown_options": True}


def interruptible(line: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Ctrl-C in the command: ``line`` on stderr and exit 130. Typer alone exits 130
    without a word, and DuckDB turns Ctrl-C into RuntimeError("Query interrupted")."""

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return command(*args, **kwargs)
            except (KeyboardInterrupt, RuntimeError) as e:
                if isinstance(e, RuntimeError) and "interrupted" not in str(e):
                    raise
                typer.echo(f"puzzledb: {line}", err=True)
                raise typer.Exit(130) from None

        return run

    return wrap


def db(data: Path) -> Database:
    """The API's database of the data folder (imported here: a command's first use)."""
    from pipeline.api import Database

    return Database(data)


def emit(doc: Any) -> None:
    """One JSON document on stdout (``--json``)."""
    typer.echo(json.dumps(doc, indent=1))


def write_svg(path: Path, svg: str) -> None:
    from pipeline.pictures import output

    output.svg_file(path, svg)
