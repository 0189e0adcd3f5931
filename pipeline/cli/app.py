"""The command line: parse, call one API method, print. No logic of its own.

Imports of the heavy libraries happen inside the commands (through the API),
so `puzzledb solve` starts without loading DuckDB or polars.

Longer than 300 lines because every command's options are declared here; each
command body is a few lines.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from pipeline.errors import BadMethod

app = typer.Typer(
    help="Build and query breadth-first state-space databases of puzzles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: rich's (Typer 0.29) shows a value placeholder "<bool>" beside every flag.
    rich_markup_mode=None,
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
#: What an interrupted build says (its finished levels are kept in staging).
INTERRUPTED = "interrupted (rerun the same build to resume)"
#: Positions may start with '-' ("-1 2 3 ..." is then the project's one-line error).
POSITIONAL = {"ignore_unknown_options": True}


def _interruptible(line: str) -> Any:
    """Ctrl-C in the command: ``line`` on stderr and exit 130. Typer alone exits 130
    without a word, and DuckDB turns Ctrl-C into RuntimeError("Query interrupted")."""

    def wrap(command: Any) -> Any:
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


def _db(data: Path) -> Any:
    from pipeline.api import Database

    return Database(data)


def _emit(doc: Any) -> None:
    typer.echo(json.dumps(doc, indent=1))


@app.command("list")
def list_(data: DataOpt = Path("data"), as_json: JsonOpt = False) -> None:
    """List the puzzles: name, graph, whether built (and how many positions), default, title.

    A table of the first levels only (build --max-depth N) shows as built "to N"."""
    db = _db(data)
    found = db.manifests()
    totals = {m.table: m.total for m in found}
    partial = {m.table: m.partial_depth for m in found}
    rows = [
        {
            "name": p.name,
            "title": p.title,
            "graph": str(p.graph),
            "origin": p.origin,
            "default": p.default,
            "built": p.name in totals,
            "positions": totals.get(p.name),
            "partial_depth": partial.get(p.name),
        }
        for p in db.known_puzzles()  # built-ins, specs kept in the data folder, built tables
    ]
    if as_json:
        _emit(rows)
        return
    width = max(len(r["name"]) for r in rows)
    typer.echo(f"{'name':<{width}}  {'graph':<10}  {'built':<5}  {'positions':>13}  default  title")
    for r in rows:
        count = f"{r['positions']:,}" if r["built"] else ""
        built, default = ("yes" if r["built"] else "no"), ("yes" if r["default"] else "")
        if r["partial_depth"] is not None:
            built = f"to {r['partial_depth']}"
        typer.echo(
            f"{r['name']:<{width}}  {r['graph']:<10}  {built:<5}  {count:>13}  {default:<7}  "
            f"{r['title']}"
        )


# The options of `build` (kept here so that the command reads at once).
DefaultOpt = Annotated[bool, typer.Option("--default", help="Build the default set.")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Rebuild aside and swap in at the end.")]
PathsOpt = Annotated[
    bool,
    typer.Option("--paths", help="Add the path-count column (rebuilds a table without it)."),
]
MemoryOpt = Annotated[
    str,
    typer.Option(
        "--memory",
        help="Memory budget of the build (e.g. 3GB, 1GB); larger levels go in buckets.",
    ),
]
RootOpt = Annotated[
    str | None,
    typer.Option(
        "--root",
        help="Build the named boards from this position (tables <board>~<hash>).",
    ),
]
SpecOpt = Annotated[
    Path | None,
    typer.Option(
        "--spec", help="Also build a puzzle defined in a TOML file (kept in DATA/specs/)."
    ),
]
YesOpt = Annotated[
    bool,
    typer.Option("--yes", help="Go on with a build too large for the free disk or over two hours."),
]
MaxDepthOpt = Annotated[
    int | None,
    typer.Option(
        "--max-depth",
        min=0,
        max=255,
        help="Build the first levels only, up to this depth (a partial table).",
    ),
]
SymmetryOpt = Annotated[
    bool,
    typer.Option(
        "--symmetry",
        help="Build the named peg boards' symmetry classes instead (tables <board>-sym).",
    ),
]
EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine",
        help="Where the levels are made: local, or spark (pip install 'puzzledb[spark]').",
    ),
]
MasterOpt = Annotated[
    str,
    typer.Option("--master", help="The Spark master URL with --engine spark."),
]


@app.command()
@_interruptible(INTERRUPTED)
def build(
    puzzle: Annotated[list[str] | None, typer.Argument(help="Puzzles to build.")] = None,
    default: DefaultOpt = False,
    force: ForceOpt = False,
    paths: PathsOpt = False,
    memory: MemoryOpt = "3GB",
    root: RootOpt = None,
    spec: SpecOpt = None,
    yes: YesOpt = False,
    max_depth: MaxDepthOpt = None,
    symmetry: SymmetryOpt = False,
    engine: EngineOpt = "local",
    master: MasterOpt = "local[*]",
    data: DataOpt = Path("data"),
) -> None:
    """Build tables (resuming an interrupted build), then the DuckDB catalog."""
    from pipeline.cli.progress import BuildProgress
    from pipeline.puzzles import registry as puzzles

    names = puzzles.expand_names(list(puzzle or []))
    if symmetry:
        from pipeline.puzzles.pegs.sym import sym_name

        names = [sym_name(n) for n in names]
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
            names,
            force=force,
            paths=paths,
            on_level=progress.level,
            memory=memory,
            root=root,
            yes=yes,
            max_depth=max_depth,
            engine=engine,
            master=master,
        )
    for m in manifests:
        typer.echo(_built_line(m), err=True)
    typer.echo(f"catalog: {data / 'puzzles.duckdb'}", err=True)


def _built_line(m: Any) -> str:
    """One line a table: what it holds, and whether this build made it or found it done."""
    from pipeline.words import plural, seconds

    what = (
        f"{m.table}: {plural(m.total, 'position')}, max depth {m.max_depth} "
        f"({m.max_depth_positions:,} there)"
    )
    if m.partial_depth is not None:
        what += f", partial: depths 0..{m.partial_depth} only (--max-depth)"
    if m.up_to_date:
        return f"{what}, up to date (nothing to build; --force rebuilds)"
    return f"{what}, built in {seconds(m.build['seconds'])}"


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
    typer.echo(f"{puzzle}: {_plural(len(rows), 'position')} at depth {depth}")
    for r in rows:
        typer.echo(r)


def _typed(
    puzzle: str, position: str, moves: bool, only_turns: bool = False, data: Path | None = None
) -> str | int:
    """The position as typed, or with ``--moves`` (the pocket cube) the state its turns reach.

    ``only_turns``: ``--moves`` means nothing else here, so a puzzle without turns is an error.
    """
    p = db_puzzle(puzzle, data)
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
    state = _typed(puzzle, position, moves, only_turns=True, data=data)
    drawing = db.draw(puzzle, state)
    if svg is not None:
        _write_svg(svg, db.board_svg(puzzle, state))
    depth = db.depth(puzzle, state) if db.has_table(puzzle) else None
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
            help="Print the tiles slid (sliding puzzles); for the pocket cube, "
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
    solution. Oshidori is enumerated from the start: the path is a shortest
    way from the start to the position, printed from the start.
    """
    from pipeline.solvers.choose import pick

    db = _db(data)
    p = db_puzzle(puzzle, data)
    typed = _typed(puzzle, position, moves, data=data)
    tiles = moves and not p.typed_moves
    if tiles and not _sliding(p):
        raise BadMethod(f"--moves prints the tiles slid: {puzzle} is not a sliding puzzle")
    if pick(method, puzzle, method == "auto" and db.is_built(puzzle)) != "table":
        _solve_by(db, puzzle, typed, method, moves, as_json, svg, not no_build)
        return
    sol = db.solve(puzzle, typed)
    slid = _tiles_slid(p, sol.states) if tiles else None
    if svg is not None:
        _write_svg(svg, db.solution_svg(sol))
    if as_json:
        _emit({**sol.as_dict(), **({"tiles": slid} if slid is not None else {})})
        return
    _print_walk(p, sol, oneline, slid)


