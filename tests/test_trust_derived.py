"""Arrays derived from tables and kept in a data folder change no answer (issue #32).

A pattern database's compact arrays (``<table>/_pdb.npy``, ``.cache/<board>-pdb.npy``)
are covered by no manifest: one is used only when this machine wrote it from the
files the manifests list now; anything else is derived again and replaced.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import pipeline
from pipeline.errors import CorruptTable
from pipeline.solvers import optimal
from pipeline.storage import integrity, manifest
from tests.conftest import run_cli

#: A 3x3 position 31 moves from the goal (the most a 3x3 needs).
FAR = "8 6 7 2 5 4 3 0 1"
SOLVE = ["solve", "3x3", FAR, "--method", "optimal", "--json"]
JOINED = ".cache/3x3-pdb.npy"
COMPACT = "3x3-pdb-4a/_pdb.npy"


@pytest.fixture(scope="module")
def pdb3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with the 3x3's pattern databases and their caches (2 s to build)."""
    folder = tmp_path_factory.mktemp("pdb3")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PUZZLEDB_CACHE", str(tmp_path_factory.mktemp("cache")))
        pipeline.open(folder).build([p.name for p in optimal.patterns("3x3")])
        assert _moves(run_cli(*SOLVE, data=folder)) == 31  # the caches made
    return folder


@pytest.fixture
def folder(pdb3: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of pdb3 whose caches this "machine" (a cache of its own) wrote."""
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "data"
    shutil.copytree(pdb3, folder, symlinks=True)
    for cache in (JOINED, COMPACT):
        (folder / cache).unlink()
    assert _moves(run_cli(*SOLVE, data=folder)) == 31
    return folder


def _moves(r) -> int:
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["moves"]


def test_a_level_file_rewritten_with_its_mtime_kept_is_caught(folder: Path) -> None:
    # The checked-file cache knew a file by size, mtime and inode: bytes changed in
    # place with the mtime set back passed as checked (DuckDB then read them).
    table = folder / "3x3-pdb-4a"
    m = manifest.read(table)
    integrity.check_table(table, m)  # hashed and remembered
    path = table / m.files[-1].name
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    with open(path, "r+b") as f:
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(CorruptTable, match="does not match its checksum"):
        integrity.check_table(table, m)
