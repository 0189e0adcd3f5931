"""The data contract on disk, and builds that are interrupted, forced or damaged."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import pipeline
from pipeline.build import loop as build
from pipeline.errors import BuildLocked, CorruptTable, NotBuilt
from pipeline.puzzles import registry as puzzles
from pipeline.storage import files, reader, staging, writer
from pipeline.storage import format as fmt
from tests.conftest import build_local


def test_parquet_contract(data: Path) -> None:
    table_dir = data / "2x5"
    manifest = json.loads((table_dir / "_manifest.json").read_text())
    files = sorted(table_dir.glob("*.parquet"))
    assert [f.name for f in files] == sorted(f["name"] for f in manifest["files"])
    assert len(files) == 56  # one file a depth on this board
    for f in files:
        pf = pq.ParquetFile(f)
        assert pf.schema_arrow.names == ["state", "depth", "parent"]
        assert pf.schema_arrow.field("state").type == pa.uint64()
        assert pf.schema_arrow.field("depth").type == pa.uint8()
        assert pf.schema_arrow.field("parent").type == pa.uint64()
        meta = pf.schema_arrow.metadata
        assert meta[b"puzzledb.puzzle"] == b"2x5"
        assert meta[b"puzzledb.format_version"] == str(fmt.FORMAT_VERSION).encode()
        assert b"4i..4i+3" in meta[b"puzzledb.encoding"]
        md = pf.metadata
        for g in range(md.num_row_groups):
            assert md.row_group(g).num_rows <= fmt.ROW_GROUP_ROWS
            for c in range(3):
                col = md.row_group(g).column(c)
                assert col.compression == "ZSTD"
                assert "PLAIN_DICTIONARY" not in col.encodings
                assert "RLE_DICTIONARY" not in col.encodings
        states = pf.read(columns=["state"]).column(0).to_numpy()
        assert np.all(states[1:] > states[:-1])  # sorted by state
    assert manifest["total"] == 1_814_400
    assert manifest["max_depth"] == 55
    assert sum(lv["positions"] for lv in manifest["levels"]) == manifest["total"]
    assert manifest["puzzle"]["encoding"].startswith("tile of cell i")
    assert {"puzzledb", "numpy", "pyarrow", "python"} <= set(manifest["versions"])


def test_three_readers_read_a_whole_table_with_no_options(data: Path) -> None:
    glob = str(data / "2x5" / "**" / "*.parquet")
    con = duckdb.connect()
    n, roots, maxd = con.execute(
        f"SELECT count(*), count(*) FILTER (parent IS NULL), max(depth) FROM read_parquet('{glob}')"
    ).fetchone()
    assert (n, roots, maxd) == (1_814_400, 1, 55)
    assert con.execute(f"SELECT typeof(depth) FROM read_parquet('{glob}') LIMIT 1").fetchone()[
        0
    ] in ("UTINYINT", "uint8")
    lf = pl.scan_parquet(str(data / "2x5" / "*.parquet"))
    got = lf.select(pl.len(), pl.col("depth").max()).collect().row(0)
    assert got == (1_814_400, 55)
    dset = ds.dataset(data / "2x5", format="parquet")
    assert dset.count_rows() == 1_814_400
    assert dset.schema.field("depth").type == pa.uint8()


def _rows(folder: Path) -> pa.Table:
    return pq.read_table(sorted(folder.glob("*.parquet")), columns=["state", "depth", "parent"])


def test_interrupted_build_resumes_to_identical_rows(data: Path, tmp_path: Path) -> None:
    p = puzzles.get("3x3")

    class Stop(Exception):
        pass

    def stop_at_12(done: build.LevelDone) -> None:
        if done.depth == 12:
            raise Stop

    with pytest.raises(Stop):
        build_local(p, tmp_path, on_level=stop_at_12)
    staging = tmp_path / ".staging" / "3x3"
    assert (staging / "progress.json").exists()
    assert not (tmp_path / "3x3").exists()  # readers never see half a table
    # A level file half-written when the process died is thrown away.
    (staging / "d013-000.parquet.tmp").write_bytes(b"garbage")
    seen: list[int] = []
    build_local(p, tmp_path, on_level=lambda d: seen.append(d.depth))
    assert seen[0] == 13  # resumed after the last finished level
    assert _rows(tmp_path / "3x3").equals(_rows(data / "3x3"))
    assert not staging.exists()


def test_two_builds_write_identical_files(data: Path, tmp_path: Path) -> None:
    build_local(puzzles.get("2x4"), tmp_path)
    a = json.loads((tmp_path / "2x4" / "_manifest.json").read_text())
    b = json.loads((data / "2x4" / "_manifest.json").read_text())
    assert [f["sha256"] for f in a["files"]] == [f["sha256"] for f in b["files"]]


def test_a_part_too_big_for_the_writers_buffer_is_written_the_same(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The largest 2x4 level, written again with a 64-byte output buffer: the
    # writer falls back to a growing buffer and the bytes are the same.
    entry = max(
        json.loads((data / "2x4" / "_manifest.json").read_text())["files"], key=lambda f: f["rows"]
    )
    level = reader.read_level_file(data / "2x4" / entry["name"])
    meta = pq.read_schema(data / "2x4" / entry["name"]).metadata
    metadata = {k.decode(): v.decode() for k, v in meta.items() if k.startswith(b"puzzledb.")}
    metadata.pop("puzzledb.depth")
    monkeypatch.setattr(writer._Scratch, "output", lambda self, size: pa.allocate_buffer(64))
    again = writer.write_part(tmp_path, level.depth, 0, level.states, level.parents, metadata)
    assert again["rows"] == entry["rows"] > 1000
    assert again["sha256"] == entry["sha256"]


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 3 * 4096 + 5, (5 << 20) + 17])
@pytest.mark.parametrize("skip", [0, 1])
def test_a_direct_write_gives_the_same_bytes(tmp_path: Path, size: int, skip: int) -> None:
    # The writer's files go around the page cache (O_DIRECT) from a page-aligned
    # buffer, the last partial block as usual; off a page (skip 1) the kernel refuses
    # it and the bytes are written as usual. Either way the file holds them all.
    raw = np.empty(size + 2 * files.DIRECT_ALIGN, np.uint8)
    start = -raw.ctypes.data % files.DIRECT_ALIGN + skip
    data = raw[start : start + size]
    data[:] = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8)
    files.replace(tmp_path / "part.parquet", pa.py_buffer(data), direct=True)
    assert (tmp_path / "part.parquet").read_bytes() == data.tobytes()
    assert [p.name for p in tmp_path.iterdir()] == ["part.parquet"]


def test_force_rebuild_keeps_the_old_table_readable(tmp_path: Path) -> None:
    db = pipeline.open(tmp_path)
    db.build(["2x3"])
    old = json.loads((tmp_path / "2x3" / "_manifest.json").read_text())
    during: list[int] = []

    def peek(name: str, done: build.LevelDone) -> None:
        reader = pipeline.open(tmp_path)  # a reader while the rebuild runs
        during.append(reader.solve("2x3", "4 5 0 1 2 3").moves)

    db.build(["2x3"], force=True, on_level=peek)
    assert during and set(during) == {21}
    new = json.loads((tmp_path / "2x3" / "_manifest.json").read_text())
    assert new["build"]["started"] >= old["build"]["started"]
    assert [f["sha256"] for f in new["files"]] == [f["sha256"] for f in old["files"]]
    assert not (tmp_path / ".staging" / "2x3").exists()


def test_a_second_build_of_the_same_table_is_refused(tmp_path: Path) -> None:
    with staging.build_lock(tmp_path, "2x3"), pytest.raises(BuildLocked, match="another process"):
        build_local(puzzles.get("2x3"), tmp_path)
    build_local(puzzles.get("2x3"), tmp_path)  # the lock died with its holder
    assert (tmp_path / "2x3" / "_manifest.json").exists()


def test_not_built_names_the_command(tmp_path: Path) -> None:
    with pytest.raises(NotBuilt, match="puzzledb build 3x3"):
        pipeline.open(tmp_path).solve("3x3", "1 2 3 4 5 6 7 8 0")


def _copy(data: Path, tmp_path: Path, name: str) -> pipeline.Database:
    shutil.copytree(data / name, tmp_path / name)
    return pipeline.open(tmp_path)


def test_truncated_file_is_reported_and_left_alone(data: Path, tmp_path: Path) -> None:
    db = _copy(data, tmp_path, "3x3")
    f = tmp_path / "3x3" / "d031-000.parquet"
    f.write_bytes(f.read_bytes()[:100])
    before = sorted(os.listdir(tmp_path / "3x3"))
    with pytest.raises(CorruptTable, match=r"d031-000\.parquet"):
        db.solve("3x3", "8 6 7 2 5 4 3 0 1")
    assert sorted(os.listdir(tmp_path / "3x3")) == before


def test_corrupt_bytes_fail_verify(data: Path, tmp_path: Path) -> None:
    db = _copy(data, tmp_path, "3x3")
    f = tmp_path / "3x3" / "d020-000.parquet"
    raw = bytearray(f.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    f.write_bytes(bytes(raw))
    report = db.verify("3x3")
    assert not report.ok
    assert "d020-000.parquet does not match its checksum" in report.problems[0]


def _plant(tmp_path: Path, name: str, depth: int, change) -> None:
    """Rewrite one level file with ``change`` applied, and re-sign it in the manifest."""
    folder = tmp_path / name
    path = folder / fmt.level_file_name(depth, 0)
    level = reader.read_level_file(path)
    level = change(level)
    manifest = json.loads((folder / "_manifest.json").read_text())
    meta = pq.ParquetFile(path).schema_arrow.metadata
    path.unlink()
    (entry,) = writer.write_level(folder, level, {k.decode(): v.decode() for k, v in meta.items()})
    manifest["files"] = [entry if f["name"] == entry["name"] else f for f in manifest["files"]]
    for lv in manifest["levels"]:
        if lv["depth"] == depth:
            lv["positions"] = len(level)
    manifest["total"] = sum(lv["positions"] for lv in manifest["levels"])
    (folder / "_manifest.json").write_text(json.dumps(manifest))


def test_a_planted_bad_parent_fails_verify(data: Path, tmp_path: Path) -> None:
    _copy(data, tmp_path, "3x3")

    def swap_parent(level):
        parents = level.parents.copy()
        parents[5] = parents[6] if parents[6] != parents[5] else parents[7]
        return type(level)(level.depth, level.states, parents)

    _plant(tmp_path, "3x3", 20, swap_parent)
    report = pipeline.open(tmp_path).verify("3x3")
    assert not report.ok
    assert any("not one legal move up" in p for p in report.problems)


def test_a_missing_position_fails_verify(data: Path, tmp_path: Path) -> None:
    _copy(data, tmp_path, "2x4")

    def drop_one(level):
        return type(level)(level.depth, level.states[1:], level.parents[1:])

    _plant(tmp_path, "2x4", 17, drop_one)
    report = pipeline.open(tmp_path).verify("2x4")
    assert not report.ok
    assert any("moves lead more than one level on" in p for p in report.problems)
    assert any("20159 positions, the puzzle has 20160" in p for p in report.problems)


def test_path_counts_are_written_as_the_decimals_arrow_casts_them_to() -> None:
    counts = np.array([0, 1, 52, 2**63, 2**64 - 1, 40_861_647_040_079_968], np.uint64)
    got = writer._scratch.decimals(counts)
    assert got.equals(pa.array(counts, pa.uint64()).cast(fmt.PATHS.type))
    assert [int(v) for v in got.to_pylist()] == [int(c) for c in counts]
    assert writer._scratch.decimals(counts[:2]).to_pylist() == [0, 1]  # reused, shorter
