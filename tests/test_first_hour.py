"""What a newcomer's first hour tripped on, third round, each held by a figure: the
exact line a user reads and its exit status, the count or depth an answer gives."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import hints
from pipeline.puzzles.builtin import REGISTRY
from pipeline.puzzles.tiles.family import any_rectangle
from pipeline.puzzles.tiles.patterns import PARTITIONS
from tests.matrix import EXAMPLES, Ran, cli

P8 = "8 6 7 2 5 4 3 0 1"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with 2x3 and the floppy definition built."""
    data = tmp_path_factory.mktemp("first") / "data"
    assert cli("build", "2x3", data=data).code == 0
    assert cli("build", "--spec", str(EXAMPLES / "floppy.tws"), data=data).code == 0
    return data


def one_line(ran: Ran, code: int) -> str:
    """The one line a failed command printed (its exit status ``code``), without `puzzledb: `."""
    err = ran.err.strip()
    assert ran.code == code and len(err.splitlines()) == 1, ran
    assert err.startswith("puzzledb: ") and "Traceback" not in err, err
    return err.removeprefix("puzzledb: ")


def test_a_missing_table_keeps_duckdbs_suggestion_and_names_the_build(folder: Path) -> None:
    """DuckDB's own "Did you mean" stays on the line; a puzzle not built here gets the
    command that builds it (a board too large for the disk: what answers instead)."""
    line = one_line(cli("query", 'SELECT * FROM "2x33"', data=folder), 1)
    assert line == 'Catalog Error: Table with name 2x33 does not exist! Did you mean "2x3"?'
    line = one_line(cli("query", "SELECT statte FROM floppy", data=folder), 1)
    assert line.endswith('not found in FROM clause! Candidate bindings: "state", "parent"')
    line = one_line(cli("query", 'SELECT * FROM "3x4"', data=folder), 1)
    assert line.startswith("Catalog Error: Table with name 3x4 does not exist! Did you mean ")
    assert line.endswith(f"(3x4 is not built yet: run `puzzledb build 3x4 --data {folder}`)")
    line = one_line(cli("query", 'SELECT * FROM "4x4"', data=folder), 1)
    assert "(4x4 is not built, nor can it be here: its 10,461,394,944,000 positions" in line
    assert f"`puzzledb solve 4x4 POSITION --data {folder}` finds an optimal line" in line
    line = one_line(cli("query", "SELECT * FROM pockett", data=folder), 1)
    assert line.startswith("Catalog Error: Table with name pockett does not exist! Did you mean")


def _too_large() -> list[str]:
    """Every board of the registry and every rectangle a family makes whose table would not
    fit the free disk here (at 5 bytes a position); not a puzzle solved by search (cube3),
    which has no table to build (tests/test_twisty_solve.py)."""
    rectangles = [f"{r}x{c}" for r in range(2, 9) for c in range(2, 9) if any_rectangle(f"{r}x{c}")]
    boards = {n: REGISTRY.get(n) or any_rectangle(n) for n in [*REGISTRY, *rectangles]}
    return [
        n
        for n, p in boards.items()
        if p and not p.search_tables() and not hints.fits(Path("."), p.expected_total)
    ]


def test_a_table_too_large_to_build_points_to_solve_and_the_pattern_tables(
    folder: Path,
) -> None:
    """`histogram 4x4` suggested `build 4x4`, which then refused (about 67,820 GiB): a
    table that cannot fit the disk points to `solve` with its pattern tables where it has
    them, and to its first levels; one that fits is told its build."""
    line = one_line(cli("histogram", "4x4", data=folder), 1)
    pattern = (
        r"4x4 is not built, nor can it be here: its 10,461,394,944,000 positions would take "
        r"about 48,715 GiB, more than the [\d.,]+ [KMG]i?B free; "
        rf"`puzzledb solve 4x4 POSITION --data {re.escape(str(folder))}` finds an optimal "
        r"line with its pattern tables \(built on first use, or by `puzzledb build 4x4-pdb "
        rf"--data {re.escape(str(folder))}`\), and `puzzledb build 4x4 --max-depth N "
        rf"--data {re.escape(str(folder))}` builds its first levels"
    )
    assert re.fullmatch(pattern, line), line
    too_large = _too_large()
    assert {"4x4", "2x8", "8x2", "3x5", "5x3"} <= set(too_large)
    for name in too_large:
        for verb in ("histogram", "longest"):
            line = one_line(cli(verb, name, data=folder), 1)
            assert line.startswith(f"{name} is not built, nor can it be here: its "), line
            assert ("finds an optimal line" in line) == (name in PARTITIONS), line
            assert f"`puzzledb build {name} --max-depth N --data {folder}`" in line
            assert f"`puzzledb build {name} --data" not in line
    line = one_line(cli("histogram", "3x4", data=folder), 1)
    assert line == f"3x4 is not built yet: run `puzzledb build 3x4 --data {folder}`"


