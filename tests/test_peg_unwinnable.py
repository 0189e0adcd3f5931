"""A peg start that cannot be won: the winnable table holds the goal alone, and the
build says so in one warning line with the reason (docs/SPECS.md: warned, not refused)."""

from __future__ import annotations

from pathlib import Path

import pipeline
from tests.conftest import run_cli

SPEC = """
name = "{name}"
title = "holes in a row"
[pegs]
picture = "{picture}"
steps = [[0, 2]]
start = {start}
"""


def spec(folder: Path, name: str, holes: int, start: int) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(SPEC.format(name=name, picture=" ".join("o" * holes), start=start))
    return path


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("puzzledb: warning:")]


def test_a_spec_whose_start_cannot_be_won_is_built_with_a_warning(tmp_path: Path) -> None:
    """. x x x: the only jump, 2 over 1 into 0, leaves x . . x, stuck."""
    r = run_cli("build", "--spec", str(spec(tmp_path, "line4", 4, 0)), data=tmp_path)
    assert r.returncode == 0, r.stderr
    assert warnings(r.stderr) == [
        "puzzledb: warning: line4-winnable holds only the goal (x . . .): the start of line4 "
        "cannot be won (every line of jumps from it leaves at least 2 pegs); line4 holds "
        "every position the start reaches"
    ]
    db = pipeline.open(tmp_path)
    assert db.histogram("line4").rows() == [(0, 1), (1, 1)]
    assert db.histogram("line4-winnable").rows() == [(0, 1)]
    again = run_cli("build", "line4-winnable", data=tmp_path)  # up to date: said once
    assert again.returncode == 0 and warnings(again.stderr) == []


def test_a_start_won_only_in_another_hole(tmp_path: Path) -> None:
    """triangle15 from hole 4 empty ends with one peg, but never in hole 4."""
    r = run_cli("build", "triangle15@4-winnable", data=tmp_path)
    assert r.returncode == 0, r.stderr
    (line,) = warnings(r.stderr)
    assert "triangle15@4-winnable holds only the goal (. . . . x . . . . . . . . . .)" in line
    assert "(its lines of jumps leave one peg only in other holes than 4)" in line
    db = pipeline.open(tmp_path)
    assert db.table("triangle15@4").max_depth == 13  # 14 pegs down to 1
    assert db.histogram("triangle15@4-winnable").rows() == [(0, 1)]


def test_a_start_that_can_be_won_builds_without_a_word(tmp_path: Path) -> None:
    """x . x x x x: 3 over 2 into 1, 5 over 4 into 3, 0 over 1 into 2, 3 over 2 into 1."""
    r = run_cli("build", "--spec", str(spec(tmp_path, "line6", 6, 1)), data=tmp_path)
    assert r.returncode == 0 and warnings(r.stderr) == [], r.stderr
    winnable = pipeline.open(tmp_path).histogram("line6-winnable").rows()
    assert winnable[-1] == (4, 1) and sum(n for _, n in winnable) == 6  # the start, 4 jumps
