"""What a newcomer tripped on in their first hour (issue #45), each held by a figure:
the exact line a user reads, the count or depth an answer gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from pipeline.engine.budget import size_of
from tests.conftest import distances_from, one_line_error, run_cli, told

GOAL = "1 2 3 4 5 6 7 8 0"


def in_folder(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI run from ``folder`` with no --data and no $PUZZLEDB_DATA (a fresh shell)."""
    env = {k: v for k, v in os.environ.items() if k != "PUZZLEDB_DATA"}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_peg_board_solve_builds_its_winnable_table(tmp_path: Path) -> None:
    """Item 3: after `build triangle15@3`, solve said `triangle15@3 is not built`; the
    winnable table is built on demand (--no-build names it instead)."""
    d = tmp_path / "data"
    assert run_cli("build", "triangle15@3", data=d).returncode == 0
    start = "xxx.xxxxxxxxxxx"
    r = run_cli("solve", "triangle15@3", start, "--no-build", data=d)
    one_line_error(r, "triangle15@3-winnable is not built: run `puzzledb build triangle15@3-w")
    r = run_cli("solve", "triangle15@3", start, "--oneline", data=d)
    assert r.returncode == 0, r.stderr
    assert "building triangle15@3-winnable first, once, from triangle15@3" in r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("triangle15@3: 13 jumps to the goal")
    assert lines[2] == "  0  " + " ".join(start) and len(lines) == 2 + 14  # then 14 boards
    db = pipeline.open(d)
    assert db.table_summary("triangle15@3-winnable").positions == 1_428  # as triangle15's


def test_another_folder_says_where_the_data_folder_is(tmp_path: Path) -> None:
    """Item 5: from another folder, the line names the folder in full and how to name
    another; a build there says it makes a new folder."""
    r = in_folder(tmp_path, "solve", "3x3", "8 6 7 2 5 4 3 0 1")
    one_line_error(
        r,
        f"data folder {tmp_path / 'data'} does not exist",
        "unless --data DIR or $PUZZLEDB_DATA names another",
    )
    r = in_folder(tmp_path, "build", "2x3")
    assert r.returncode == 0, r.stderr
    last = r.stderr.splitlines()[-1]
    assert last == f"a new data folder: {tmp_path / 'data'} " + (
        "(--data DIR or $PUZZLEDB_DATA builds elsewhere)"
    )
    assert pipeline.open(tmp_path / "data").table_summary("2x3").positions == 360


@pytest.mark.parametrize("command", ["solve", "show"])
def test_an_unquoted_position_is_told_to_quote_it(command: str, data: Path) -> None:
    """Item 6: click's "Got unexpected extra argument(s)" becomes one line to retype."""
    r = run_cli(
        command,
        "3x3",
        "--oneline" if command == "solve" else "--json",
        *["8", "6", "7", "2", "5", "4", "3", "0", "1"],
        data=data,
    )
    one_line_error(r, f'quote it, as in puzzledb {command} 3x3 "8 6 7 2 5 4 3 0 1"')


def test_turns_typed_as_a_position_point_to_turns(data: Path) -> None:
    """Item 7: the hint said --moves, which says to use --turns."""
    r = run_cli("solve", "pocket", "R U R' U'", data=data)
    one_line_error(r, "got 6 facelets", "(turns from solved? give --turns)")
    assert "--moves" not in r.stderr
    r = run_cli("solve", "pocket", "--turns", "R U R' U'", "--oneline", data=data)
    assert r.returncode == 0 and "line to the goal: U R U' R'" in r.stdout


@pytest.mark.parametrize("bad", ["10", "-1"])
def test_a_bad_tile_is_named_not_split_into_digits(bad: str, data: Path) -> None:
    """Item 8: "10 2 3 ..." read as ten digits ("expected 9 cells, got 10")."""
    r = run_cli("solve", "3x3", f"{bad} 2 3 4 5 6 7 8 0", data=data)
    one_line_error(r, f"{bad!r} is not a cell value here (allowed: 0 1 2 3 4 5 6 7 8)")
    r = run_cli("solve", "3x3", "123456780", "--oneline", data=data)  # run together: still fine
    assert r.stdout.splitlines()[1] == f"  0  {GOAL}"


