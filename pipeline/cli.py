"""The command line: parse, call one API method, print. No logic of its own.

Imports of the heavy libraries happen inside the commands (through the API),
so `puzzledb solve` starts without loading DuckDB or polars.

Longer than 300 lines because every command's options are declared here; each
command body is a few lines.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(
    help="Build and query breadth-first state-space databases of puzzles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

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


def _db(data: Path) -> Any:
    from pipeline.api import Database

    return Database(data)


def _emit(doc: Any) -> None:
    typer.echo(json.dumps(doc, indent=1))


@app.command("list")
def list_(data: DataOpt = Path("data"), as_json: JsonOpt = False) -> None:
    """List the puzzles: name, graph, whether built and in the default build."""
    from pipeline import puzzles

    built = set(_db(data).built())
    rows = [
        {
            "name": p.name,
            "title": p.title,
            "graph": str(p.graph),
            "origin": p.origin,
            "default": p.default,
            "built": p.name in built,
        }
        for p in puzzles.REGISTRY.values()
    ]
    if as_json:
        _emit(rows)
        return
    width = max(10, *(len(r["name"]) for r in rows))
    for r in rows:
        flags = ("built" if r["built"] else "-") + (" default" if r["default"] else "")
        typer.echo(f"{r['name']:<{width}} {r['graph']:<10} {flags:<14} {r['title']}")


@app.command()
def build(
    puzzle: Annotated[list[str] | None, typer.Argument(help="Puzzles to build.")] = None,
    default: Annotated[bool, typer.Option("--default", help="Build the default set.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Rebuild aside and swap in at the end.")
    ] = False,
    paths: Annotated[
        bool,
        typer.Option("--paths", help="Add the path-count column (rebuilds a table without it)."),
    ] = False,
    memory: Annotated[
        str,
        typer.Option(
            "--memory",
            help="Memory budget of the build (e.g. 3GB, 1GB); larger levels go in buckets.",
        ),
    ] = "3GB",
    yes: Annotated[
        bool,
        typer.Option(
            "--yes", help="Go on with a build too large for the free disk or over two hours."
        ),
    ] = False,
    data: DataOpt = Path("data"),
) -> None:
    """Build tables (resuming an interrupted build), then the DuckDB catalog."""
    from pipeline import puzzles
    from pipeline.progress import BuildProgress

    names = puzzles.expand_names(list(puzzle or []))
    if default:
        names += [p.name for p in puzzles.defaults() if p.name not in names]
    if not names:
        raise typer.BadParameter("name at least one puzzle, or --default")
    for n in names:
        puzzles.get(n)
    db = _db(data)
    with BuildProgress(names) as progress:
        manifests = db.build(
            names, force=force, paths=paths, on_level=progress.level, memory=memory, yes=yes
        )
    for m in manifests:
        typer.echo(
            f"{m.table}: {m.total:,} positions, max depth {m.max_depth} "
            f"({m.max_depth_positions:,} there), built in {m.build['seconds']:.2f} s",
            err=True,
        )
    typer.echo(f"catalog: {data / 'puzzles.duckdb'}", err=True)


@app.command()
def catalog(data: DataOpt = Path("data")) -> None:
    """Rewrite the DuckDB catalog (data/puzzles.duckdb) from the built tables."""
    typer.echo(str(_db(data).write_catalog()))


@app.command()
def histogram(puzzle: PuzzleArg, data: DataOpt = Path("data"), as_json: JsonOpt = False) -> None:
    """Positions at each depth."""
    rows = _db(data).histogram(puzzle).rows()
    if as_json:
        _emit({"puzzle": puzzle, "histogram": [{"depth": d, "positions": n} for d, n in rows]})
        return
    total = sum(n for _, n in rows)
    typer.echo(f"{'depth':>5} {'positions':>14}")
    for d, n in rows:
        typer.echo(f"{d:>5} {n:>14,}")
    typer.echo(f"{'total':>5} {total:>14,}")


@app.command()
def longest(puzzle: PuzzleArg, data: DataOpt = Path("data"), as_json: JsonOpt = False) -> None:
    """The positions farthest from the roots (the deepest level)."""
    db = _db(data)
    rows = db.longest(puzzle)["position"].to_list()
    depth = db.table(puzzle).max_depth
    if as_json:
        _emit({"puzzle": puzzle, "depth": depth, "positions": rows})
        return
    typer.echo(f"{puzzle}: {len(rows)} positions at depth {depth}")
    for r in rows:
        typer.echo(r)


def _typed(puzzle: str, position: str, moves: bool, only_turns: bool = False) -> str | int:
    """The position as typed, or with ``--moves`` (the pocket cube) the state its turns reach.

    ``only_turns``: ``--moves`` means nothing else here, so a puzzle without turns is an error.
    """
    p = db_puzzle(puzzle)
    if moves and (p.typed_moves or only_turns):
        return int(p.from_moves(position))
    return position


@app.command(context_settings=POSITIONAL)
def show(
    puzzle: PuzzleArg,
    position: PositionArg,
    moves: Annotated[
        bool, typer.Option("--moves", help="POSITION is turns from solved (pocket cube).")
    ] = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
    svg: SvgOpt = None,
) -> None:
    """Draw a position in the board's real shape, with its depth when the table is built."""
    db = _db(data)
    db.require_folder(puzzle)
    state = _typed(puzzle, position, moves, only_turns=True)
    drawing = db.draw(puzzle, state)
    if svg is not None:
        _write_svg(svg, db.board_svg(puzzle, state))
    depth = db.depth(puzzle, state) if puzzle in db.built() else None
    if as_json:
        _emit({"puzzle": puzzle, "position": position, "depth": depth, "drawing": drawing})
        return
    typer.echo(drawing)
    if depth is not None:
        typer.echo(f"depth {depth}")