@pytest.mark.parametrize(
    ("args", "typo", "near"),
    [
        (("solve", "3x3", "--onelin", P8), "--onelin", "--oneline"),
        (("solve", "3x3", P8, "--onelin"), "--onelin", "--oneline"),
        (("solve", "3x3", "--onelin"), "--onelin", "--oneline"),
        (("show", "pocket", "--tuns", "R U"), "--tuns", "--turns"),
        (("solve", "3x3", "--zzz", P8), "--zzz", None),
        (("distance", "floppy", "--turn", "R", "F"), "--turn", "--turns"),
        (("distance", "floppy", "R", "F", "--turn"), "--turn", "--turns"),
    ],
)
def test_a_mistyped_option_is_named_wherever_it_is(
    folder: Path, args: tuple[str, ...], typo: str, near: str | None
) -> None:
    """Before the position it was taken for the position (`unexpected argument(s)`, exit
    1); after it, click's line without the near miss: now the same line both ways, exit 2."""
    line = one_line(cli(*args, data=folder), 2)
    also = f" (Possible options: {near})" if near else ""
    assert line == f"No such option: {typo}{also} (see puzzledb {args[0]} --help)"


def test_a_position_starting_with_a_dash_is_still_a_position(folder: Path) -> None:
    """A word after `--` is a position, whatever it looks like."""
    argv = [sys.executable, "-m", "pipeline.cli", "solve", "2x3", "--data", str(folder)]
    ran = subprocess.run([*argv, "--", "--oneline"], capture_output=True, text=True)
    assert ran.returncode == 1, ran
    assert ran.stderr == "puzzledb: expected 6 cells, got 9 in '--oneline'\n"  # a character a cell
    line = one_line(cli("solve", "2x3", "-1 2 3 4 5 0", data=folder), 1)
    assert "-1" in line


def test_a_state_block_on_one_line_is_told_its_lines_and_its_compact_line(
    folder: Path,
) -> None:
    """A state block needs its lines; typed on one line it is told so, with the compact
    line of the position it spells, which then reads as the block does."""
    block = "CORNER\n4 2 3 1\nEDGE\n1 2 3 4\n0 0 0 1"
    ran = cli("show", "floppy", block, "--json", data=folder)
    assert ran.code == 0 and '"depth": 1' in ran.out, ran
    line = one_line(cli("show", "floppy", " ".join(block.split()), data=folder), 1)
    assert line == (
        "not a position of floppy: a state block needs its lines (a set's name, its labels, "
        "its orientations, each on a line of its own); on one line, type its compact line: "
        "31200247"
    )
    again = json.loads(cli("show", "floppy", "31200247", "--json", data=folder).out)
    assert {**again, "position": block} == json.loads(ran.out)
    line = one_line(cli("show", "floppy", "Scramble x " + " ".join(block.split()), data=folder), 1)
    assert line.endswith("type its compact line: 31200247")
    line = one_line(cli("show", "floppy", "CORNER 4 2 3 1 EDGE 1 2", data=folder), 1)
    assert line.endswith("each on a line of its own), or type a compact line (solved: 01230246)")


@pytest.mark.parametrize("name", ["hub.def", "plus.txt", "plus"])
def test_a_spec_file_of_another_extension_says_which_are_read(tmp_path: Path, name: str) -> None:
    """Neither .toml nor .tws: read as TOML, it failed with a TOML syntax error."""
    path = tmp_path / name
    shutil.copy(EXAMPLES / ("floppy.tws" if name.endswith(".def") else "plus.toml"), path)
    line = one_line(cli("build", "--spec", str(path), data=tmp_path / "data"), 1)
    assert line == (
        f"{path}: a spec file is read by its extension: .toml (a TOML spec) or .tws (a "
        "twsearch definition); ksolve's .def files are in twsearch's format: rename one to .tws"
    )
    assert not (tmp_path / "data").exists()
    shutil.copy(path, tmp_path / "hub.tws")
    if name.endswith(".def"):
        ran = cli("build", "--spec", str(tmp_path / "hub.tws"), data=tmp_path / "data")
        assert ran.code == 0 and "hub: 192 positions, max depth 8" in ran.err, ran


