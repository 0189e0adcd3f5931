"""Issue #32, items 3 to 5a: the checked-file cache, a resumed build, verify's figures.

A data folder is untrusted input: an edit that puts the old times back, a
damaged staged level, or a manifest figure the files do not bear out gives one
line and exit 1 (or a rebuild of what is damaged), never a wrong answer.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from pipeline import build, puzzles
from tests.conftest import run_cli

LONGEST_3X3 = ["6 4 7 8 5 0 3 2 1", "8 6 7 2 5 4 3 0 1"]


@pytest.fixture
def copy(data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder with a copy of 3x3 (and a cache of checked files of its own)."""
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "data"
    shutil.copytree(data / "3x3", folder / "3x3")
    return folder


def _one_line_error(r, *words: str) -> None:
    assert r.returncode == 1, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


# -- item 3: the checked-file cache ---------------------------------------------
def test_an_edit_that_puts_the_old_times_back_is_hashed_again(copy: Path, tmp_path: Path) -> None:
    f = copy / "3x3" / "d031-000.parquet"
    time.sleep(2.1)  # a file is remembered once it last changed a while before its check
    r = run_cli("longest", "3x3", "--json", data=copy)
    assert r.returncode == 0 and sorted(json.loads(r.stdout)["positions"]) == LONGEST_3X3
    checked = json.loads((tmp_path / "cache" / "checked.json").read_text())
    assert str(f.resolve()) in checked  # the cache is what the edit below must get past
    st = f.stat()
    with open(f, "r+b") as fh:  # printf '\x46' | dd of=F bs=1 seek=63 conv=notrunc
        fh.seek(63)
        assert fh.read(1) != b"\x46"
        fh.seek(63)
        fh.write(b"\x46")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # touch -r REF F
    after = f.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
    )
    r = run_cli("longest", "3x3", data=copy)  # was: "8 6 6 4 5 4 3 0 1", exit 0
    _one_line_error(r, str(f), "does not match its checksum")


def test_an_old_cache_entry_without_the_change_time_is_not_trusted(
    copy: Path, tmp_path: Path
) -> None:
    f = copy / "3x3" / "d031-000.parquet"
    m = json.loads((copy / "3x3" / "_manifest.json").read_text())
    digest = next(e["sha256"] for e in m["files"] if e["name"] == f.name)
    with open(f, "r+b") as fh:
        fh.seek(63)
        fh.write(b"\x46")
    st = f.stat()  # the stamp an older puzzledb kept: size, mtime, inode
    cache = tmp_path / "cache" / "checked.json"
    cache.parent.mkdir()
    cache.write_text(
        json.dumps({str(f.resolve()): [st.st_size, st.st_mtime_ns, st.st_ino, digest]})
    )
    _one_line_error(run_cli("longest", "3x3", data=copy), str(f), "does not match its checksum")


# -- item 4: a resumed build checks its staged files -------------------------------
def _sums(folder: Path) -> list[tuple]:
    """(depth, rows, sum of states, sum of parents) per depth, read by DuckDB."""
    glob = str(folder / "*.parquet")
    sql = (
        "SELECT depth, count(*), sum(state::HUGEINT), sum(parent::HUGEINT) "
        f"FROM read_parquet('{glob}') GROUP BY depth ORDER BY depth"
    )
    return duckdb.connect().execute(sql).fetchall()


@pytest.mark.parametrize("column", ["state", "parent"])
def test_a_resume_rebuilds_a_damaged_staged_level(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, column: str
) -> None:
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))

    class Killed(Exception):
        pass

    def kill_after_10(done: build.LevelDone) -> None:
        if done.depth == 10:
            raise Killed

    with pytest.raises(Killed):
        build.build(puzzles.get("2x5"), tmp_path, on_level=kill_after_10)
    staged = tmp_path / ".staging" / "2x5"
    assert json.loads((staged / "progress.json").read_text())["levels"][-1]["depth"] == 10
    f = staged / "d010-000.parquet"
    chunk = (
        pq.ParquetFile(f).metadata.row_group(0).column(["state", "depth", "parent"].index(column))
    )
    raw = bytearray(f.read_bytes())
    raw[chunk.data_page_offset + chunk.total_compressed_size // 2] ^= 0x10  # one byte, one bit
    f.write_bytes(bytes(raw))
    kept = (staged / "d009-000.parquet").stat().st_ino
    seen: list[int] = []
    build.build(puzzles.get("2x5"), tmp_path, on_level=lambda d: seen.append(d.depth))
    assert seen[0] == 10  # depth 10 made again, depths 0 to 9 kept
    assert (tmp_path / "2x5" / "d009-000.parquet").stat().st_ino == kept
    # was: exit 0 with depth 10's parents summing to 14988064522925689618, not
    # 84963036678930 (a damaged state page: an error on every rerun, --force too)
    assert _sums(tmp_path / "2x5") == _sums(data / "2x5")
    r = run_cli("verify", "2x5", data=tmp_path)
    assert r.returncode == 0 and "2x5: ok" in r.stdout, r.stdout + r.stderr