def _sliding(p: Any) -> bool:
    from pipeline.puzzles.tiles.board import TilePuzzle

    return isinstance(p, TilePuzzle)


def _tiles_slid(p: Any, states: list[int]) -> list[int]:
    """The tile slid at each step of a walk (from its first state to its last)."""
    values = [p.cells.values(s) for s in states]
    return [a[b.index(0)] for a, b in itertools.pairwise(values)]


def _print_walk(p: Any, sol: Any, oneline: bool, tiles: list[int] | None = None) -> None:
    """The count, the line and the boards of a table walk, all in one order: the line's.

    A walk from the goal lists the position first; a walk from the start is
    printed from the start, as its line reads. Boards are numbered by the
    table's steps (jumps on peg boards, where a run of one peg's jumps is one move).
    """
    from pipeline.words import plural

    start_first = sol.origin == "start"
    states = sol.states[::-1] if start_first else sol.states
    texts = sol.path[::-1] if start_first else sol.path
    typer.echo(_walk_head(p, sol, states))
    if sol.notation:
        where = "from the start" if start_first else "to the goal"
        moves = f", {plural(p.moves_in(states), 'move')}" if p.step_word != "move" else ""
        typer.echo(f"line {where}{moves}: {sol.notation}")
    if tiles is not None:
        typer.echo("tiles slid: " + " ".join(map(str, tiles)))
    for i, (s, text) in enumerate(zip(states, texts, strict=True)):
        if oneline:
            typer.echo(f"{i:>3}  {text}")
        else:
            typer.echo(f"-- {plural(i, p.step_word)}" if p.step_word != "move" else f"-- {i}")
            typer.echo(p.draw(s))


