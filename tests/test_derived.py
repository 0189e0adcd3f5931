"""Derived tables (pattern databases, made for a solver) kept out of the way: `list`
shows them only with --all, the catalog's views mark them, the report puts them last.

One small folder built by the CLI (a few seconds): 2x3, two small pattern
databases, and triangle15 with its winnable table (a table people query: not derived).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from pipeline.storage.format import MANIFEST
from tests.conftest import run_cli

BUILT = ["2x3", "2x3-pdb-5", "2x4-pdb-3", "triangle15", "triangle15-winnable"]
#: Pattern databases the registry knows: 3 for 4x4, 2 each for 3x4, 2x6, 2x5, 3x3, 2x4, 1 for 2x3,
#: and the 3x3x3 cube's 5 pattern tables.
PATTERN_DATABASES = 21


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("derived")
    r = run_cli("build", *BUILT, data=data)
    assert r.returncode == 0, r.stderr
    return data


def test_list_leaves_derived_tables_out_and_says_so(folder: Path) -> None:
    r = run_cli("list", data=folder)
    assert r.returncode == 0, r.stderr
    *rows, last = r.stdout.splitlines()
    names = [row.split()[0] for row in rows[1:]]
    assert not [n for n in names if "-pdb-" in n]
    assert "triangle15-winnable" in names and "2x3" in names
    assert last == (
        f"{PATTERN_DATABASES} derived tables not shown (pattern databases for solve --method "
        f"optimal, 2 built): `puzzledb list --all --data {folder}`"
    )
    shown = run_cli("list", "--all", data=folder).stdout.splitlines()
    by_name = {row.split()[0]: row.split() for row in shown[1:]}
    assert len(by_name) == len(rows) - 1 + PATTERN_DATABASES
    assert by_name["2x3-pdb-5"][1:4] == ["general", "yes", "360"]
    assert by_name["2x4-pdb-3"][1:4] == ["general", "yes", "1,680"]
    assert by_name["3x3-pdb-4a"][1:3] == ["general", "no"]


def test_list_json_follows_all(folder: Path) -> None:
    plain = json.loads(run_cli("list", "--json", data=folder).stdout)
    every = json.loads(run_cli("list", "--all", "--json", data=folder).stdout)
    assert len(every) - len(plain) == PATTERN_DATABASES
    assert not [r for r in plain if r["derived"]]
    built = {r["name"]: r["positions"] for r in every if r["derived"] and r["built"]}
    assert built == {"2x3-pdb-5": 360, "2x4-pdb-3": 1680}
    winnable = next(r for r in plain if r["name"] == "triangle15-winnable")
    assert winnable["derived"] is False and winnable["positions"] == 1428


def test_catalog_views_keep_every_table_and_mark_derived(folder: Path) -> None:
    con = duckdb.connect(str(folder / "puzzles.duckdb"), read_only=True)
    try:
        rows = con.execute("SELECT puzzle, positions, derived FROM summary").fetchall()
        kinds = con.execute("SELECT column_name, column_type FROM (DESCRIBE summary)").fetchall()
        flags = con.execute("SELECT name, derived FROM puzzles ORDER BY name").fetchall()
    finally:
        con.close()
    assert rows == [
        ("2x3", 360, False),
        ("2x3-pdb-5", 360, True),
        ("2x4-pdb-3", 1680, True),
        ("triangle15", 4237, False),
        ("triangle15-winnable", 1428, False),
    ]
    assert [c for c, _ in kinds] == [
        "puzzle", "positions", "max_depth", "max_depth_positions", "partial_depth", "derived",
    ]  # fmt: skip
    assert kinds[-1] == ("derived", "BOOLEAN")
    assert flags == [(name, "-pdb-" in name) for name in sorted(BUILT)]


def test_report_puts_derived_tables_last(folder: Path, tmp_path: Path) -> None:
    r = run_cli("report", "--out", str(tmp_path), data=folder)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "report.html").read_text()
    assert "<h1>puzzledb: 3 tables and 2 derived</h1>" in page
    tables = re.findall(r'<section class="table" id="[^"]*" data-table="([^"]*)"', page)
    assert tables == ["2x3", "triangle15", "triangle15-winnable"]
    summary = re.search(r'<section id="summary">.*?</section>', page, re.S).group(0)
    assert "-pdb-" not in summary
    assert page.index('id="solutions"') < page.index('<section id="derived">')
    derived = page[page.index('<section id="derived">') :]
    found = re.findall(r'<section class="derived-table" id="[^"]*" data-table="([^"]*)"', derived)
    assert found == ["2x3-pdb-5", "2x4-pdb-3"]
    assert '<tr data-table="2x4-pdb-3"><td><a href="#t-2x4-pdb-3">2x4-pdb-3</a></td>' in derived
    for name in found:
        section = re.search(rf'id="t-{name}".*?</section>', derived, re.S).group(0)
        bars = re.findall(r'data-depth="(\d+)" data-count="(\d+)"', section)
        levels = json.loads((folder / name / MANIFEST).read_text())["levels"]
        assert [(int(d), int(n)) for d, n in bars] == [
            (lv["depth"], lv["positions"]) for lv in levels
        ]
        assert 'class="board"' not in section  # numbers and a histogram, no boards
