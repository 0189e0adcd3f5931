"""The commands about one position: ``show`` draws it, ``solve`` walks it to a root."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipeline.answers import Distance, MethodSolution, Solution
from pipeline.cli.bars import BuildBars, SearchLine
from pipeline.cli.shared import (
    DataOpt,
    JsonOpt,
    PositionArg,
    PuzzleArg,
    SvgOpt,
    db,
    emit,
    write_svg,
)
from pipeline.cli.walk import print_walk
from pipeline.errors import BadMethod, PuzzleDBError
from pipeline.words import plural

if TYPE_CHECKING:
    from pipeline.api import Database

MethodOpt = Annotated[
    str,
    typer.Option(
        "--method",
        help="auto (the table if built, else optimal on 4x4), table, optimal "
        "(IDA* with pattern databases, built on first use), loop (4x4 only).",
    ),
]
TilesOpt = Annotated[
    bool,
    typer.Option(
        "--tiles",
        help="Also print the tiles slid, step by step (sliding puzzles; "
        "the old spelling --moves still works).",
    ),
]
#: The old spelling of --tiles (it meant turns on the pocket cube too: now --turns).
OldMovesOpt = Annotated[bool, typer.Option("--moves", hidden=True)]
TurnsOpt = Annotated[
    bool,
    typer.Option(
        "--turns",
        help="POSITION is turns from solved, e.g. \"R U R' U'\" (the pocket cube, cube3, "
        "twisty definitions).",
    ),
]
NoBuildOpt = Annotated[
    bool,
    typer.Option(
        "--no-build",
        help="Never build pattern databases (4x4's take minutes and GBs): fail instead.",
    ),
]
FromStartOpt = Annotated[
    bool,
    typer.Option(
        "--from-start",
        help="The line from the start to POSITION in the table itself (peg boards: "
        "jumps from the start, won or lost), not to the goal.",
    ),
]
#: How each method's answer is described.
HOW = {
    "table": "optimal, from the table",
    "optimal": "optimal, pattern databases",
    "loop": "the loop method, not optimal",
    "search": "optimal, proven by IDA* over its pattern tables",
}


def show(
    puzzle: PuzzleArg,
    position: PositionArg,
    turns: TurnsOpt = False,
    old_moves: OldMovesOpt = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
    svg: SvgOpt = None,
) -> None:
    """Draw a position in the board's real shape, with its depth when the table is built."""
    if old_moves:
        raise BadMethod("show --moves is now --turns (POSITION is turns from solved)")
    base = db(data)
    base.require_folder(puzzle)
    state = _typed(base, puzzle, position, turns)
    if svg is not None:
        write_svg(svg, base.board_svg(puzzle, state))
    if base.has_table(puzzle):
        base.depth(puzzle, state)  # not in the table: its one line, as before
    print_position(base, puzzle, state, position, as_json)


def print_position(
    base: Database, puzzle: str, state: str | int, typed: str, as_json: bool
) -> None:
    """A position drawn, its depth (``solved`` at a goal) and its properties."""
    drawing = base.draw(puzzle, state)
    props = base.properties(puzzle, state)
    if as_json:
        doc = {"puzzle": puzzle, "position": typed, "depth": props["depth"], "drawing": drawing}
        emit({**doc, "properties": props})
        return
    typer.echo(drawing)
    own = ["solved"] if props.get("solved") else []
    own += [f"{k} {v}" for k, v in props.items() if k not in ("depth", "solved")]
    if own:
        typer.echo(", ".join(own))
    if props["depth"] is not None:
        typer.echo(f"depth {props['depth']}")