def test_a_stopped_rebuild_is_not_left_in_silence(tmp_path: Path) -> None:
    """Item 9: after a stopped `--force` rebuild, a plain build said "up to date" and
    left the stopped levels on disk without a word."""
    d = tmp_path / "data"
    db = pipeline.open(d)
    db.build(["2x3"])

    def stop(name: str, level: object) -> None:
        if level.depth == 10:  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        db.build(["2x3"], force=True, on_level=stop)
    staging = d / ".staging" / "2x3"
    size = sum(f.stat().st_size for f in staging.rglob("*") if f.is_file())
    r = run_cli("build", "2x3", data=d)
    assert r.returncode == 0 and "up to date" in r.stderr, r.stderr
    assert (
        f"puzzledb: warning: a stopped rebuild of 2x3 left {size_of(size)} in {staging}: "
        f"`puzzledb build 2x3 --force --data {d}` resumes it"
    ) in r.stderr
    r = run_cli("build", "2x3", "--force", data=d)
    assert r.returncode == 0 and not staging.exists()
    assert db.table_summary("2x3").positions == 360


def test_a_partial_table_does_not_suggest_building_it_all(tmp_path: Path) -> None:
    """Item 10: `longest` on a partial 4x4 suggested the whole 10^13-position board;
    it now says what is there and what two more levels cost (61,865 when built)."""
    d = tmp_path / "data"
    assert run_cli("build", "4x4", "--max-depth", "12", data=d).returncode == 0
    r = run_cli("longest", "4x4", data=d)
    one_line_error(
        r,
        "depths 0..12: 15,500 positions of the whole board's 10,461,394,944,000",
        "its deepest level built, depth 12, holds 7,808",
        f"`puzzledb build 4x4 --max-depth 14 --data {d}` (about 62,000 positions)",
    )


def at_columns(columns: int, *args: str, data: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a terminal ``columns`` wide (COLUMNS), its output in a pipe."""
    env = dict(os.environ, COLUMNS=str(columns))
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args, "--data", str(data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_help_and_list_fit_80_columns(data: Path) -> None:
    """Item 11: `list` lines ran to 183 characters at COLUMNS=80, and `--help` cut each
    command's summary with "..."."""
    env = dict(os.environ, COLUMNS="80")
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "--help"], env=env, capture_output=True, text=True
    )
    commands = done.stdout.split("Commands:\n")[1].splitlines()
    assert len(commands) == 15 and not [x for x in commands if "..." in x or len(x) > 80]
    r = at_columns(80, "list", data=data)
    lines = r.stdout.splitlines()
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    assert "one position per class of its 8 symmetries" in " ".join(" ".join(lines).split())
    assert lines[1].split() == ["oshidori", "reversible", "yes", "140", "yes"]
    assert lines[2] == "    oshidori (pair-moving stones, 8 cells)"
    piped = run_cli("list", data=data).stdout.splitlines()  # a script's: one line a puzzle
    assert piped[1].split()[:5] == lines[1].split() and len(piped) < len(lines)


def test_longest_draws_the_boards(data: Path) -> None:
    """Item 11: `longest` on a peg board printed flat strings; now the boards, side by
    side (`--oneline` keeps the flat form)."""
    r = at_columns(80, "longest", "triangle15", data=data)
    assert r.stdout.splitlines() == [
        "triangle15: 5 positions at depth 13",
        "    x            .            .            .            .",
        "   . .          . .          . .          . .          . .",
        "  . . .        . x .        . . .        . . .        . . .",
        " . . . .      . . . .      x . . .      . . . x      . . . .",
        ". . . . .    . . . . .    . . . . .    . . . . .    . . x . .",
    ]
    r = run_cli("longest", "3x3", "--oneline", data=data)
    assert r.stdout.splitlines()[1:] == ["8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1"]


def test_no_time_left_from_a_builds_first_seconds() -> None:
    """Item 11: a 20 s pocket build's first line said "about 3 min 43 s left". Its level 8
    as measured here (1,159,968 positions in 3.13 s, the level 1.75 s for 227,536
    expanded) gives 26 s left for 2.6 s really left: the first 30 s say no time left."""
    from pipeline.build.loop import LevelDone
    from pipeline.cli import bars

    level = LevelDone(8, 870_072, 1_159_968, 3.13, 1, 1.75, expanded=227_536, **told("pocket"))
    early = bars.line("pocket", level)
    assert early.endswith("32% of 3,674,160") and "left" not in early
    later = bars.line(
        "pocket",
        LevelDone(8, 870_072, 1_159_968, 31.3, 1, 17.5, expanded=227_536, **told("pocket")),
    )
    assert later.endswith("about 4 min 20 s left")


