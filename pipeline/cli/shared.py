"""What every command shares: the common options, opening the database, printing.

The commands import this, and app.py imports the commands: nothing here
imports a command module, so the package has no cycle.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, ParamSpec

import typer
from typer.core import TyperCommand

from pipeline.api import Database
from pipeline.errors import BadPosition
from pipeline.pictures import output

if TYPE_CHECKING:
    # The Context click's Command.parse_args takes (typer carries its own copy of click).
    from typer._click import Context as ClickContext

P = ParamSpec("P")

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


class Positions(TyperCommand):
    """A command whose positions may start with '-' (:data:`POSITIONAL`): an option
    mistyped before a position is not taken for it; wherever it is typed it is click's
    "No such option" with its near misses (exit 2), unless it comes after ``--``."""

    def parse_args(self, ctx: ClickContext, args: list[str]) -> list[str]:
        typed_args = [a for a in args if a != "--"]  # parsing consumes ``args``
        after = args[args.index("--") + 1 :] if "--" in args else []
        ctx.allow_extra_args = True  # the extra words come back in ctx.args, said below
        rest = super().parse_args(ctx, args)
        taken = [ctx.params.get(p.name) for p in self.params if p.param_type_name == "argument"]
        words = [a for a in (*taken, *ctx.args) if isinstance(a, str)]
        unknown = [a for a in words if _option_like(a) and a not in after]
        if unknown:
            ctx.fail(self._no_such_option(unknown[0]))  # click's usage error, exit 2
        if ctx.args:
            self.extra(ctx, typed_args)
        return rest

    def extra(self, ctx: ClickContext, typed_args: list[str]) -> None:
        """Words left over: click's own line."""
        ctx.fail(f"Got unexpected extra argument(s) ({' '.join(ctx.args)})")

    def _no_such_option(self, typed: str) -> str:
        """Click's line for an unknown option, with the near misses as click names them."""
        known = [o for p in self.params if p.param_type_name == "option" for o in p.opts]
        near = difflib.get_close_matches(typed, [o for o in known if o.startswith("--")])
        return f"No such option: {typed}" + (
            f" (Possible options: {', '.join(sorted(near))})" if near else ""
        )


class OnePosition(Positions):
    """A command of NAME POSITION: a position typed unquoted (``solve 3x3 8 6 7 ...``)
    is one line saying to quote it, not click's "unexpected extra argument(s)"."""

    def extra(self, ctx: ClickContext, typed_args: list[str]) -> None:
        words = self._words(typed_args)
        if len(words) < 3:
            raise BadPosition(f"unexpected argument(s): {' '.join(ctx.args)}")
        typed = f'puzzledb {ctx.info_name} {words[0]} "{" ".join(words[1:])}"'
        raise BadPosition(f"a position is one argument: quote it, as in {typed}")

    def _words(self, args: list[str]) -> list[str]:
        """The arguments that are not options nor an option's value."""
        valued = {
            o
            for p in self.params
            if p.param_type_name == "option" and not getattr(p, "is_flag", False)
            for o in p.opts
        }
        words, value = [], False
        for a in args:
            if not value and not a.startswith("--"):
                words.append(a)
            value = not value and a in valued
        return words


def _option_like(word: str) -> bool:
    """Whether a word reads as a long option (``--onelin``), not a position (``-1 2 ...``)."""
    return re.fullmatch(r"--[A-Za-z][\w-]*", word) is not None


def interruptible(line: str) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Ctrl-C in the command: ``line`` on stderr and exit 130. Typer alone exits 130
    without a word, and DuckDB turns Ctrl-C into RuntimeError("Query interrupted")."""

    def wrap(command: Callable[P, None]) -> Callable[P, None]:
        @functools.wraps(command)
        def run(*args: P.args, **kwargs: P.kwargs) -> None:
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
    return Database(data)


def emit(doc: object) -> None:
    """One JSON document on stdout (``--json``)."""
    typer.echo(json.dumps(doc, indent=1))


def write_svg(path: Path, svg: str) -> None:
    output.svg_file(path, svg)
