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

import numpy as np
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


def _hostile(honest: np.ndarray) -> np.ndarray:
    """Bounds three times too high: the search then stops at a 61-move solution."""
    return np.where(honest == 255, 255, np.minimum(honest.astype(int) * 3, 254)).astype(np.uint8)


def _plant(path: Path, arr: np.ndarray, in_place: bool) -> None:
    """``arr`` at ``path``: a new file, or the old one rewritten with its mtime kept."""
    st = path.stat()
    if in_place:
        with open(path, "r+b") as f:
            np.save(f, arr)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    else:
        path.unlink()
        np.save(path, arr)
    assert path.stat().st_size == st.st_size


@pytest.mark.parametrize("in_place", [False, True], ids=["replaced", "rewritten-mtime-kept"])
@pytest.mark.parametrize("cache", [JOINED, COMPACT])
def test_a_hostile_pattern_cache_changes_no_answer(
    folder: Path, cache: str, in_place: bool
) -> None:
    # Found in review: a tripled .cache/3x3-pdb.npy gave "61 moves (optimal)" with exit 0.
    honest = np.load(folder / cache)
    _plant(folder / cache, _hostile(honest), in_place)
    if cache == COMPACT:  # read only when the joined arrays are made again
        (folder / JOINED).unlink()
    assert _moves(run_cli(*SOLVE, data=folder)) == 31
    assert np.array_equal(np.load(folder / cache), honest)  # derived again and replaced


def _plant_all(folder: Path, recorded: bool) -> None:
    """Every pattern cache of the folder made hostile; ``recorded``: written as this
    machine writes its own, with its record saying they come from these very tables."""
    tables = [pipeline.open(folder).table(p.name) for p in optimal.patterns("3x3")]
    places = [(Path(t.directory), optimal.COMPACT) for t in tables]
    places.append((folder / ".cache", "3x3-pdb.npy"))
    kinds = [f"pdb-compact-1 {p.name} {p.tiles}" for p in optimal.patterns("3x3")]
    kinds.append(f"pdb-joined-1 3x3 {[p.tiles for p in optimal.patterns('3x3')]}")
    sources = [[t.manifest] for t in tables] + [[t.manifest for t in tables]]
    for (directory, name), kind, manifests in zip(places, kinds, sources, strict=True):
        arr = _hostile(np.load(directory / name))
        if recorded:
            from pipeline.storage import derived

            derived.keep(directory, name, arr, integrity.source_key(kind, manifests))
        else:
            _plant(directory / name, arr, in_place=False)


@pytest.mark.parametrize("recorded", [False, True], ids=["plain", "recorded-there"])
def test_caches_planted_by_another_machine_are_derived_again(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorded: bool
) -> None:
    honest = {c: np.load(folder / c) for c in (JOINED, COMPACT)}
    _plant_all(folder, recorded)
    moved = tmp_path / "moved"
    shutil.copytree(folder, moved)  # mtimes kept: newer than every manifest
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "other-cache"))
    assert _moves(run_cli(*SOLVE, data=moved)) == 31
    for c in (JOINED, COMPACT):
        assert np.array_equal(np.load(moved / c), honest[c]), c


@pytest.mark.parametrize("cache", [JOINED, COMPACT])
def test_a_link_at_a_cache_place_is_replaced_and_its_target_untouched(
    folder: Path, tmp_path: Path, cache: str
) -> None:
    target = tmp_path / "outside.npy"
    honest = np.load(folder / cache)
    np.save(target, _hostile(honest))
    before = target.read_bytes()
    (folder / cache).unlink()
    (folder / cache).symlink_to(target)
    if cache == COMPACT:
        (folder / JOINED).unlink()
    assert _moves(run_cli(*SOLVE, data=folder)) == 31
    assert not (folder / cache).is_symlink()
    assert np.array_equal(np.load(folder / cache), honest)
    assert target.read_bytes() == before


def test_a_link_as_the_cache_folder_is_replaced_and_nothing_written_there(
    folder: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    np.save(outside / "3x3-pdb.npy", _hostile(np.load(folder / JOINED)))
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    shutil.rmtree(folder / ".cache")
    (folder / ".cache").symlink_to(outside)
    assert _moves(run_cli(*SOLVE, data=folder)) == 31
    assert (folder / ".cache").is_dir() and not (folder / ".cache").is_symlink()
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before


def test_a_linked_table_folder_gets_no_cache_written_through_it(
    folder: Path, tmp_path: Path
) -> None:
    # Writing _pdb.npy through a linked table folder would write outside the data folder.
    elsewhere = tmp_path / "elsewhere"
    shutil.move(folder / "3x3-pdb-4a", elsewhere)
    (folder / "3x3-pdb-4a").symlink_to(elsewhere)
    (elsewhere / optimal.COMPACT).unlink()
    (folder / JOINED).unlink()
    r = run_cli(*SOLVE, data=folder)  # issue #44: a linked table folder is never followed
    assert r.returncode == 1 and "3x3-pdb-4a is a symbolic link" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not (elsewhere / optimal.COMPACT).exists()


def test_the_second_load_reuses_the_cache_without_writing(folder: Path) -> None:
    db = pipeline.open(folder)
    tables = [db.table(p.name) for p in optimal.patterns("3x3")]
    path = folder / JOINED
    st = path.stat()
    arr = optimal.load_joined("3x3", tables, folder)
    assert isinstance(arr, np.memmap) and arr.shape == (13_122,)
    after = path.stat()
    assert (after.st_ino, after.st_ctime_ns) == (st.st_ino, st.st_ctime_ns)


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


def test_a_file_as_the_cache_folder_keeps_nothing_and_answers_right(folder: Path) -> None:
    shutil.rmtree(folder / ".cache")
    (folder / ".cache").write_bytes(b"not a folder")
    assert _moves(run_cli(*SOLVE, data=folder)) == 31
    assert (folder / ".cache").read_bytes() == b"not a folder"


def test_no_array_is_derived_from_a_forged_page(folder: Path) -> None:
    """The compact arrays are derived from the pattern tables' rows, each file hashed
    whole first: a page forged with its CRC recomputed (a deep state swapped into the
    largest level) is refused in one line naming the file, never derived from."""
    from tests.test_trust_forged import forge_chunk, swap_in

    for cache in (JOINED, COMPACT):
        (folder / cache).unlink()
    table = folder / "3x3-pdb-4a"
    m = manifest.read(table)
    largest = max(m.files, key=lambda e: e.rows)
    deep = m.files[-1].min_state
    assert deep is not None and largest.depth != m.files[-1].depth
    forge_chunk(table / largest.name, 0, "state", swap_in(deep))
    r = run_cli(*SOLVE, data=folder)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stdout + r.stderr
    assert f"{largest.name} does not match its checksum in the manifest" in r.stderr, r.stderr
    assert not (folder / COMPACT).exists()
