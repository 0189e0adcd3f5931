"""The commands about built tables as a whole: list, catalog, histogram, longest,
verify, report, plot histogram."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipeline import hints
from pipeline.cli.bars import VerifyBars
from pipeline.cli.shared import DataOpt, JsonOpt, PuzzleArg, db, emit
from pipeline.cli.table_text import known_width, side_by_side
from pipeline.errors import LeftOut, PuzzleDBError
from pipeline.verify.report import Report as Made
from pipeline.words import plural, printable

if TYPE_CHECKING:
    from pipeline.answers import Listed
    from pipeline.api import Database
    from pipeline.verify.report import Report

AllOpt = Annotated[
    bool, typer.Option("--all", help="Also the derived tables (pattern databases, for solve).")
]


def list_(data: DataOpt = Path("data"), show_all: AllOpt = False, as_json: JsonOpt = False) -> None:
    """List the puzzles: name, graph, whether built (and how many positions), default, title.

    A table of the first levels only (build --max-depth N) shows as built "to N".
    Derived tables (pattern databases: made for a solver, not read by people)
    only with --all; a last line says how many are left out."""
    rows = _listed(db(data))
    shown = rows if show_all else [r for r in rows if not r.derived]
    if as_json:
        emit([r.as_dict() for r in shown])
        return
    _print_listed(shown)
    hidden = [r for r in rows if r.derived and not show_all]
    if hidden:
        built = sum(r.built for r in hidden)

        line = (
            f"{plural(len(hidden), 'derived table')} not shown (pattern databases for "
            f"solve --method optimal, {built or 'none'} built): {hints.command('list --all', data)}"
        )
        typer.echo(textwrap.fill(line, known_width() or len(line), break_on_hyphens=False))


def _print_listed(rows: list[Listed]) -> None:
    """The rows under a header, one line a puzzle; on a terminal (or with COLUMNS) its
    title wrapped to the width: beside the row when 24 columns are left, else below."""
    width = max(len(r.name) for r in rows)
    head = f"{'name':<{width}}  {'graph':<10}  {'built':<7}  {'positions':>11}  default  "
    terminal = known_width() or 1 << 20
    room = terminal - len(head)
    beside = room >= 24
    typer.echo(head + "title" if beside else head.rstrip())
    for r in rows:
        count = f"{r.positions:,}" if r.positions is not None else ""
        built, default = ("yes" if r.built else "no"), ("yes" if r.default else "")
        if r.partial_depth is not None:
            built = f"to {r.partial_depth}"
        if r.damaged is not None:
            built = "damaged"
        row = f"{r.name:<{width}}  {r.graph:<10}  {built:<7}  {count:>11}  {default:<7}  "
        title = printable(r.title, lines=False)
        if beside:
            lines = textwrap.wrap(title, room) or [""]
            typer.echo(row + lines[0])
            for more in lines[1:]:
                typer.echo(" " * len(head) + more)
        else:
            typer.echo(row.rstrip())
            typer.echo(
                textwrap.fill(title, terminal, initial_indent="    ", subsequent_indent="    ")
            )


def _listed(base: Database) -> list[Listed]:
    """A row a puzzle known here: built-ins, specs kept in the data folder, built tables.
    A damaged table is listed as such, and a warning line says why (errors.LeftOut)."""
    for name, why in base.broken().items():
        warnings.warn(LeftOut(name, why, "the list's counts"), stacklevel=2)
    return base.listing()


def catalog(data: DataOpt = Path("data")) -> None:
    """Rewrite the DuckDB catalog (data/puzzles.duckdb) from the built tables."""
    typer.echo(str(db(data).write_catalog()))


def histogram(puzzle: PuzzleArg, data: DataOpt = Path("data"), as_json: JsonOpt = False) -> None:
    """Positions at each depth (a -sym table: its classes and the positions they stand for)."""
    rows = db(data).histogram(puzzle).rows(named=True)
    if as_json:
        emit({"puzzle": puzzle, "histogram": rows})
        return
    if rows and "orbit_positions" in rows[0]:
        _classes_histogram(rows)
        return
    typer.echo(f"{'depth':>5} {'positions':>14}")
    for r in rows:
        typer.echo(f"{r['depth']:>5} {r['positions']:>14,}")
    typer.echo(f"{'total':>5} {sum(r['positions'] for r in rows):>14,}")


def _classes_histogram(rows: list[dict[str, int]]) -> None:
    """A table of symmetry classes: classes (its rows) and the positions they stand for."""
    typer.echo(f"{'depth':>5} {'classes':>14} {'positions':>16}")
    for r in rows:
        typer.echo(f"{r['depth']:>5} {r['positions']:>14,} {r['orbit_positions']:>16,}")
    classes, orbits = (sum(r[k] for r in rows) for k in ("positions", "orbit_positions"))
    typer.echo(f"{'total':>5} {classes:>14,} {orbits:>16,}")


#: Boards ``longest`` draws before it lists the rest as text.
DRAWN = 24


def longest(
    puzzle: PuzzleArg,
    oneline: Annotated[
        bool, typer.Option("--oneline", help="One line a position, as typed (not drawn).")
    ] = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """The positions farthest from the roots (the deepest level), drawn as boards."""
    base = db(data)
    found = base.longest(puzzle)
    rows = found["position"].to_list()
    depth = base.table(puzzle).max_depth
    if as_json:
        emit({"puzzle": puzzle, "depth": depth, "positions": rows})
        return
    typer.echo(f"{puzzle}: {plural(len(rows), 'position')} at depth {depth}")
    if oneline:
        typer.echo("\n".join(rows))
        return
    drawings = [base.draw(puzzle, s) for s in found["state"].to_list()[:DRAWN]]
    typer.echo("\n".join(side_by_side(drawings, known_width() or 80)))
    if len(rows) > DRAWN:
        typer.echo(f"... and {len(rows) - DRAWN:,} more: --oneline lists them all")


def verify(
    puzzle: Annotated[list[str] | None, typer.Argument(help="Puzzles to check.")] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Check every built table, one line each.")
    ] = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """Check a table: each state once, parents one legal move up, nothing missing."""
    base = db(data)
    names = _to_verify(base, puzzle or [], every)
    checked = [_verify_one(base, name, every) for name in names]
    reports = [r for r, _ in checked]
    totals = {r.table: total for r, total in checked}
    if as_json:
        emit([_verified(r, totals[r.table]) for r in reports])
    else:
        for r in reports:
            _print_verified(r, totals[r.table], brief=every)
    if not all(r.ok for r in reports):
        raise typer.Exit(1)


def _to_verify(base: Database, names: list[str], every: bool) -> list[str]:
    """The tables to check: those named, or with ``--all`` every built one."""
    if every == bool(names):
        raise PuzzleDBError("verify: name the tables to check, or give --all (not both)")
    if names:
        return names
    built = sorted([*(m.table for m in base.manifests()), *base.broken()])  # damaged ones too
    if not built:
        raise PuzzleDBError(f"verify --all: no table is built in {base.data}")
    return built


def _verify_one(base: Database, name: str, go_on: bool) -> tuple[Report, int | None]:
    """The report on one table and the manifest's count (a failed check stops early,
    so the rows it read say less). ``go_on``: a table that cannot be opened is a
    failed report, so the others are still checked."""
    try:
        table = base.table(name)
        with VerifyBars(name, table.manifest.histogram()) as bars:  # sizes; verify checks
            return base.verify(name, on_level=bars.level), table.manifest.total
    except PuzzleDBError as e:
        if not go_on:
            raise
        return Made(name, problems=[str(e)]), None


def _verified(r: Report, total: int | None) -> dict[str, object]:
    return {
        "puzzle": r.table,
        "ok": r.ok,
        "positions": total,
        "checked": r.positions,
        "problems": r.problems,
    }


def _print_verified(r: Report, total: int | None, brief: bool = False) -> None:
    """The checks passed, or the problems found, under one line naming the table
    (``brief``: that line only, a failure's first problem on it)."""
    if r.ok:
        typer.echo(
            f"{r.table}: ok ({plural(r.positions, 'position')}, {plural(r.levels, 'level')})"
        )
        for c in [] if brief else r.checks:
            typer.echo(f"  - {c}")
        return
    head = f"{r.table}: FAILED"
    if total is not None:
        head += f" ({r.positions:,} of the manifest's {total:,} positions checked)"
    if brief:
        typer.echo(f"{head}: {r.problems[0]}")
        return
    typer.echo(head)
    for pr in r.problems:
        typer.echo(f"  ! {pr}")


def report(
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for report.html [default: the data folder]."),
    ] = None,
    data: DataOpt = Path("data"),
) -> None:
    """One self-contained HTML page: every table's numbers, histogram, deepest positions."""
    typer.echo(str(db(data).report(out)))


def plot_histogram(
    puzzle: Annotated[list[str], typer.Argument(help="Tables: bars for one, lines for several.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="SVG or PNG file, by its suffix [default: NAME-histogram.svg]."),
    ] = None,
    log: Annotated[bool, typer.Option("--log", help="Logarithmic counts.")] = False,
    percent: Annotated[
        bool, typer.Option("--percent", help="Each depth as a percentage of its table.")
    ] = False,
    data: DataOpt = Path("data"),
) -> None:
    """Positions per depth as a chart (counts from the manifests)."""
    from pipeline.pictures import charts

    fig = db(data).plot_histogram(puzzle, log=log, percent=percent)
    path = out or Path("-".join(puzzle) + "-histogram.svg")
    typer.echo(str(charts.save(fig, path)))
