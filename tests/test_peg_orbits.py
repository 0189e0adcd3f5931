"""Orbit sums of the symmetric peg tables (issue #35): the positions of the whole board
that each level's classes stand for, recorded by the build, shown by histogram,
checked by verify, and equal to an independent count of the whole board
(tools/peg_count.py: its own geometry, no engine, no symmetry). A few seconds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import pipeline
from pipeline.build.loop import LevelDone
from pipeline.cli.bars import line
from pipeline.puzzles.pegs import board as pegs
from pipeline.puzzles.pegs.moves import grid_cells
from tests.conftest import one_line_error, run_cli, told
from tools import peg_count

#: Levels built here: 0..DEPTH (diamond41-sym to 9 takes about a second).
DEPTH = 9
#: Classes of diamond41-sym at depths 0..9 (this build; orbit sums checked below).
DIAMOND_CLASSES = [1, 1, 4, 17, 84, 426, 2073, 9410, 40023, 156339]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Database:
    db = pipeline.open(tmp_path_factory.mktemp("orbits"))
    db.build(["diamond41-sym", "english33-sym"], max_depth=DEPTH)
    db.build(["triangle15"])
    return db


def orbits(db: pipeline.Database, name: str) -> list[int]:
    return db.histogram(name)["orbit_positions"].to_list()


def test_the_diamond_lies_on_41_bits() -> None:
    # 9 rows of 9 columns do not fit 64 bits row by row: a linear map packs them.
    cells = grid_cells(pegs.DIAMOND41.holes)
    assert cells is not None and sorted(cells) == list(range(41))
    # The English and French boards keep their rows of 7 (as before).
    for board in (pegs.ENGLISH33, pegs.FRENCH37):
        cells = grid_cells(board.holes)
        assert cells is not None and cells[:3] == [2, 3, 4] and max(cells) == 46


def test_diamond_orbit_sums_match_an_independent_count(built: pipeline.Database) -> None:
    m = built.table("diamond41-sym").manifest
    assert [lv.positions for lv in m.levels] == DIAMOND_CLASSES
    assert orbits(built, "diamond41-sym") == peg_count.count("diamond41", DEPTH)
    assert orbits(built, "diamond41-sym")[-1] == 1_248_030
    report = built.verify("diamond41-sym")
    assert report.ok, report.problems
    assert "every level's orbit_positions the sum of its class sizes" in report.checks


def test_english_orbit_sums_match_an_independent_count(built: pipeline.Database) -> None:
    full = peg_count.count("english33", DEPTH)
    assert full[:9] == [1, 4, 12, 60, 296, 1338, 5648, 21842, 77559]  # the full tests' figures
    assert orbits(built, "english33-sym") == full
    assert built.histogram("english33-sym")["positions"].to_list() == [
        *(1, 1, 2, 8, 39, 171, 719, 2757, 9751, 31312)
    ]


def test_histogram_shows_classes_and_positions(built: pipeline.Database) -> None:
    out = run_cli("histogram", "diamond41-sym", "--json", data=built.data)
    rows = json.loads(out.stdout)["histogram"]
    assert rows[3] == {"depth": 3, "positions": 17, "orbit_positions": 120}
    text = run_cli("histogram", "diamond41-sym", data=built.data).stdout.splitlines()
    assert text[0].split() == ["depth", "classes", "positions"]
    assert text[-1].split() == ["total", "208,378", "1,662,230"]
    # A table of positions keeps its two columns.
    plain = json.loads(run_cli("histogram", "triangle15", "--json", data=built.data).stdout)
    assert plain["histogram"][1] == {"depth": 1, "positions": 4}


def _copy(built: pipeline.Database, tmp_path: Path, change) -> pipeline.Database:
    """A copy of diamond41-sym with its manifest's levels changed by ``change``."""
    shutil.copytree(built.data / "diamond41-sym", tmp_path / "diamond41-sym")
    path = tmp_path / "diamond41-sym" / "_manifest.json"
    doc = json.loads(path.read_text())
    for lv in doc["levels"]:
        change(lv)
    path.write_text(json.dumps(doc))
    return pipeline.open(tmp_path)


def test_a_table_built_before_gets_its_sums_from_class_size(
    built: pipeline.Database, tmp_path: Path
) -> None:
    old = _copy(built, tmp_path, lambda lv: lv.pop("orbit_positions"))
    assert old.table("diamond41-sym").manifest.orbit_sums() is None
    assert orbits(old, "diamond41-sym") == orbits(built, "diamond41-sym")
    assert old.verify("diamond41-sym").ok


def test_orbit_sums_are_checked(built: pipeline.Database, tmp_path: Path) -> None:
    def off_by_one(lv: dict) -> None:
        lv["orbit_positions"] += lv["depth"] == 5

    wrong = _copy(built, tmp_path / "a", off_by_one)
    report = wrong.verify("diamond41-sym")
    assert not report.ok and any(
        "orbit_positions at depth 5 is 3,339" in p for p in report.problems
    )

    def too_many(lv: dict) -> None:
        lv["orbit_positions"] = lv["positions"] * 9  # more than 8 symmetries allow

    bad = _copy(built, tmp_path / "b", too_many)
    one_line_error(run_cli("histogram", "diamond41-sym", data=bad.data), "orbit_positions")


def test_the_diamond_progress_counts_against_an_estimate() -> None:
    # Its classes are not known before the build: the time left says "about".
    done = LevelDone(20, 10**8, 787_946_586, 300.0, **told("diamond41-sym"))
    text = line("diamond41-sym", done)
    assert "25% of about 3,151,786,344, about 15 min 0 s left" in text
    known = line(
        "english33-sym", LevelDone(16, 10**6, 5_000_000, 40.0, **told("english33-sym"))
    )  # 30 s in
    assert "21% of 23,475,688, about" in known and "of about" not in known