@app.command(context_settings=POSITIONAL)
def solve(
    puzzle: PuzzleArg,
    position: PositionArg,
    oneline: Annotated[bool, typer.Option("--oneline", help="One line per position.")] = False,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="auto (the table if built, else optimal on 4x4), table, optimal "
            "(IDA* with pattern databases, built on first use), loop (4x4 only).",
        ),
    ] = "auto",
    moves: Annotated[
        bool,
        typer.Option(
            "--moves",
            help="Print the tiles slid (methods other than table); for the pocket cube, "
            "POSITION is turns from solved, e.g. \"R U R' U'\".",
        ),
    ] = False,
    no_build: Annotated[
        bool,
        typer.Option(
            "--no-build",
            help="Never build pattern databases (4x4's take minutes and GBs): fail instead.",
        ),
    ] = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
    svg: SvgOpt = None,
) -> None:
    """The path from a position to the root of its table, by walking parents.

    Sliding puzzles are enumerated from the goal: the path is an optimal
    solution. Oshidori is enumerated from the start: the path, read backwards,
    is a shortest way from the start to the position.
    """
    from pipeline.solvers.choose import pick

    db = _db(data)
    typed = _typed(puzzle, position, moves)
    if pick(method, puzzle, method == "auto" and puzzle in db.built()) != "table":
        _solve_by(db, puzzle, typed, method, moves, as_json, svg, not no_build)
        return
    sol = db.solve(puzzle, typed)
    if svg is not None:
        _write_svg(svg, db.solution_svg(sol))
    if as_json:
        _emit(sol.as_dict())
        return
    p = db_puzzle(puzzle)
    what = (
        "moves to the goal (optimal)"
        if sol.origin == "goal"
        else "moves from the start (shortest; listed from the position back to the start)"
    )
    typer.echo(f"{puzzle}: {sol.moves} {what}")
    if sol.notation:
        where = "from the start" if sol.origin == "start" else "to the goal"
        typer.echo(f"line {where}: {sol.notation}")
    for i, s in enumerate(sol.states):
        if oneline:
            typer.echo(f"{i:>3}  {sol.path[i]}")
        else:
            typer.echo(f"-- {i}")
            typer.echo(p.draw(s))