def _walk_head(p: Any, sol: Any, states: list[int]) -> str:
    """``3x3: 31 moves to the goal (optimal)``; peg boards count jumps and moves apart."""
    from pipeline.words import plural

    steps, word = len(states) - 1, p.step_word
    if sol.origin == "goal":
        if word == "move":
            return f"{sol.puzzle}: {plural(steps, 'move')} to the goal (optimal)"
        return (
            f"{sol.puzzle}: {plural(steps, word)} to the goal (a winning line; each {word} "
            f"removes a peg, so every winning line from here takes {steps})"
        )
    if word == "move":
        return (
            f"{sol.puzzle}: {plural(steps, 'move')} from the start (shortest; "
            "boards from the start to the position)"
        )
    return (
        f"{sol.puzzle}: {plural(p.moves_in(states), 'move')} from the start (the fewest; "
        f"{plural(steps, word)}, a run of one peg's {word}s is one move; "
        "boards from the start to the position)"
    )


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
    from pipeline.cli.progress import BuildProgress

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
    typer.echo(f"{puzzle}: {_plural(sol.moves, 'move')} to the goal ({how}{effort})")
    if moves:
        typer.echo("tiles slid: " + " ".join(map(str, sol.tiles)))


def _plural(n: int, word: str) -> str:
    from pipeline.words import plural

    return plural(n, word)


def db_puzzle(name: str, data: Path | None = None) -> Any:
    from pipeline.puzzles import registry as puzzles

    return puzzles.get(name, data)


@app.command()
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
    from pipeline.errors import BadQuery

    params = {}
    for item in sets or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise BadQuery(f"--set takes NAME=VALUE, not {item!r}")
        params[key.strip()] = value
    if limit < 0:
        raise BadQuery(f"--limit is a number of rows, 0 or more, not {limit}")
    fmt = "json" if as_json else fmt
    _check_output(fmt, out, data, write)
    db = _db(data)
    try:
        df = db.query(sql, params, write=write)
        _print_frame(df, fmt, out, None if show_all else limit)
    except KeyboardInterrupt:
        _cancelled()