def test_a_build_keeps_the_report_true(tmp_path: Path) -> None:
    """Item 12: data/report.html still said 13 tables after later builds."""
    d = tmp_path / "data"
    db = pipeline.open(d)
    db.build(["2x3"])
    report = db.report()
    assert "1 table" in report.read_text() and "oshidori" not in report.read_text()
    r = run_cli("build", "oshidori", data=d)
    assert r.returncode == 0, r.stderr
    text = report.read_text()
    assert "2 tables" in text and "oshidori" in text


# -- the three things looked for and not found -------------------------------------


def test_a_position_at_a_depth_from_the_command_line(data: Path, db: pipeline.Database) -> None:
    """`random NAME --depth N` (the explorer had it): drawn, with its depth and properties;
    every jump of triangle15 takes a peg, so depth 10 leaves 4 of its 14."""
    r = run_cli("random", "3x3", "--depth", "31", "--nth", "0", data=data)
    assert r.stdout.splitlines() == [
        "8 6 7",
        "2 5 4",
        "3 0 1",
        "blank cell 7, tiles out of place 7",
        "depth 31",
    ]
    for _ in range(3):
        r = run_cli("random", "triangle15", "--depth", "10", "--json", data=data)
        doc = json.loads(r.stdout)
        assert doc["depth"] == db.depth("triangle15", doc["position"]) == 10
        assert doc["properties"]["pegs"] == 4 == doc["position"].count("x")
    one_line_error(
        run_cli("random", "3x3", "--depth", "32", data=data),
        "3x3 has no positions at depth 32 (depths 0..31)",
    )


def test_a_positions_properties_without_sql(data: Path, db: pipeline.Database) -> None:
    """`show` (and the API, and the explorer's page) gives the pegs left, the blank's
    cell and the tiles out of place, and marks depth 0 of a goal as solved."""
    r = run_cli("show", "3x3", GOAL, data=data)
    assert r.stdout.splitlines()[3:] == ["solved, blank cell 8, tiles out of place 0", "depth 0"]
    assert db.properties("triangle15", "x x x x x x x x x x x x . x x") == {"depth": 0, "pegs": 14}
    assert db.properties("3x3", "8 6 7 2 5 4 3 0 1") == {
        "depth": 31,
        "solved": False,
        "blank cell": 7,
        "tiles out of place": 7,
    }


