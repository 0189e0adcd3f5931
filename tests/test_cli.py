"""The command line as a user runs it: real subprocesses, real exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from tests.conftest import run_cli

run = run_cli


def test_solve_json(data: Path) -> None:
    r = run("solve", "3x3", "8 6 7 2 5 4 3 0 1", "--json", data=data)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["puzzle"] == "3x3" and doc["moves"] == 31 and len(doc["path"]) == 32
    assert doc["path"][-1] == "1 2 3 4 5 6 7 8 0" and doc["origin"] == "goal"


def test_solve_text_says_what_the_path_means(data: Path) -> None:
    r = run("solve", "oshidori", "W W W B B B . .", "--oneline", data=data)
    assert r.returncode == 0
    assert r.stdout.startswith("oshidori: 4 moves from the start")
    # printed as the line reads: from the start to the position
    assert r.stdout.splitlines()[1].endswith("B W B W B W . .")
    assert r.stdout.rstrip().endswith("W W W B B B . .")


def test_show_draws_the_hex_board(data: Path) -> None:
    r = run("show", "hex6", "4 6 5 1 3 2 0", data=data)
    assert r.returncode == 0
    assert r.stdout == "  4   6\n5   1   3\n  2   0\nblank cell 6, tiles out of place 6\ndepth 15\n"


def test_histogram_and_longest_json(data: Path) -> None:
    h = json.loads(run("histogram", "hex6", "--json", data=data).stdout)
    assert h["histogram"][-1] == {"depth": 15, "positions": 24}
    lg = json.loads(run("longest", "2x4", "--json", data=data).stdout)
    assert lg == {"puzzle": "2x4", "depth": 36, "positions": ["0 7 2 1 4 3 6 5"]}


def test_query_reads_sql_text_and_files(data: Path) -> None:
    r = run("query", "SELECT count(*) AS n FROM hex6", "--json", data=data)
    assert json.loads(r.stdout) == [{"n": 5040}]
    r = run("query", str(Path(__file__).parent.parent / "queries" / "summary.sql"), data=data)
    assert r.returncode == 0 and "1814400" in r.stdout


def test_verify_command(data: Path) -> None:
    r = run("verify", "hex6", "2x4", data=data)
    assert r.returncode == 0
    assert "hex6: ok (5,040 positions, 16 levels)" in r.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "nope", "1 2"], "unknown puzzle 'nope'"),
        (["solve", "3x3", "1 2 3"], "expected 9 cells, got 3"),
        (["solve", "3x3", "1 2 3 4 5 6 7 8 8"], "repeated 8, missing 0"),
        (["solve", "3x3", "1 2 3 4 5 6 x 8 0"], "'x' is not a cell value"),
        (["solve", "3x3", "2 1 3 4 5 6 7 8 0"], "wrong parity"),
        (["solve", "oshidori", "B . B W W . B W"], "next to each other"),
        (["solve", "3x4", "1 2 3 4 5 6 7 8 9 10 11 0"], "run `puzzledb build 3x4 --data "),
        (["query", "SELECT * FROM nothing"], "nothing"),
        (["histogram", "4x4"], "4x4 is not built, nor can it be here"),
    ],
)
def test_bad_input_is_one_line_and_non_zero(data: Path, args: list[str], message: str) -> None:
    r = run(*args, data=data)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_build_and_catalog_with_the_duckdb_cli(tmp_path: Path) -> None:
    r = run("build", "2x3", "hex6", data=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "puzzles.duckdb").exists()
    duck = Path(sys.executable).parent / "duckdb"
    if not duck.exists():
        pytest.skip("no DuckDB CLI in this environment (it comes with the dev extras)")
    # The views name a data folder outside the working directory by its
    # absolute path, so the CLI can open the catalog from anywhere.
    query = "SELECT max(step) FROM path('hex6', state_of('hex6', '1 5 2 6 3 4 0'))"
    out = subprocess.run(
        [str(duck), "-csv", "-noheader", str(tmp_path / "puzzles.duckdb"), "-c", query],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "11"


def test_build_picks_its_executor_by_executor_or_the_old_engine(tmp_path: Path) -> None:
    r = run("build", "2x3", "--executor", "local", data=tmp_path)
    assert r.returncode == 0 and "2x3: 360 positions" in r.stderr, r.stderr
    r = run("build", "2x3", "--engine", "local", data=tmp_path)  # the old name, still taken
    assert r.returncode == 0 and "up to date" in r.stderr, r.stderr
    assert "--engine" not in run("build", "--help").stdout  # not shown: one name for one thing
    r = run("build", "2x3", "--executor", "spark", "--engine", "local", data=tmp_path)
    assert r.returncode == 2 and "give one of them" in r.stderr, r.stderr
    db = pipeline.open(tmp_path)  # the API takes both names too
    assert db.build(["2x3"], executor="local")[0].up_to_date
    assert db.build(["2x3"], engine="local")[0].up_to_date


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ("random", "3x3", "--depth", "-1"),
            "puzzledb: Invalid value for '--depth': Input should be greater than or equal "
            "to 0 (see puzzledb random --help)",
        ),
        (("histogram",), "puzzledb: Missing argument 'puzzle' (see puzzledb histogram --help)"),
        (("histogram", "3x3", "--bogus"), "puzzledb: No such option: --bogus (see "),
        (("nope",), "puzzledb: No such command 'nope' (see puzzledb --help)"),
    ],
)
def test_a_usage_error_is_one_line_naming_the_help(
    tmp_path: Path, args: tuple[str, ...], line: str
) -> None:
    """Click prints four lines of usage for these; the house's one line says where it is."""
    r = run(*args, data=tmp_path)
    err = r.stderr.replace("python -m pipeline.cli", "puzzledb")  # the name it was run by
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert len(err.splitlines()) == 1 and err.startswith(line), err


def test_no_command_still_prints_the_help() -> None:
    r = run_cli()
    assert r.returncode == 2 and r.stderr.startswith("Usage: "), r.stderr
    assert "histogram" in r.stderr
