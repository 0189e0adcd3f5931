"""The command line: the typer app, its commands in the order the help lists them,
and ``main``, which turns a user's error into one line.

Each command lives in the module of its group and does three things: parse,
call one API method, print. shared.py holds the options they share; build.py
the build; tables.py list, catalog, histogram, longest, verify, report and the
plots; solve.py show and solve (walk.py prints a walk); query.py query; remove.py remove;
bars.py the progress bars. Heavy libraries are imported inside the commands
(through the API), so `puzzledb solve` starts without loading DuckDB or polars.
"""

from __future__ import annotations

import logging
import sys
import warnings
from typing import Annotated

import typer
from typer._click import ClickException  # typer carries its own copy of click

from pipeline.cli import build, query, remove, serve, solve, tables
from pipeline.cli.shared import POSITIONAL, OnePosition, Positions
from pipeline.errors import LeftOut, PuzzleDBError
from pipeline.words import printable

#: Libraries whose errors on user input (bad SQL, an unreadable file) are one line.
LIBRARIES = ("duckdb", "_duckdb", "pyarrow", "polars")

app = typer.Typer(
    help="Build and query breadth-first state-space databases of puzzles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: rich's (Typer 0.29) shows a value placeholder "<bool>" beside every flag.
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    """``--version``: the installed package's version, then exit."""
    if value:
        # at first use: the package metadata reader costs every command's start
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"puzzledb {version('puzzledb')}")
        except PackageNotFoundError:  # run from a checkout that was never installed
            typer.echo("puzzledb (not installed: no version)")
        raise typer.Exit


@app.callback()
def _options(
    show_version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_version),
    ] = False,
) -> None:
    """Build and query breadth-first state-space databases of puzzles."""


#: Each command's line in `puzzledb --help`, short enough for 80 columns (click cuts
#: a longer first sentence with "..."); `CMD --help` gives the whole text.
SHORT = {
    "list": "The puzzles, built or not, with their titles.",
    "build": "Build tables (resumes a stopped build).",
    "catalog": "Rewrite the DuckDB catalog.",
    "histogram": "Positions at each depth.",
    "longest": "The positions farthest from the roots.",
    "show": "Draw a position, with its depth.",
    "solve": "The line from a position to the goal (or the start).",
    "query": "Run SQL against the catalog.",
    "verify": "Check a table completely.",
    "report": "One HTML page of every built table.",
    "remove": "Remove a table, or a spec and its tables.",
    "serve": "Explore the tables in a browser.",
    "random": "A position at a given depth, at random.",
    "distance": "Moves between two positions.",
}
app.command("list", short_help=SHORT["list"])(tables.list_)
app.command(short_help=SHORT["build"])(build.build)
app.command(short_help=SHORT["catalog"])(tables.catalog)
app.command(short_help=SHORT["histogram"])(tables.histogram)
app.command(short_help=SHORT["longest"])(tables.longest)
app.command(context_settings=POSITIONAL, cls=OnePosition, short_help=SHORT["show"])(solve.show)
app.command(context_settings=POSITIONAL, cls=OnePosition, short_help=SHORT["solve"])(solve.solve)
app.command("random", short_help=SHORT["random"])(solve.random_position)
app.command(context_settings=POSITIONAL, cls=Positions, short_help=SHORT["distance"])(
    solve.distance
)
app.command(short_help=SHORT["query"])(query.query)
app.command(short_help=SHORT["verify"])(tables.verify)

plot = typer.Typer(
    help="Charts of the tables (SVG or PNG).", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(plot, name="plot")
plot.command("histogram")(tables.plot_histogram)

app.command(short_help=SHORT["report"])(tables.report)
app.command(short_help=SHORT["remove"])(remove.remove)
app.command(short_help=SHORT["serve"])(serve.serve)


class _Lines(logging.Handler):
    """The library's notes as the command's lines on stderr: ``puzzledb: warning: ...``
    (``puzzledb: ...`` for a note that is not a warning). Looks up sys.stderr at each
    line, so a caller that swaps it (a test) gets the lines."""

    def emit(self, record: logging.LogRecord) -> None:
        kind = "warning: " if record.levelno >= logging.WARNING else ""
        print(f"puzzledb: {kind}{record.getMessage()}", file=sys.stderr)


def _notes() -> None:
    """Print the library's notes (pipeline's loggers), once a process."""
    root = logging.getLogger("pipeline")
    if not any(isinstance(h, _Lines) for h in root.handlers):
        root.addHandler(_Lines())
        root.setLevel(logging.INFO)
        root.propagate = False


def main() -> None:
    """Entry point: user errors become one line on stderr and a non-zero exit.

    Warnings that a damaged table was left out (errors.LeftOut) come last, except
    one the error line already says; every line goes through words.printable, since
    a data folder's text (a title, a spec's key, a path) is in many of them."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LeftOut)
        line, code = _run()
    said = {line}
    for w in caught:  # each once, and none the error line says
        if isinstance(w.message, LeftOut) and str(w.message) not in said:
            said.add(str(w.message))
            if line is None or w.message.why not in line:
                _say(str(w.message))
    if line is not None:
        _say(line)
    sys.exit(code)


def _run() -> tuple[str | None, int | str | None]:
    """Run the app: the error line to print (None: none) and the exit code."""
    _notes()
    try:
        code = app(standalone_mode=False)  # a command returns None; typer.Exit its code
    except SystemExit as e:
        return None, e.code
    except (typer.TyperException, typer.Abort) as e:  # click's errors (typer's copy of click)
        return _click_error(e)
    except PuzzleDBError as e:
        return str(e), 1
    except KeyboardInterrupt:  # outside a command (Typer exits 130 silently inside one)
        return "interrupted", 130
    except Exception as e:  # a library error on user input (bad SQL, unreadable file)
        if type(e).__module__.split(".")[0] not in LIBRARIES:
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return first, 1
    return None, code if isinstance(code, int) else 0


def _click_error(e: typer.TyperException | typer.Abort) -> tuple[str | None, int]:
    """Click's errors, which it would print as four lines of usage, as one line saying
    where the usage is (``puzzledb`` and ``puzzledb plot`` alone still print the help).
    Classes known by name: typer carries its own copy of click."""
    kinds = {c.__name__ for c in type(e).__mro__}
    if isinstance(e, typer.Abort) or not isinstance(e, ClickException):
        return "aborted", 1
    if "NoArgsIsHelpError" in kinds:
        e.show()
        return None, e.exit_code
    message = " ".join(e.format_message().split()).rstrip(".")
    ctx = getattr(e, "ctx", None)
    if "UsageError" in kinds and ctx is not None:
        message = f"{message} (see {ctx.command_path} --help)"
    return message, e.exit_code


def _say(line: str) -> None:
    print(f"puzzledb: {printable(line, lines=False)}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