def neighbours_2x3(cells: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The positions one slide from ``cells`` on the 2x3 board (cells 0 1 2 / 3 4 5)."""
    blank = cells.index(0)
    out = []
    for other in range(6):
        if abs(other - blank) == 3 or (abs(other - blank) == 1 and other // 3 == blank // 3):
            moved = list(cells)
            moved[blank], moved[other] = moved[other], 0
            out.append(tuple(moved))
    return out


def bfs_2x3(start: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    return distances_from(start, neighbours_2x3)


def test_the_distance_between_any_two_positions_by_renaming_tiles(tmp_path: Path) -> None:
    """The distance between two positions, not only to the root: the tiles renamed so
    that one of them is the goal of `2x3@<its blank's cell>`; checked against our own
    search from each second position, for every first one of the 360."""
    d = tmp_path / "data"
    db = pipeline.open(d)
    db.build(["2x3", "2x3@1"])
    text = lambda c: " ".join(map(str, c))  # noqa: E731
    for b in [(4, 0, 5, 1, 2, 3), (5, 4, 3, 2, 1, 0), (3, 1, 2, 4, 5, 0)]:  # blank at 1, 5, 5
        want = bfs_2x3(b)
        assert len(want) == 360
        got = {a: db.distance("2x3", text(a), text(b)).moves for a in want}
        assert got == want
    r = run_cli("distance", "2x3", "4 0 5 1 2 3", "5 4 3 2 1 0", data=d)
    assert r.stdout == (
        "2x3: 12 moves from 4 0 5 1 2 3 to 5 4 3 2 1 0 (the depth in 2x3 of 2 0 1 5 4 3: "
        "the tiles renamed so that the other is its goal)\n"
    )
    assert bfs_2x3((5, 4, 3, 2, 1, 0))[(4, 0, 5, 1, 2, 3)] == 12
    r = run_cli("distance", "2x3", "1 2 0 4 5 3", "1 2 3 0 4 5", data=d)  # blanks at 2 and 3
    one_line_error(
        r, "is a depth in 2x3@3 (its tiles renamed", f"`puzzledb build 2x3@3 --data {d}`"
    )


@pytest.mark.parametrize("name", ["pocket", "pocket-qtm"])
def test_the_distance_between_two_cube_positions_by_renaming_corners(
    db: pipeline.Database, data: Path, name: str
) -> None:
    """Renamed corners, looked up in the table from solved. Checked without the renaming:
    the distance to b is 1 + the least distance to b's neighbours (which, with 0 from a
    to a, only the true distance satisfies), the same both ways, and at most the turns
    that lead from a to b."""
    import random

    from pipeline.puzzles.cube.board import apply

    p = db.puzzle(name)
    rng = random.Random(46)
    deepest = len(db.histogram(name)) - 1
    for _ in range(6):
        a, b = (db.state(name, db.at_depth(name, rng.randrange(deepest + 1))) for _ in "ab")
        moves = db.distance(name, a, b).moves
        near = [db.distance(name, a, apply(t, b)).moves for t in p.tables]
        assert moves == (0 if a == b else 1 + min(near))
        assert db.distance(name, b, a).moves == moves
        c = b
        for t in rng.choices(list(p.tables), k=3):  # three turns from b
            c = apply(t, c)
        assert abs(db.distance(name, a, c).moves - moves) <= 3
    r = run_cli("distance", name, p.text(a), p.text(a), data=data)
    assert r.stdout.startswith(f"{name}: 0 moves from ") and "the corners renamed" in r.stdout
    # Typed as turns from solved, as the parse error's hint says (R to F: R' then F).
    r = run_cli("distance", name, "R", "F", "--turns", "--json", data=data)
    assert json.loads(r.stdout)["moves"] == 2, r.stderr


def test_a_cube_distance_past_a_partial_table_or_without_one_is_one_line(tmp_path: Path) -> None:
    """The line names the positions typed (not the renamed one) and what to build."""
    d = tmp_path / "data"
    r = run_cli("distance", "pocket", "R U", "F", "--turns", data=d)  # nothing built
    one_line_error(r, "is a depth in pocket (its corners renamed", "`puzzledb build pocket --data")
    assert run_cli("build", "pocket", "--max-depth", "3", data=d).returncode == 0
    r = run_cli("distance", "pocket", "R U", "F", "--turns", data=d)
    assert r.returncode == 0 and r.stdout.startswith("pocket: 3 moves from "), r.stderr
    r = run_cli("distance", "pocket", "R U F R", "F", "--turns", data=d)
    one_line_error(r, "are more than 3 moves apart", "--max-depth 13")
    assert "RFU LFD UFL RDF UBR RBD LBU and LUF LFD ULB UBR RFU RDF DRB" in r.stderr


def test_a_distance_between_positions_no_move_joins_is_one_line(tmp_path: Path) -> None:
    """plus (a spec): the second position is outside the goal's 480; renamed, the first is
    not in plus@7 built whole, so the line says no sequence joins the two typed."""
    d = tmp_path / "data"
    assert (
        run_cli(
            "build",
            "--spec",
            str(Path(__file__).parent.parent / "examples" / "specs" / "plus.toml"),
            data=d,
        ).returncode
        == 0
    )
    assert run_cli("build", "plus@7", data=d).returncode == 0
    r = run_cli("distance", "plus", "2 1 3 4 5 0 7 6", "1 2 3 4 5 6 7 0", data=d)
    one_line_error(r, "no sequence of moves leads from 2 1 3 4 5 0 7 6 to 1 2 3 4 5 6 7 0")
    r = run_cli("distance", "plus", "2 1 3 4 5 0 7 6", "1 2 3 0 4 5 6 7", data=d)
    assert r.stdout.startswith("plus: 22 moves from "), r.stderr


@pytest.mark.parametrize(
    ("name", "a", "b", "why"),
    [
        (
            "triangle15",
            "x x x x x x x x x x x x . x x",
            "x x x x x x x x x x . x . . x",
            "cannot be undone",
        ),
        ("hanoi8", "A C C C C C C C", "B A C C C C C C", "not interchangeable labels"),
    ],
)
def test_a_distance_no_table_answers_is_one_line(
    name: str, a: str, b: str, why: str, tmp_path: Path
) -> None:
    d = tmp_path / "data"
    pipeline.open(d).build([name])
    one_line_error(run_cli("distance", name, a, b, data=d), f"{name}: no table answers", why)
