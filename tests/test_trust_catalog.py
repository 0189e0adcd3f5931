"""The catalog is made from the registry's puzzles, never from text of a data folder.

Issue #32, items 2, 5 (the manifest's puzzle), 6 (names) and 7 (malformed
jumps, catalog writes at once): each repro through the real CLI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

import pipeline
from pipeline.errors import BadSpec
from tests.conftest import one_line_error, run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "specs"
LONGEST_3X3 = ["6 4 7 8 5 0 3 2 1", "8 6 7 2 5 4 3 0 1"]


@pytest.fixture
def copy(copy_of: Callable[..., Path]) -> Path:
    """A data folder with copies of 2x3, 3x3 and triangle15 (and its winnable table)."""
    return copy_of("2x3", "3x3", "triangle15", "triangle15-winnable")


def _edit(folder: Path, table: str, **puzzle: Any) -> None:
    path = folder / table / "_manifest.json"
    m = json.loads(path.read_text())
    m["puzzle"].update(puzzle)
    path.write_text(json.dumps(m))


def _renamed(folder: Path, source: str, name: str) -> dict[str, Any]:
    """A copy of table ``source`` under ``name`` (its manifest renamed too)."""
    shutil.copytree(folder / source, folder / name)
    path = folder / name / "_manifest.json"
    m = json.loads(path.read_text())
    m["table"] = m["puzzle"]["name"] = name
    path.write_text(json.dumps(m))
    return m


# -- item 2: SQL in a manifest never runs -------------------------------------------------
def test_a_layout_with_sql_writes_nothing_outside(copy: Path, tmp_path: Path) -> None:
    pwned = tmp_path / "pwned.txt"
    layout = (
        "{0)) & 15) + 1], 1, ' ')) ELSE NULL END; "
        f"COPY (SELECT 'x' AS x) TO '{pwned}'; SELECT 1 --}} {{1}} {{2}} {{3}} {{4}} {{5}}"
    )
    _renamed(copy, "2x3", "zz")
    _edit(copy, "zz", layout=layout)
    r = run_cli("query", "SELECT 41 + 1 AS n", "--format", "csv", data=copy)
    assert not pwned.exists()
    assert r.returncode == 0 and r.stdout.splitlines() == ["n", "42"], r.stderr
    assert "warning: zz left out of the catalog" in r.stderr
    r = run_cli("longest", "3x3", "--json", data=copy)
    assert r.returncode == 0 and sorted(json.loads(r.stdout)["positions"]) == LONGEST_3X3
    assert run_cli("catalog", data=copy).returncode == 0
    one_line_error(run_cli("longest", "zz", data=copy), "unknown puzzle 'zz'")
    assert not pwned.exists()


def test_a_symmetry_with_sql_writes_nothing_outside(copy: Path, tmp_path: Path) -> None:
    pwned = tmp_path / "pwned.txt"
    evil = f"0)) ELSE NULL END; COPY (SELECT 'x' AS x) TO '{pwned}'; SELECT CASE 1 WHEN 1 THEN ((1"
    _edit(copy, "2x3", symmetries=[[evil, 1, 2, 3, 4, 5]])
    r = run_cli("query", "SELECT puzzle FROM summary", "--format", "csv", data=copy)
    assert not pwned.exists()
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["puzzle", "3x3", "triangle15", "triangle15-winnable"]
    assert "2x3 left out of the catalog: " in r.stderr and "puzzle.symmetries" in r.stderr
    assert run_cli("catalog", data=copy).returncode == 0
    assert not pwned.exists()


def test_a_title_goes_in_as_a_value(copy: Path) -> None:
    title = "x'); DROP TABLE levels; CREATE TABLE owned AS SELECT 1; --"
    _edit(copy, "2x3", title=title)
    r = run_cli("query", "SELECT title FROM puzzles WHERE name = '2x3'", "--json", data=copy)
    assert r.returncode == 0 and json.loads(r.stdout) == [{"title": title}], r.stderr
    r = run_cli("query", "SELECT count(*) AS n FROM levels", "--format", "csv", data=copy)
    assert r.stdout.splitlines() == ["n", str(22 + 32 + 14 + 14)]


# -- item 5: the manifest's puzzle must be the registry's -----------------------------------
def test_swapped_symbols_are_refused(copy: Path) -> None:
    symbols = [str(i) for i in range(9)]
    symbols[1], symbols[2] = symbols[2], symbols[1]
    _edit(copy, "3x3", symbols=symbols)
    one_line_error(run_cli("longest", "3x3", data=copy), "puzzle.symbols", "3x3 --force")
    r = run_cli("verify", "3x3", data=copy)
    one_line_error(r, "puzzle.symbols")
    assert "ok" not in r.stdout
    one_line_error(run_cli("solve", "3x3", "8 6 7 2 5 4 3 0 1", data=copy), "puzzle.symbols")
    r = run_cli("query", "SELECT board('3x3', 0)", data=copy)
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"puzzledb: warning: 3x3 left out of the catalog: {copy / '3x3' / '_manifest.json'}: "
        "puzzle.symbols is not the 3x3 puzzle's: rebuild with "
        f"`puzzledb build 3x3 --force --data {copy}`",
        "puzzledb: Invalid Input Error: no table named 3x3 in the catalog",
    ]


@pytest.mark.parametrize(
    ("table", "field", "value"),
    [
        ("3x3", "separator", ","),
        ("3x3", "layout", "{0}{1}{2}\n{3}{4}{5}\n{6}{8}{7}"),
        ("3x3", "roots", ["1 2 3 4 5 6 7 0 8"]),
        ("3x3", "origin", "start"),
        ("3x3", "graph", "general"),
        ("3x3", "bits_per_cell", 5),
        ("triangle15", "jumps", [[0, 1, 3]]),
        ("triangle15", "goal", ". . . . . . . . . . . . . . x"),
        ("triangle15-winnable", "derived_from", "3x3"),
        ("triangle15-winnable", "kind", "board"),
        ("2x3", "last_jump_bits", [0, 3]),
        ("2x3", "symmetries", []),
    ],
)
def test_each_answer_changing_field_is_checked(
    copy: Path, table: str, field: str, value: object
) -> None:
    _edit(copy, table, **{field: value})
    r = run_cli("query", "SELECT puzzle FROM summary", "--format", "csv", data=copy)
    assert r.returncode == 0 and table not in r.stdout.splitlines(), r.stdout
    assert f"warning: {table} left out of the catalog" in r.stderr
    assert f"puzzle.{field} is not the {table} puzzle's" in r.stderr
    one_line_error(run_cli("verify", table, data=copy), f"puzzle.{field}")


def test_a_number_of_another_type_is_another_value(copy: Path) -> None:
    m = json.loads((copy / "triangle15" / "_manifest.json").read_text())
    _edit(copy, "triangle15", jumps=[[float(h) for h in j] for j in m["puzzle"]["jumps"]])
    one_line_error(run_cli("longest", "triangle15", data=copy), "puzzle.jumps")


# -- item 7: malformed jumps ---------------------------------------------------------------
@pytest.mark.parametrize("jumps", [[[0, 1]], [["a", "b", "c"]], "[[0, 1, 3]]", [[0, 1, 3, None]]])
def test_malformed_jumps_are_one_line(copy: Path, jumps: object) -> None:
    _edit(copy, "triangle15", jumps=jumps)
    r = run_cli("query", "SELECT 1 AS one", "--format", "csv", data=copy)
    assert r.returncode == 0 and r.stdout.splitlines() == ["one", "1"], r.stderr
    assert r.stderr.count("warning: triangle15 left out") == 1 and "Traceback" not in r.stderr
    one_line_error(run_cli("longest", "triangle15", data=copy), "puzzle.jumps")
    r = run_cli("solve", "triangle15", "x x x x x x x x x x x x . x x", data=copy)
    assert r.returncode == 0, r.stderr  # answered by triangle15-winnable, which is intact


# -- item 6: names -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["summary", "puzzles", "levels", "select", "path"])
def test_a_spec_named_as_the_catalog_or_a_keyword_is_refused(tmp_path: Path, name: str) -> None:
    spec = tmp_path / f"{name}.toml"
    text = (EXAMPLES / "plus.toml").read_text().replace('name = "plus"', f'name = "{name}"')
    spec.write_text(text)
    folder = tmp_path / "data"
    one_line_error(run_cli("build", "--spec", str(spec), data=folder), f"'{name}' is a")
    assert not (folder / name).exists() and not (folder / "specs" / f"{name}.toml").exists()
    with pytest.raises(BadSpec, match=f"name: '{name}' is a"):
        pipeline.open(folder).add_spec(spec)


def test_a_table_under_a_reserved_name_is_left_out(copy: Path) -> None:
    _renamed(copy, "2x3", "summary")
    r = run_cli("query", "SELECT count(*) AS n FROM summary", "--format", "csv", data=copy)
    assert r.returncode == 0 and r.stdout.splitlines() == ["n", "4"], r.stderr
    assert "warning: summary left out of the catalog" in r.stderr and "'summary' is a" in r.stderr


def test_the_keyword_list_holds_every_duckdb_keyword() -> None:
    from pipeline.puzzles import registry as puzzles
    from pipeline.puzzles.reserved import CATALOG_NAMES, KEYWORDS, reserved

    rows = duckdb.connect().execute("SELECT keyword_name FROM duckdb_keywords()").fetchall()
    assert {r[0] for r in rows} <= KEYWORDS
    assert {"puzzles", "levels", "summary", "board", "path", "canonical"} <= CATALOG_NAMES
    assert [n for n in [*puzzles.REGISTRY, *puzzles.GROUPS] if reserved(n)] == []


# -- item 7: catalog writes at once into one folder ----------------------------------------
def _start(*args: str, data: Path) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "pipeline.cli", *args, "--data", str(data)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _all_ok(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0 and "Traceback" not in err, err


def test_two_builds_into_one_new_folder_at_once(tmp_path: Path) -> None:
    for k in range(5):
        folder = tmp_path / f"round{k}"
        _all_ok([_start("build", name, data=folder) for name in ("2x3", "oshidori")])
        r = run_cli(
            "query", "SELECT name FROM puzzles ORDER BY name", "--format", "csv", data=folder
        )
        assert r.stdout.splitlines() == ["name", "2x3", "oshidori"], r.stderr
        assert not list(folder.glob("puzzles.duckdb.*")), list(folder.iterdir())


def test_six_catalog_runs_at_once(copy: Path) -> None:
    _all_ok([_start("catalog", data=copy) for _ in range(6)])
    con = duckdb.connect(str(copy / "puzzles.duckdb"), read_only=True)
    names = [r[0] for r in con.execute("SELECT name FROM puzzles ORDER BY name").fetchall()]
    assert names == ["2x3", "3x3", "triangle15", "triangle15-winnable"]
    assert sorted(p.name for p in copy.iterdir() if "duckdb" in p.name) == ["puzzles.duckdb"]


@pytest.mark.parametrize(
    ("setup", "line"),
    [
        ("catalog-dir", "puzzles.duckdb cannot be written: Is a directory"),
        ("staging-link", ".staging is a symbolic link"),
        ("lock-fifo", "catalog.lock is not a regular file"),
    ],
)
def test_a_hostile_catalog_place_is_one_line(
    copy: Path, tmp_path: Path, setup: str, line: str
) -> None:
    """The catalog's lock, temp and target never lead outside the folder (guards: the
    directory as target was a traceback on 34ee030; the lock is new)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    staging = copy / ".staging"
    if setup == "catalog-dir":
        (copy / "puzzles.duckdb").mkdir()
    elif setup == "staging-link":
        staging.symlink_to(outside)
    else:  # a lock that is a link is replaced, not refused: tests/test_trust_writes.py
        staging.mkdir()
        os.mkfifo(staging / "catalog.lock")
    one_line_error(run_cli("catalog", data=copy), line)
    assert list(outside.iterdir()) == []
