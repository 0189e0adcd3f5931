"""The ``build`` command: which tables, then the API builds them under progress bars."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipeline.cli.bars import BuildBars
from pipeline.cli.shared import DataOpt, db, interruptible
from pipeline.hints import DATA_ENV
from pipeline.words import plural, seconds, size_of

if TYPE_CHECKING:
    from pipeline.api import Database
    from pipeline.storage.manifest import Manifest

#: What an interrupted build says (its finished levels are kept in staging).
INTERRUPTED = "interrupted (rerun the same build to resume)"

# The options of `build` (kept here so that the command reads at once).
PuzzlesArg = Annotated[list[str] | None, typer.Argument(help="Puzzles to build.")]
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
        "--spec",
        help="Also build a puzzle defined in a TOML file, or a twsearch .tws file named "
        "by the first PUZZLE (else by the file's name); kept in DATA/specs/.",
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
ExecutorOpt = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where the levels are made: local, or spark (pip install 'puzzledb[spark]').",
    ),
]
#: The old name of --executor, still taken (not shown in the help).
EngineOpt = Annotated[str | None, typer.Option("--engine", hidden=True)]
MasterOpt = Annotated[
    str,
    typer.Option("--master", help="The Spark master URL with --executor spark."),
]


@interruptible(INTERRUPTED)
def build(
    puzzle: PuzzlesArg = None,
    default: DefaultOpt = False,
    force: ForceOpt = False,
    paths: PathsOpt = False,
    memory: MemoryOpt = "3GB",
    root: RootOpt = None,
    spec: SpecOpt = None,
    yes: YesOpt = False,
    max_depth: MaxDepthOpt = None,
    symmetry: SymmetryOpt = False,
    executor: ExecutorOpt = "local",
    master: MasterOpt = "local[*]",
    data: DataOpt = Path("data"),
    engine: EngineOpt = None,
) -> None:
    """Build tables (resuming an interrupted build), then the DuckDB catalog."""
    base = db(data)
    names = _names(base, puzzle or [], default, symmetry, spec, root, memory)
    for line in _searched(base, names):
        typer.echo(line, err=True)
    new = not data.exists()  # said once made, so a build from elsewhere makes no silent ./data
    with BuildBars() as bars:
        manifests = base.build(
            names,
            force=force,
            paths=paths,
            on_level=bars.level,
            memory=memory,
            root=root,
            yes=yes,
            max_depth=max_depth,
            executor=_executor(executor, engine),
            master=master,
        )
    for m in manifests:
        typer.echo(_built_line(m), err=True)
    typer.echo(f"catalog: {data / 'puzzles.duckdb'}", err=True)
    if new:
        where = f"--data DIR or ${DATA_ENV} builds elsewhere"
        typer.echo(f"a new data folder: {data.absolute()} ({where})", err=True)


def _names(
    base: Database,
    named: list[str],
    default: bool,
    symmetry: bool,
    spec: Path | None,
    root: str | None,
    memory: str | None = None,
) -> list[str]:
    """The tables to build, each checked to be a puzzle (a spec is kept in the data folder)."""
    own = None  # a definition file (.tws) takes its table's name as the first NAME
    if spec is not None and spec.suffix.lower() != ".toml" and named:
        own, named = named[0], named[1:]
    names = base.build_names(named, symmetry=symmetry, default=default)
    if spec is not None:
        tables = base.add_spec(spec, own, memory)
        names += [n for n in (tables[:1] if root is not None else tables) if n not in names]
    if not names:
        raise typer.BadParameter("name at least one puzzle, or --default, or --spec")
    if root is not None and default:
        raise typer.BadParameter("--root goes with board names, not --default")
    for n in names:
        base.puzzle(n)
    return names


def _searched(base: Database, names: list[str]) -> list[str]:
    """A line for each puzzle too large to tabulate, and one for each of its pattern
    tables, built in its stead: its positions, and its look-up array (a byte each)."""
    out = []
    for n in names:
        tables = base.puzzle(n).search_tables()
        if tables:
            out.append(f"{n}: too large to tabulate, solved by search over its pattern tables:")
        for t in tables:
            size = base.puzzle(t).estimated_total or 0
            out.append(f"  {t}: {plural(size, 'position')}, a look-up array of {size_of(size)}")
    return out


def _executor(executor: str, engine: str | None) -> str:
    """--executor, or its old name --engine when that is the one given."""
    if engine is None:
        return executor
    if executor != "local" and executor != engine:
        raise typer.BadParameter("--engine is the old name of --executor: give one of them")
    return engine


def _built_line(m: Manifest) -> str:
    """One line a table: what it holds, and whether this build made it or found it done."""
    what = (
        f"{m.table}: {plural(m.total, 'position')}, max depth {m.max_depth} "
        f"({m.max_depth_positions:,} there)"
    )
    if m.partial_depth is not None:
        what += f", partial: depths 0..{m.partial_depth} only (--max-depth)"
    if m.up_to_date:
        return f"{what}, up to date (nothing to build; --force rebuilds)"
    return f"{what}, built in {seconds(m.build['seconds'])}"