def random_position(
    puzzle: PuzzleArg,
    depth: Annotated[
        int | None,
        typer.Option(
            "--depth",
            min=0,
            help="The depth to pick from (a twisty puzzle without it: any position of its group).",
        ),
    ] = None,
    nth: Annotated[
        int | None,
        typer.Option("--nth", min=0, help="The n-th position there in state order (from 0)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Without --depth: the random seed.")
    ] = None,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """A position at a depth of a built table, at random (or the n-th), drawn; without
    --depth, a uniformly random position of a twisty puzzle's group (cube3: no table)."""
    base = db(data)
    if depth is None:
        if nth is not None:
            raise BadMethod("--nth counts the positions at a depth: give --depth")
        text = base.random_position(puzzle, seed)
    else:
        text = base.at_depth(puzzle, depth, nth)
    state = base.state(puzzle, text)
    print_position(base, puzzle, state, text, as_json)
    if not as_json and not _reads_back(base, puzzle, base.draw(puzzle, state), state):
        typer.echo(f"typed: {text}")  # what solve, show and distance take


def _reads_back(base: Database, puzzle: str, drawing: str, state: int) -> bool:
    """Whether the drawing, typed, is the position (a grid is; a cube's net is not)."""
    try:
        return base.state(puzzle, drawing) == state
    except PuzzleDBError:
        return False


def distance(
    puzzle: PuzzleArg,
    first: Annotated[str, typer.Argument(help="The position to start from (quoted).")],
    second: Annotated[str, typer.Argument(help="The position to reach (quoted).")],
    turns: Annotated[
        bool,
        typer.Option(
            "--turns",
            help='FIRST and SECOND are turns from solved, e.g. "R U" (pocket cube, cube3).',
        ),
    ] = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """The fewest moves between two positions, where a table answers it: one of them a
    root of the table, or the second renamed to a goal (sliding tiles: of
    <board>@<its blank's cell>; the pocket cube and twisty definitions: solved);
    otherwise one line saying why not."""
    base = db(data)
    a, b = (_typed(base, puzzle, p, turns) for p in (first, second))
    found = _distance(base, puzzle, a, b)
    if as_json:
        emit(found.as_dict())
        return
    p = base.puzzle(puzzle)
    how = f"the depth in {found.table}"
    if found.method == "search":
        how = f"optimal, by search over its pattern tables {found.table}: the length of A^-1 B"
    elif found.renamed is not None:
        renamed = p.caption(p.parse(found.renamed))
        how += f" of {renamed}: the {p.pieces_word} renamed so that the other is its goal"
    if turns:  # as typed: turns from solved
        ends = " to ".join(f'"{" ".join(x.split())}"' for x in (first, second))
        how = f"turns from solved; {how}"
    else:
        ends = " to ".join(p.caption(p.parse(x)) for x in (found.a, found.b))
    typer.echo(f"{puzzle}: {plural(found.moves, 'move')} from {ends} ({how})")


def solve(
    puzzle: PuzzleArg,
    position: PositionArg,
    oneline: Annotated[bool, typer.Option("--oneline", help="One line per position.")] = False,
    method: MethodOpt = "auto",
    tiles: TilesOpt = False,
    turns: TurnsOpt = False,
    old_moves: OldMovesOpt = False,
    no_build: NoBuildOpt = False,
    from_start: FromStartOpt = False,
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
    svg: SvgOpt = None,
) -> None:
    """The path from a position to the root of its table, by walking parents.

    Sliding puzzles are enumerated from the goal: the path is an optimal
    solution. Oshidori is enumerated from the start: the path is a shortest
    way from the start to the position, printed from the start. A peg board's
    solve walks its winnable table to the goal; --from-start walks its own table
    instead: the jumps from the start to the position, won or lost.
    """
    base = db(data)
    p = base.puzzle(puzzle)
    typed = _typed(base, puzzle, position, turns)
    tiles = _check_tiles(base, puzzle, tiles or old_moves, p.typed_moves)
    if from_start:
        sol = base.from_start(puzzle, typed)
    else:
        sol = _solved(base, puzzle, typed, method, not no_build)
    if svg is not None:
        write_svg(svg, base.solution_svg(sol))
    if sol.method != "table":
        _print_method(puzzle, sol, tiles, as_json)
        return
    slid = base.tiles_slid(sol) if tiles else None
    if as_json:
        emit({**Solution.as_dict(sol), **({"tiles": slid} if slid is not None else {})})
        return
    print_walk(p, sol, oneline, slid)


def _typed(base: Database, puzzle: str, position: str, turns: bool) -> str | int:
    """The position as typed, or with ``--turns`` (the pocket cube) the state its turns reach
    (a puzzle without turns says so in one line)."""
    return base.from_turns(puzzle, position) if turns else position


def _distance(base: Database, puzzle: str, a: str | int, b: str | int) -> Distance:
    """The distance, with progress bars while pattern tables are built on first use."""
    with BuildBars() as bars:
        return base.distance(
            puzzle,
            a,
            b,
            on_level=bars.level,
            on_build=lambda text: typer.echo(f"puzzledb: {text}", err=True),
        )


def _check_tiles(base: Database, puzzle: str, tiles: bool, has_turns: bool) -> bool:
    """Whether to print the tiles slid; ``--tiles`` off a sliding puzzle is an error."""
    if tiles and not base.slides_tiles(puzzle):
        turns = " (to type POSITION as turns, give --turns)" if has_turns else ""
        raise BadMethod(f"--tiles prints the tiles slid: {puzzle} is not a sliding puzzle{turns}")
    return tiles


def _solved(
    base: Database, puzzle: str, position: str | int, method: str, build: bool
) -> MethodSolution:
    """The solution by ``method`` (the API picks it), with progress bars while pattern
    databases are built on first use, and a long search's progress; Ctrl-C stops a
    search with one line saying how far it went (exit 130)."""
    searching = SearchLine(puzzle)
    try:
        with BuildBars() as bars:
            return base.solve_by(
                puzzle,
                position,
                method,
                on_level=bars.level,
                build=build,
                on_build=lambda text: typer.echo(f"puzzledb: {text}", err=True),
                on_search=searching,
            )
    except KeyboardInterrupt:
        if searching.last is None:
            raise
        searching.close()
        typer.echo(f"puzzledb: {searching.stopped()}", err=True)
        raise typer.Exit(130) from None
    finally:
        searching.close()


def _print_method(puzzle: str, sol: MethodSolution, tiles: bool, js: bool) -> None:
    """A solve by pattern databases or the loop: the move count (the tiles with ``tiles``)."""
    if js:
        emit(sol.as_dict())
        return
    effort = f", {sol.nodes:,} nodes, {sol.seconds:.2f} s" if sol.nodes is not None else ""
    how = HOW[sol.method]
    if sol.method == "search":
        how, effort = f"{how} {sol.heuristic}", f";{effort[1:]}"
    typer.echo(f"{puzzle}: {plural(sol.moves, 'move')} to the goal ({how}{effort})")
    if sol.notation is not None:
        typer.echo(sol.notation if sol.moves else "(solved)")
    if tiles:
        typer.echo("tiles slid: " + " ".join(map(str, sol.tiles)))