SQUARE = (EXAMPLES / "square16.toml").read_text()


@pytest.mark.parametrize(
    ("steps", "refused"),
    [("[[0, 2], [2, 0]]", 1), ("[[2, 0], [0, 2]]", 0), ("[[0, 2], [1, 0], [1, 4]]", 2)],
)
def test_each_peg_step_that_makes_no_jump_line_is_refused(
    tmp_path: Path, steps: str, refused: int
) -> None:
    """A step of two rows on a four-row picture joins no three holes; beside a step that
    does, it was taken silently. Each such step is refused, named by its index."""
    text = re.sub(r"^steps = .*$", f"steps = {steps}", SQUARE, flags=re.M)
    path = tmp_path / "sq.toml"
    path.write_text(text)
    line = one_line(cli("build", "--spec", str(path), data=tmp_path / "data"), 1)
    bad = re.findall(r"\[-?\d+, -?\d+\]", steps)[refused]
    r, c = (int(x) for x in re.findall(r"-?\d+", bad))
    assert line.startswith(
        f"{path}: pegs.steps[{refused}]: {bad} makes no jump line: no three holes of the "
        f"picture lie in a line {r} row(s) and {c} column(s) apart (a step goes"
    ), line
    assert line.endswith(f"(line {text.splitlines().index(f'steps = {steps}') + 1})")
    assert not (tmp_path / "data" / "specs").exists()


def _stopped(data: Path, name: str, spec: Path | None = None) -> Path:
    """A build of ``name`` stopped at depth 5: its levels left in staging, no table."""
    import pipeline

    db = pipeline.open(data)
    if spec is not None:
        db.add_spec(spec)

    def stop(_: str, level: object) -> None:
        if level.depth == 5:  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        db.build([name], on_level=stop)
    staged = data / ".staging" / name
    assert len(list(staged.glob("d00*.parquet"))) >= 5 and not (data / name).exists()
    return staged


def test_remove_clears_an_interrupted_builds_staging(tmp_path: Path) -> None:
    """`remove NAME` after an interrupted build said there was nothing to remove and left
    the levels in `.staging/NAME`: it removes them under the build lock (a link there is
    unlinked, never followed), for a table and for a spec's tables."""
    data = tmp_path / "data"
    staged = _stopped(data, "2x4")
    ran = cli("remove", "2x4", data=data)
    assert ran.code == 0 and ran.out == "removed .staging/2x4\n", ran
    assert not staged.exists() and sorted(p.name for p in (data / ".staging").iterdir()) == [
        "2x4.lock",
        "catalog.lock",
    ]
    line = one_line(cli("remove", "2x4", data=data), 1)
    assert line == f"2x4 is not built in {data}: nothing to remove"
    line = one_line(cli("remove", "catalog.lock", data=data), 1)
    assert line == f"catalog.lock is not built in {data}: nothing to remove"
    assert (data / ".staging" / "catalog.lock").is_file()
    _stopped(data, "plus", EXAMPLES / "plus.toml")
    ran = cli("remove", "plus", data=data)
    assert ran.code == 0 and ran.out == "removed .staging/plus, specs/plus.toml\n", ran
    assert not (data / ".staging" / "plus").exists() and not (data / "specs" / "plus.toml").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_text("mine")
    (data / ".staging" / "3x3").symlink_to(elsewhere)
    ran = cli("remove", "3x3", data=data)
    assert ran.code == 0 and ran.out == "removed .staging/3x3\n", ran
    assert (
        not os.path.lexists(data / ".staging" / "3x3")
        and (elsewhere / "keep").read_text() == "mine"
    )


def test_remove_waits_for_no_build_of_the_staged_name(tmp_path: Path) -> None:
    """A build that holds the lock keeps its staging: remove is refused in one line."""
    from pipeline.storage import staging

    data = tmp_path / "data"
    staged = _stopped(data, "2x4")
    with staging.build_lock(data, "2x4"):
        line = one_line(cli("remove", "2x4", data=data), 1)
    assert line.startswith("2x4 is being built by another process (pid ") and staged.is_dir()