def _solve_by(
    db: Any,
    puzzle: str,
    position: str | int,
    method: str,
    moves: bool,
    js: bool,
    svg: Path | None,
    build: bool = True,
) -> None:
    """Solve by a method (the move count; the tiles slid with ``moves``)."""
    from pipeline.progress import BuildProgress

    with BuildProgress([]) as progress:
        sol = db.solve_by(
            puzzle,
            position,
            method,
            on_level=progress.level,
            build=build,
            on_build=lambda text: typer.echo(f"puzzledb: {text}", err=True),
        )
    if svg is not None:
        _write_svg(svg, db.solution_svg(sol))
    if js:
        _emit(sol.as_dict())
        return
    how = {
        "table": "optimal, from the table",
        "optimal": "optimal, pattern databases",
        "loop": "the loop method, not optimal",
    }[sol.method]
    effort = f", {sol.nodes:,} nodes, {sol.seconds:.2f} s" if sol.nodes is not None else ""
    typer.echo(f"{puzzle}: {sol.moves} moves to the goal ({how}{effort})")
    if moves:
        typer.echo("tiles slid: " + " ".join(map(str, sol.tiles)))


def db_puzzle(name: str) -> Any:
    from pipeline import puzzles

    return puzzles.get(name)


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help="SQL text, or a path to a .sql file.")],
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """Run SQL against the catalog (views, macros) and print the result."""
    df = _db(data).query(sql)
    if as_json:
        typer.echo(df.write_json())
        return
    import polars as pl

    with pl.Config(tbl_rows=200, tbl_cols=20, fmt_str_lengths=80):
        typer.echo(str(df))


@app.command()
def verify(
    puzzle: Annotated[list[str], typer.Argument(help="Puzzles to check.")],
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """Check a table: each state once, parents one legal move up, nothing missing."""
    db = _db(data)
    reports = [db.verify(name) for name in puzzle]
    if as_json:
        _emit(
            [
                {"puzzle": r.table, "ok": r.ok, "positions": r.positions, "problems": r.problems}
                for r in reports
            ]
        )
    else:
        for r in reports:
            if r.ok:
                typer.echo(f"{r.table}: ok ({r.positions:,} positions, {r.levels} levels)")
                for c in r.checks:
                    typer.echo(f"  - {c}")
            else:
                typer.echo(f"{r.table}: FAILED")
                for pr in r.problems:
                    typer.echo(f"  ! {pr}")
    if not all(r.ok for r in reports):
        raise typer.Exit(1)


plot = typer.Typer(help="Charts of the tables (SVG or PNG).", no_args_is_help=True)
app.add_typer(plot, name="plot")


@plot.command("histogram")
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

    fig = _db(data).plot_histogram(puzzle, log=log, percent=percent)
    path = out or Path("-".join(puzzle) + "-histogram.svg")
    typer.echo(str(charts.save(fig, path)))


@app.command()
def report(
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for report.html [default: the data folder]."),
    ] = None,
    data: DataOpt = Path("data"),
) -> None:
    """One self-contained HTML page: every table's numbers, histogram, deepest positions."""
    typer.echo(str(_db(data).report(out)))


def _write_svg(path: Path, svg: str) -> None:
    from pipeline.pictures import output

    output.svg_file(path, svg)


def main() -> None:
    """Entry point: user errors become one line on stderr and a non-zero exit."""
    from pipeline.errors import PuzzleDBError

    try:
        app()
    except PuzzleDBError as e:
        print(f"puzzledb: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("puzzledb: interrupted (rerun the same build to resume)", file=sys.stderr)
        sys.exit(130)
    except Exception as e:  # a library error on user input (bad SQL, unreadable file)
        if type(e).__module__.split(".")[0] in ("duckdb", "_duckdb", "pyarrow", "polars"):
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"puzzledb: {first}", file=sys.stderr)
            sys.exit(1)
        raise


if __name__ == "__main__":
    main()
