"""The catalog file answers from any working directory, and a copy of the data folder
answers after `puzzledb catalog --data NEWPLACE`, never from the old place's files."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

COUNT = 'SELECT count(*) FROM "2x3"'
PATH = "SELECT count(*) FROM path('2x3', state_of('2x3', '4 5 0 1 2 3'))"
STALE = "not the folder it is in now: run `puzzledb catalog --data FOLDER`"


def ask(catalog: Path, sql: str) -> subprocess.CompletedProcess[str]:
    """``sql`` on ``catalog`` by the duckdb Python module, in a process started in /."""
    code = (
        "import sys, duckdb\n"
        "con = duckdb.connect(sys.argv[1], read_only=True)\n"
        "print(con.execute(sys.argv[2]).fetchone()[0])\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(catalog), sql],
        cwd="/", capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def ask_cli(catalog: Path, sql: str) -> subprocess.CompletedProcess[str] | None:
    """``sql`` on ``catalog`` by the DuckDB CLI run in /, or None if there is none."""
    duck = Path(sys.executable).parent / "duckdb"
    if not duck.exists():
        return None
    return subprocess.run(
        [str(duck), "-csv", "-noheader", str(catalog), "-c", sql],
        cwd="/", capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.fixture
def built(tmp_path: Path) -> Path:
    data = tmp_path / "first" / "data"
    r = run_cli("build", "2x3", data=data)
    assert r.returncode == 0, r.stderr
    return data


def test_the_catalog_answers_from_the_root_folder(built: Path) -> None:
    catalog = built / "puzzles.duckdb"
    r = ask(catalog, COUNT)
    assert r.returncode == 0 and r.stdout.strip() == "360", r.stderr
    assert ask(catalog, PATH).stdout.strip() == "22"  # depth 21: 22 rows
    cli = ask_cli(catalog, COUNT)
    assert cli is None or (cli.returncode == 0 and cli.stdout.strip() == "360"), cli


def test_a_copy_refuses_until_catalog_then_answers_from_its_own_files(
    built: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "second" / "data"
    shutil.copytree(built, copy)
    for sql in (COUNT, PATH):
        r = ask(copy / "puzzles.duckdb", sql)
        assert r.returncode != 0 and STALE in r.stderr and str(built) in r.stderr, r
    cli = ask_cli(copy / "puzzles.duckdb", COUNT)
    assert cli is None or (cli.returncode != 0 and STALE in cli.stderr + cli.stdout), cli
    assert ask(built / "puzzles.duckdb", COUNT).stdout.strip() == "360"  # the first still answers
    r = run_cli("catalog", data=copy)
    assert r.returncode == 0, r.stderr
    shutil.rmtree(built)  # the old place gone: the copy reads its own files
    assert ask(copy / "puzzles.duckdb", COUNT).stdout.strip() == "360"
    assert ask(copy / "puzzles.duckdb", PATH).stdout.strip() == "22"
    cli = ask_cli(copy / "puzzles.duckdb", COUNT)
    assert cli is None or cli.stdout.strip() == "360", cli
