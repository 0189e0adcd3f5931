"""`puzzledb query` prints the DuckDB CLI's box layout, cut to the terminal's width."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli import table_text
from tests.conftest import run_cli


def query(data: Path, sql: str, columns: int, *more: str) -> subprocess.CompletedProcess[str]:
    """``puzzledb query`` in a real process, with COLUMNS set as a terminal would."""
    env = dict(os.environ, COLUMNS=str(columns))
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "query", sql, "--data", str(data), *more],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("table_text")
    r = run_cli("build", "2x3", data=data)
    assert r.returncode == 0, r.stderr
    return data


def test_a_small_result_is_a_box_with_numbers_right_and_null_said(small: Path) -> None:
    sql = (
        "SELECT depth, positions, CASE WHEN depth = 0 THEN NULL ELSE 'x' END AS note "
        "FROM levels WHERE puzzle = '2x3' AND depth IN (0, 1, 21) ORDER BY depth"
    )
    r = query(small, sql, 80)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "┌───────┬───────────┬──────┐\n"
        "│ depth │ positions │ note │\n"
        "├───────┼───────────┼──────┤\n"
        "│     0 │         1 │ NULL │\n"
        "│     1 │         2 │ x    │\n"
        "│    21 │         1 │ x    │\n"
        "└───────┴───────────┴──────┘\n"
    )


def test_puzzles_fits_in_100_columns_with_long_cells_cut(small: Path) -> None:
    wide = query(small, "SELECT * FROM puzzles", 400)
    assert "2x3 sliding puzzle (5 tiles)" in wide.stdout  # whole when there is room
    r = query(small, "SELECT * FROM puzzles", 100)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(map(len, lines)) <= 100 and "…" in r.stdout
    assert "shape:" not in r.stdout and "┆" not in r.stdout and "str" not in lines[1]
    assert lines[3].startswith("│ 2x3 ") and " 360 │" in lines[3]  # name and count whole
    assert r.stdout.rstrip().endswith("(13 columns, 8 shown: widen the terminal or COLUMNS)")
    csv = query(small, "SELECT name, title FROM puzzles", 30, "--format", "csv")
    assert csv.stdout == "name,title\n2x3,2x3 sliding puzzle (5 tiles)\n"  # not cut


def test_columns_past_the_width_are_left_out_behind_an_ellipsis() -> None:
    text = table_text.render(
        ["a", "b", "c"], [["1"], ["long text"], ["3"]], [True, False, True], 17
    )
    assert text.splitlines() == [
        "┌───┬───┐",
        "│ a │ … │",
        "├───┼───┤",
        "│ 1 │ … │",
        "└───┴───┘",
        "(3 columns, 1 shown: widen the terminal or COLUMNS)",
    ]
