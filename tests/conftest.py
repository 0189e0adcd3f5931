"""Shared fixtures: the default tables, built once per test session into a temp folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import pipeline
from pipeline.puzzles import registry as puzzles


@pytest.fixture(scope="session")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with every default table and the catalog, built for real."""
    folder = tmp_path_factory.mktemp("data")
    pipeline.open(folder).build([p.name for p in puzzles.defaults()])
    return folder


@pytest.fixture(scope="session")
def db(data: Path) -> pipeline.Database:
    return pipeline.open(data)


def one(db: pipeline.Database, sql: str) -> object:
    """The single value a query returns."""
    return db.connection().execute(sql).fetchone()[0]


def column(db: pipeline.Database, sql: str) -> list[object]:
    return [r[0] for r in db.connection().execute(sql).fetchall()]


def run_cli(*args: str, data: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user does: a real subprocess, its exit code and output."""
    extra = ["--data", str(data)] if data is not None else []
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args, *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line_error(r: subprocess.CompletedProcess[str], *words: str) -> None:
    """A CLI run that failed as a user error should: exit 1, one line naming ``words``."""
    assert r.returncode == 1, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


@pytest.fixture
def copy_of(data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Makes ``tmp_path/data`` with copies of the named default tables, and gives the
    test a checked-file cache of its own (a damaged copy is never taken as checked)."""

    def make(*names: str) -> Path:
        monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
        folder = tmp_path / "data"
        for name in names:
            shutil.copytree(data / name, folder / name)
        return folder

    return make
