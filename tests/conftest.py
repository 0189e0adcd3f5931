"""Shared fixtures: the default tables, built once per test session into a temp folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from pipeline import puzzles


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