def test_a_query_format_out_of_its_choices_is_exit_2_with_the_choices(folder: Path) -> None:
    """`--format xml` was exit 1 with no pointer to the choices; a value out of its range
    is a misused command (COMMANDS.md): exit 2, the choices named."""
    line = one_line(cli("query", "SELECT 1", "--format", "xml", data=folder), 2)
    assert line == (
        "Invalid value for '--format': 'xml' is not one of table, csv, json, parquet "
        "(see puzzledb query --help)"
    )
    ran = cli("query", "SELECT 1 AS one", "--format", "csv", data=folder)
    assert ran.code == 0 and ran.out == "one\n1\n", ran


def test_twisty_positions_read_as_typed_or_as_their_rows(folder: Path) -> None:
    """`distance --turns` printed compact codes (`2 moves from 2013451321 to ...`): the
    turns as typed where the positions were given so, the drawing's rows on one line
    elsewhere; the explorer's page title likewise."""
    ran = cli("distance", "floppy", "R", "F  L", "--turns", data=folder)
    assert ran.code == 0 and ran.out == (
        'floppy: 3 moves from "R" to "F L" (turns from solved; the depth in floppy of '
        "CORNER 4 1 2 3 / EDGE 1+1 2+1 3 4+1: the pieces renamed so that the other is its goal)\n"
    ), ran
    ran = cli("distance", "floppy", "31200247", "12031346", data=folder)
    assert ran.out.startswith(
        "floppy: 3 moves from CORNER 4 2 3 1 / EDGE 1 2 3 4+1 to CORNER 2 3 1 4 / EDGE 1+1 2+1 3 4"
    ), ran
    line = one_line(cli("show", "floppy", "R F", data=folder), 1)
    assert line.endswith("(turns from solved? give --turns)"), line
    from tests.test_serve import get, serving

    with serving(folder) as base:
        status, page = get(f"{base}/p/floppy?s=31200247")
    assert status == 200 and "<title>floppy: CORNER 4 2 3 1 / EDGE 1 2 3 4+1</title>" in page
    assert '<p class="pos">31200247</p>' in page


def test_a_peg_position_is_lost_in_jumps_and_its_line_from_the_start_is_shown(
    tmp_path: Path,
) -> None:
    """A lost peg position said "(18 moves)" where its depth counts jumps; no command drew
    the line from the start to it: `solve --from-start` walks the board's own table."""
    import pipeline

    data = tmp_path / "data"
    db = pipeline.open(data)
    db.build(["triangle15", "triangle15-winnable"])
    lost = db.query(
        "SELECT state, board('triangle15', state) AS b FROM triangle15 WHERE depth = 9 "
        "AND NOT winnable('triangle15', state) ORDER BY state LIMIT 1"
    ).row(0, named=True)
    line = one_line(cli("solve", "triangle15", lost["b"], data=data), 1)
    assert line == (
        f"{lost['b']} is lost: the start reaches it (9 jumps) but no line from it reaches "
        "the goal . . . . . . . . . . . . x . ."
    )
    ran = cli("solve", "triangle15", lost["b"], "--from-start", "--json", data=data)
    answer = json.loads(ran.out)
    assert ran.code == 0 and answer["origin"] == "start" and answer["moves"] == 9, ran
    line_ = answer["states"][::-1]  # the walk, position first: read from the start
    p = db.puzzle("triangle15")
    assert line_[0] == p.roots()[0] and line_[-1] == lost["state"] and len(line_) == 10
    assert all(b in {s for s, _ in p.moves_from(a)} for a, b in itertools.pairwise(line_))
    ran = cli("solve", "triangle15", lost["b"], "--from-start", "--oneline", data=data)
    head, notation, *boards = ran.out.splitlines()
    assert head.startswith("triangle15: 9 jumps from the start (") and len(boards) == 10
    assert boards[0] == "  0  x x x x x x x x x x x x . x x" and boards[-1].endswith(lost["b"])
    assert notation.startswith("line from the start, ") and notation.count("(") == int(
        head.split("(")[1].split()[0]
    )
    line = one_line(cli("solve", "2x3", "4 5 0 1 2 3", "--from-start", data=data), 1)
    assert line == (
        f"2x3 is enumerated from its goal, not from a start: `puzzledb solve 2x3 POSITION "
        f"--data {data}` gives its line"
    )
    line = one_line(cli("solve", "triangle15", "xxxx.xxxx.xxxxx", "--from-start", data=data), 1)
    assert line.endswith(
        "is not reachable from the start of triangle15 (x x x x x x x x x x x x . x x)"
    )
