"""The command line: parse, call one API method, print. No logic of its own.

Imports of the heavy libraries happen inside the commands (through the API),
so `puzzledb solve` starts without loading DuckDB or polars.
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
PuzzleArg = Annotated[str, typer.Argument(help="Registry name, e.g. 3x3 (see `puzzledb list`).")]
PositionArg = Annotated[
    str, typer.Argument(help="A position, cell 0 first, e.g. '8 6 7 2 5 4 3 0 1'.")
]


def _db(data: Path) -> Any:
    from pipeline.api import Database

    return Database(data)


def _emit(doc: Any) -> None:
    typer.echo(json.dumps(doc, indent=1))


@app.command("list")
def list_(data: DataOpt = Path("data"), as_json: JsonOpt = False) -> None:
    """List the puzzles: name, graph, whether built and in the default build."""
    db = _db(data)
    built = set(db.built())
    rows = [
        {
            "name": p.name,
            "title": p.title,
            "graph": str(p.graph),
            "origin": p.origin,
            "default": p.default,
            "built": p.name in built,
        }
        for p in db.known_puzzles()  # built-ins, specs kept in the data folder, built tables
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
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            help="Build the named boards from this position (tables <board>~<hash>).",
        ),
    ] = None,
    spec: Annotated[
        Path | None,
        typer.Option(
            "--spec", help="Also build a puzzle defined in a TOML file (kept in DATA/specs/)."
        ),
    ] = None,
    data: DataOpt = Path("data"),
) -> None:
    """Build tables (resuming an interrupted build), then the DuckDB catalog."""
    from pipeline import puzzles
    from pipeline.progress import BuildProgress

    names = puzzles.expand_names(list(puzzle or []))
    if default:
        names += [p.name for p in puzzles.defaults() if p.name not in names]
    db = _db(data)
    if spec is not None:
        tables = db.add_spec(spec)
        names += [n for n in (tables[:1] if root is not None else tables) if n not in names]
    if not names:
        raise typer.BadParameter("name at least one puzzle, or --default, or --spec")
    if root is not None and default:
        raise typer.BadParameter("--root goes with board names, not --default")
    for n in names:
        puzzles.get(n, data)
    with BuildProgress(names, data) as progress:
        manifests = db.build(
            names, force=force, paths=paths, on_level=progress.level, memory=memory, root=root
        )
    for m in manifests:
        typer.echo(
            f"{m['table']}: {m['total']:,} positions, max depth {m['max_depth']} "
            f"({m['max_depth_positions']:,} there), built in {m['build']['seconds']:.2f} s",
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
    rows = _db(data).histogram(puzzle)
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
    rows = db.longest(puzzle)
    depth = db.table(puzzle).max_depth
    if as_json:
        _emit({"puzzle": puzzle, "depth": depth, "positions": rows})
        return
    typer.echo(f"{puzzle}: {len(rows)} positions at depth {depth}")
    for r in rows:
        typer.echo(r)


@app.command()
def show(
    puzzle: PuzzleArg, position: PositionArg, data: DataOpt = Path("data"), as_json: JsonOpt = False
) -> None:
    """Draw a position in the board's real shape, with its depth when the table is built."""
    db = _db(data)
    drawing = db.draw(puzzle, position)
    depth = db.depth(puzzle, position) if puzzle in db.built() else None
    if as_json:
        _emit({"puzzle": puzzle, "position": position, "depth": depth, "drawing": drawing})
        return
    typer.echo(drawing)
    if depth is not None:
        typer.echo(f"depth {depth}")


@app.command()
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
        bool, typer.Option("--moves", help="Print the tiles slid (methods other than table).")
    ] = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """The path from a position to the root of its table, by walking parents.

    Sliding puzzles are enumerated from the goal: the path is an optimal
    solution. Oshidori is enumerated from the start: the path, read backwards,
    is a shortest way from the start to the position.
    """
    from pipeline.solvers.choose import walks_table

    db = _db(data)
    if not walks_table(db, puzzle, method):
        _solve_by(db, puzzle, position, method, moves, as_json)
        return
    sol = db.solve(puzzle, position)
    if as_json:
        _emit(sol.as_dict())
        return
    p = db_puzzle(puzzle, data)
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


def _solve_by(db: Any, puzzle: str, position: str, method: str, moves: bool, js: bool) -> None:
    """Solve by a method (the move count; the tiles slid with ``moves``)."""
    from pipeline.progress import BuildProgress

    with BuildProgress([]) as progress:
        sol = db.solve_by(puzzle, position, method, on_level=progress.level)
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


def db_puzzle(name: str, data: Path | None = None) -> Any:
    from pipeline import puzzles

    return puzzles.get(name, data)


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
