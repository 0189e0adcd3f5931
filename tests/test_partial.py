"""`build --max-depth N`: tables of the first levels only (partial tables).

The 15 puzzle to depth 20 end to end (its counts are the published ones), and
on the 8 puzzle how a partial table is answered, continued and checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pipeline
from pipeline.engine import reference
from pipeline.errors import CorruptTable, TooBig
from pipeline.puzzles.registry import get
from pipeline.storage import manifest as manifests
from tests.conftest import run_cli
from tests.test_tiles60 import COUNTS_15


@pytest.fixture(scope="module")
def fifteen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``puzzledb build 4x4 --max-depth 20`` into a fresh folder (3.4M rows, a few seconds)."""
    data = tmp_path_factory.mktemp("fifteen")
    r = run_cli("build", "4x4", "--max-depth", "20", data=data)
    assert r.returncode == 0, r.stderr  # no --yes asked: 20 levels fit
    assert "partial: depths 0..20" in r.stderr
    return data


def test_4x4_to_depth_20_has_the_published_counts(fifteen: Path) -> None:
    m = manifests.read(fifteen / "4x4")
    assert [n for _, n in m.histogram()] == COUNTS_15
    assert (m.partial_depth, m.max_depth, m.total) == (20, 20, 3_418_020)
    db = pipeline.open(fifteen)
    got = db.query("SELECT depth, count(*) AS n FROM '4x4' GROUP BY depth ORDER BY depth")
    assert got["n"].to_list() == COUNTS_15  # the rows themselves, counted by DuckDB
    assert db.summary().rows() == [("4x4", 3_418_020, 20, 1_637_383, 20)]


def test_4x4_partial_answers_and_refuses(fifteen: Path) -> None:
    listed = {d["name"]: d for d in json.loads(run_cli("list", "--json", data=fifteen).stdout)}
    assert listed["4x4"]["partial_depth"] == 20 and listed["4x4"]["positions"] == 3_418_020
    shallow = "1 2 3 4 5 6 7 8 9 0 11 12 13 10 14 15"
    r = run_cli("solve", "4x4", "--method", "table", "--json", shallow, data=fifteen)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["moves"] == 3  # 10 up, 14 left, 15 left
    deep = "0 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1"
    r = run_cli("solve", "4x4", "--method", "table", deep, data=fifteen)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert "not within the first 20 levels" in r.stderr
    r = run_cli("longest", "4x4", data=fifteen)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "first levels only" in r.stderr


def test_4x4_partial_verifies_its_levels(fifteen: Path) -> None:
    report = pipeline.open(fifteen).verify("4x4")
    assert report.ok, report.problems
    assert report.positions == 3_418_020 and report.levels == 21
    assert any("but from depth 20, the last built" in c for c in report.checks)
    assert any("total not checked" in c for c in report.checks)


def test_a_partial_table_is_rebuilt_further_and_then_whole(tmp_path: Path) -> None:
    p = get("3x3")
    want = [len(lv) for lv in reference.search(p.roots(), p.expand, p.graph)]
    db = pipeline.open(tmp_path)
    (m,) = db.build(["3x3"], max_depth=10)
    assert [n for _, n in m.histogram()] == want[:11] and m.partial_depth == 10
    (m,) = db.build(["3x3"], max_depth=5)  # already holds more: nothing to do
    assert m.up_to_date and m.partial_depth == 10
    (m,) = db.build(["3x3"], max_depth=20)
    assert not m.up_to_date and [n for _, n in m.histogram()] == want[:21]
    (m,) = db.build(["3x3"])
    assert m.partial_depth is None and m.total == 181_440 and len(m.histogram()) == 32
    assert "partial_depth" not in json.loads((tmp_path / "3x3" / "_manifest.json").read_text())
    assert db.verify("3x3").ok
    (m,) = db.build(["3x3"], max_depth=3)  # a whole table answers any depth
    assert m.up_to_date and m.partial_depth is None
    (m,) = db.build(["3x3"], max_depth=40, force=True)  # past the end: complete
    assert m.partial_depth is None and m.total == 181_440
    (m,) = db.build(["3x3"], max_depth=31, force=True)  # to the end: every position there
    assert m.partial_depth is None and m.max_depth == 31


def test_a_partial_depth_that_is_not_the_last_level_is_a_corrupt_manifest(tmp_path: Path) -> None:
    pipeline.open(tmp_path).build(["2x3"], max_depth=4)
    path = tmp_path / "2x3" / "_manifest.json"
    doc = json.loads(path.read_text())
    assert doc["partial_depth"] == 4
    for bad in (3, -1, "4"):
        path.write_text(json.dumps({**doc, "partial_depth": bad}))
        with pytest.raises(CorruptTable, match="partial_depth"):
            manifests.read(tmp_path / "2x3")


def test_a_max_depth_too_deep_for_the_machine_still_asks_for_yes(tmp_path: Path) -> None:
    # Depth 40 of the 15 puzzle: the levels keep growing about 1.9 times a level.
    with pytest.raises(TooBig, match="--yes"):
        pipeline.open(tmp_path).build(["4x4"], max_depth=40)