def _cancelled() -> NoReturn:
    """One line and exit 130 now. os._exit: a query that ignored the interrupt still
    runs in its thread (pipeline/query/interrupt.py), and the interpreter's shutdown can
    abort under it in DuckDB's C++ code (seen: "terminate called ...", exit 134)."""
    print("puzzledb: query cancelled", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(130)


def _check_output(fmt: str, out: Path | None, data: Path, write: bool) -> None:
    """BadQuery or BadOutput before the query runs: a format, or an --out we would
    not write (a folder, a missing folder, a file in the data folder without --write)."""
    from pipeline.errors import BadOutput, BadQuery

    if fmt not in ("table", "csv", "json", "parquet"):
        raise BadQuery(f"--format is table, csv, json or parquet, not {fmt!r}")
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


def _print_frame(df: Any, fmt: str, out: Path | None, limit: int | None) -> None:
    """A query's result as a table (cut at ``limit`` rows, said so), CSV, JSON or Parquet."""
    from pipeline.pictures import output

    if fmt == "table":
        import polars as pl

        shown = df if limit is None else df.head(limit)
        with pl.Config(tbl_rows=-1, tbl_cols=20, fmt_str_lengths=80):
            text = str(shown)
        if len(shown) < len(df):
            text += f"\n({len(df):,} rows, {len(shown):,} shown: --all or --limit N for more)"
    elif fmt == "parquet":
        buffer = io.BytesIO()
        df.write_parquet(buffer)
        text = buffer.getvalue()
    else:
        text = {"csv": df.write_csv, "json": df.write_json}[fmt]()
    if out is None:
        typer.echo(text.rstrip("\n"))
    else:
        output.write(out, text)


@app.command()
def verify(
    puzzle: Annotated[list[str], typer.Argument(help="Puzzles to check.")],
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """Check a table: each state once, parents one legal move up, nothing missing."""
    from pipeline.cli.progress import VerifyProgress

    db = _db(data)
    reports = []
    for name in puzzle:
        with VerifyProgress(name, db.table(name).histogram()) as progress:
            reports.append(db.verify(name, on_level=progress.level))
    # The manifest's count: a failed check stops early, so the rows it read say less.
    totals = {r.table: db.table(r.table).manifest.total for r in reports}
    if as_json:
        _emit(
            [
                {
                    "puzzle": r.table,
                    "ok": r.ok,
                    "positions": totals[r.table],
                    "checked": r.positions,
                    "problems": r.problems,
                }
                for r in reports
            ]
        )
    else:
        for r in reports:
            if r.ok:
                typer.echo(
                    f"{r.table}: ok ({_plural(r.positions, 'position')}, "
                    f"{_plural(r.levels, 'level')})"
                )
                for c in r.checks:
                    typer.echo(f"  - {c}")
            else:
                typer.echo(
                    f"{r.table}: FAILED ({r.positions:,} of the manifest's "
                    f"{totals[r.table]:,} positions checked)"
                )
                for pr in r.problems:
                    typer.echo(f"  ! {pr}")
    if not all(r.ok for r in reports):
        raise typer.Exit(1)


plot = typer.Typer(
    help="Charts of the tables (SVG or PNG).", no_args_is_help=True, rich_markup_mode=None
)
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
    except KeyboardInterrupt:  # outside a command (Typer exits 130 silently inside one)
        print("puzzledb: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as e:  # a library error on user input (bad SQL, unreadable file)
        if type(e).__module__.split(".")[0] in ("duckdb", "_duckdb", "pyarrow", "polars"):
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"puzzledb: {first}", file=sys.stderr)
            sys.exit(1)
        raise


if __name__ == "__main__":
    main()
