"""A data page forged with its CRC32 recomputed, and its siblings: every read of a level
file holds the bytes it reads against the manifest's sha256s (docs/TRUST.md).

A page's CRC32 is no defence against a forger: whoever swaps a state can recompute
it. Format version 2 records the sha256 of every column chunk, checked as a look-up
reads it; a folder of version 1 is hashed whole on the first look-up into a file.
"""

from __future__ import annotations

import json
import shutil
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
import zstandard

import pipeline
from pipeline.errors import CorruptTable
from pipeline.puzzles import registry
from pipeline.storage import thrift as t
from tests.conftest import build_local, one_line_error, run_cli
from tests.test_serve import get, serving

#: A 2x3 position 20 moves from the goal, forged into depth 16's file.
WRONG = "4 5 3 1 2 0"
GOAL = "1 2 3 4 5 0"
FORGED = "d016-000.parquet"
REBUILD = "puzzledb build 2x3 --force"


def forge_chunk(
    path: Path, group: int, column: str, change: Callable[[np.ndarray], np.ndarray]
) -> None:
    """Rewrite one column chunk of a level file (a column without nulls) as one data page
    of ``change(values)``, as a forger would: the values compressed again with zstd,
    padded with a zstd skippable frame to the chunk's very size, the page's CRC32
    recomputed; the footer untouched (its hash still the manifest's)."""
    md = pq.read_metadata(path)
    c = md.schema.names.index(column)
    chunk = md.row_group(group).column(c)
    start, length = chunk.data_page_offset, chunk.total_compressed_size
    values = pq.ParquetFile(path).read_row_group(group, columns=[column]).column(0).to_numpy()
    values = change(values)
    body = values.astype("<u8" if chunk.physical_type == "INT64" else "<i4").tobytes()
    frame = zstandard.ZstdCompressor(level=19, write_content_size=False).compress(body)
    for pad, salt in ((p, s) for p in range(9, 128) for s in range(16)):
        # the CRC's varint length moves the header's: the padding's last byte moves the CRC
        page = frame + struct.pack("<II", 0x184D2A50, pad - 8) + bytes(pad - 9) + bytes([salt])
        crc = zlib.crc32(page)
        header = t.encode(
            {
                1: t.i32(0),  # a data page (v1)
                2: t.i32(len(body)),
                3: t.i32(len(page)),
                4: t.i32(crc - (1 << 32) if crc >= 1 << 31 else crc),
                5: {1: t.i32(len(values)), 2: t.i32(0), 3: t.i32(3), 4: t.i32(3)},
            }
        )
        if len(header) + len(page) == length:
            break
    else:
        raise AssertionError("the forged page does not fit the chunk")
    raw = bytearray(path.read_bytes())
    raw[start : start + length] = header + page
    path.write_bytes(bytes(raw))


def swap_in(state: int) -> Callable[[np.ndarray], np.ndarray]:
    """The sorted states with the first one above ``state`` replaced by it (still sorted)."""

    def change(states: np.ndarray) -> np.ndarray:
        k = int(np.searchsorted(states, np.uint64(state)))
        assert 0 < k < len(states) - 1
        out = states.copy()
        out[k] = state
        return out

    return change


def gone(folder: Path) -> str:
    """The position the forgery pushed out of depth 16's file."""
    p = registry.get("2x3")
    states = pq.read_table(folder / "2x3" / FORGED, columns=["state"]).column(0).to_numpy()
    return p.text(int(states[int(np.searchsorted(states, np.uint64(p.parse(WRONG))))]))


@pytest.fixture
def forged(copy_of: Callable[..., Path]) -> tuple[Path, str]:
    """A copy of 2x3 and 2x4 whose depth-16 file of 2x3 holds WRONG in place of another
    state; and that other position's text."""
    folder = copy_of("2x3", "2x4")
    out = gone(folder)
    forge_chunk(folder / "2x3" / FORGED, 0, "state", swap_in(registry.get("2x3").parse(WRONG)))
    return folder, out


def test_the_forgery_holds_its_footer_and_crc(forged: tuple[Path, str]) -> None:
    """The forged file is the issue's: same size, same footer, page CRCs that check,
    the swapped state read back (what a reader that trusts them answers from)."""
    folder, _ = forged
    path = folder / "2x3" / FORGED
    entry = next(e for e in _manifest(folder)["files"] if e["name"] == FORGED)
    assert path.stat().st_size == entry["bytes"]
    tail = path.read_bytes()[-(8 + int.from_bytes(path.read_bytes()[-8:-4], "little")) :]
    import hashlib

    assert hashlib.sha256(tail).hexdigest() == entry["footer_sha256"]
    states = pq.ParquetFile(path, page_checksum_verification=True).read().column("state")
    assert registry.get("2x3").parse(WRONG) in states.to_pylist()


@pytest.mark.parametrize(
    "args",
    [
        ("show", "2x3", WRONG),  # was: depth 16 (it is 20), exit 0
        ("solve", "2x3", WRONG),  # was: a 16-move "optimal" line, its first step no slide
        ("distance", "2x3", WRONG, GOAL),  # was: 16
        ("show", "2x3", "GONE"),  # was: not in the table
        ("random", "2x3", "--depth", "16"),
    ],
)
def test_a_forged_page_is_refused_by_every_look_up(
    forged: tuple[Path, str], args: tuple[str, ...]
) -> None:
    folder, out = forged
    r = run_cli(*(out if a == "GONE" else a for a in args), data=folder)
    one_line_error(r, f"{folder / '2x3' / FORGED} has row group 0's column state", REBUILD)
    r = run_cli("show", "2x4", "1 2 3 4 5 6 7 0", data=folder)  # the other table answers
    assert r.returncode == 0 and r.stdout.strip().endswith("depth 0"), r.stdout + r.stderr


def test_the_api_refuses_a_forged_page(forged: tuple[Path, str]) -> None:
    folder, out = forged
    db = pipeline.open(folder)
    calls: list[Callable[[], Any]] = [
        lambda: db.depth("2x3", WRONG),
        lambda: db.solve("2x3", WRONG),
        lambda: db.position("2x3", WRONG),
        lambda: db.distance("2x3", WRONG, GOAL),
        lambda: db.depth("2x3", out),
    ]
    for call in calls:
        with pytest.raises(CorruptTable, match=rf"{FORGED} has row group 0's .* rebuild with"):
            call()
    assert db.depth("2x4", "1 2 3 4 5 6 7 0") == 0


def test_the_explorer_refuses_a_forged_page(forged: tuple[Path, str]) -> None:
    folder, _ = forged
    with serving(folder) as base:
        status, body = get(f"{base}/api/position/2x3?s=4%205%203%201%202%200")
        assert status == 500, body
        line = json.loads(body)["error"]
        assert FORGED in line and "rebuild" in line and "\n" not in line, line
        status, body = get(f"{base}/api/position/2x4?s=1%202%203%204%205%206%207%200")
        assert status == 200 and json.loads(body)["depth"] == 0, body


def _manifest(folder: Path, table: str = "2x3") -> dict[str, Any]:
    return json.loads((folder / table / "_manifest.json").read_text())


def as_version_1(folder: Path, table: str = "2x3") -> None:
    """The table's manifest as puzzledb wrote it before column chunks were hashed."""
    doc = _manifest(folder, table)
    doc["format_version"] = 1
    for entry in doc["files"]:
        entry.pop("chunk_sha256", None)
    (folder / table / "_manifest.json").write_text(json.dumps(doc))


def test_a_version_1_folder_reads_and_its_forged_page_is_caught_whole(
    copy_of: Callable[..., Path],
) -> None:
    folder = copy_of("2x3")
    as_version_1(folder)
    r = run_cli("show", "2x3", WRONG, data=folder)
    assert r.returncode == 0 and r.stdout.strip().endswith("depth 20"), r.stdout + r.stderr
    r = run_cli("solve", "2x3", WRONG, "--json", data=folder)
    assert r.returncode == 0 and json.loads(r.stdout)["moves"] == 20, r.stderr
    forge_chunk(folder / "2x3" / FORGED, 0, "state", swap_in(registry.get("2x3").parse(WRONG)))
    for args in (("show", "2x3", WRONG), ("solve", "2x3", WRONG)):
        r = run_cli(*args, data=folder)
        one_line_error(r, FORGED, "does not match its checksum in the manifest", REBUILD)


def test_version_2_lists_every_chunk_and_holds_the_footer_to_them(
    copy_of: Callable[..., Path],
) -> None:
    """A version-2 manifest without a file's chunk hashes, or with a row group too few,
    is refused; it is never read as a version-1 file."""
    folder = copy_of("2x3")
    path = folder / "2x3" / "_manifest.json"
    clean = path.read_text()
    doc = json.loads(clean)
    del doc["files"][16]["chunk_sha256"]
    path.write_text(json.dumps(doc))
    r = run_cli("show", "2x3", WRONG, data=folder)
    one_line_error(r, "files[16].chunk_sha256 is missing (format version 2)", REBUILD)
    doc = json.loads(clean)
    doc["files"][16]["chunk_sha256"].append(doc["files"][16]["chunk_sha256"][0])
    path.write_text(json.dumps(doc))
    r = run_cli("show", "2x3", WRONG, data=folder)
    one_line_error(r, FORGED, "other row groups or columns than its manifest's", REBUILD)


# Siblings: every other read of a level file the same way.


def test_a_winnable_table_is_never_built_from_a_forged_page(
    copy_of: Callable[..., Path], tmp_path: Path
) -> None:
    """The winnable table's build reads the forward table by ranges of states: a page of
    it forged built a wrong table, published with hashes of its own."""
    folder = copy_of("triangle15")
    path = folder / "triangle15" / "d005-000.parquet"
    states = pq.read_table(path, columns=["state"]).column(0).to_numpy()
    stray = int(states[1]) + 1  # no position of depth 5 (a peg more, or none there)
    assert stray < states[2]
    forge_chunk(path, 0, "state", lambda s: np.concatenate([s[:1], [stray], s[2:]]))
    r = run_cli("build", "triangle15-winnable", data=folder)
    one_line_error(r, "d005-000.parquet has row group 0's column state", "triangle15 --force")
    assert not (folder / "triangle15-winnable").exists()


@pytest.fixture(scope="module")
def sym(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sym")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PUZZLEDB_CACHE", str(tmp_path_factory.mktemp("cache")))
        pipeline.open(folder).build(["english33-sym"], max_depth=6)
    return folder


def test_class_sizes_forged_with_their_sum_kept_are_refused(
    sym: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A -sym table's orbit sums are read from its class_size column: two class sizes
    swapped keep the sum, which alone was checked against the manifest."""
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "data"
    shutil.copytree(sym, folder)
    path = folder / "english33-sym" / "d003-000.parquet"
    sizes = pq.read_table(path, columns=["class_size"]).column(0).to_numpy()
    i, j = 0, int(np.flatnonzero(sizes != sizes[0])[0])  # two classes of other sizes

    def swapped(s: np.ndarray) -> np.ndarray:
        out = s.copy()
        out[[i, j]] = out[[j, i]]
        return out

    forge_chunk(path, 0, "class_size", swapped)
    r = run_cli("histogram", "english33-sym", data=folder)
    one_line_error(r, "d003-000.parquet has row group 0's column class_size", "--force")


def test_a_resume_never_takes_an_edited_figure_of_the_progress_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every figure of a staged file's entry is remembered as the build wrote it: a
    footer or chunk hash edited in progress.json, unchecked by the resume, was
    published in the manifest (the table then refused every read)."""
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))

    class Killed(Exception):
        pass

    def kill_after_6(done: Any) -> None:
        if done.depth == 6:
            raise Killed

    with pytest.raises(Killed):
        build_local(registry.get("2x4"), tmp_path, on_level=kill_after_6)
    progress = tmp_path / ".staging" / "2x4" / "progress.json"
    doc = json.loads(progress.read_text())
    doc["files"][5]["footer_sha256"] = "0" * 64  # depth 5; its file and sha256 intact
    progress.write_text(json.dumps(doc))
    seen: list[int] = []
    build_local(registry.get("2x4"), tmp_path, on_level=lambda d: seen.append(d.depth))
    assert seen[0] == 5
    r = run_cli("solve", "2x4", "1 2 3 4 5 6 0 7", "--json", data=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["moves"] == 1, r.stderr
    assert _manifest(tmp_path, "2x4")["files"][5]["footer_sha256"] != "0" * 64


def test_the_deepest_positions_are_never_read_from_a_forged_page(
    copy_of: Callable[..., Path],
) -> None:
    """``longest`` (and the explorer's table page, the report's boards) read the deepest
    level by pyarrow: a depth-30 position forged into depth 31's page was printed as
    one of the two farthest from the goal, exit 0."""
    folder = copy_of("3x3")
    near = pq.read_table(folder / "3x3" / "d030-000.parquet", columns=["state"]).column(0)
    path = folder / "3x3" / "d031-000.parquet"
    far = pq.read_table(path, columns=["state"]).column(0).to_numpy()
    stray = int(near.to_numpy().min())
    assert stray < far[1]
    forge_chunk(path, 0, "state", lambda s: np.array([stray, s[1]], np.uint64))
    r = run_cli("longest", "3x3", data=folder)
    one_line_error(r, "d031-000.parquet has row group 0's column state", "3x3 --force")
    with pytest.raises(CorruptTable, match=r"d031-000\.parquet has row group 0's"):
        pipeline.open(folder).deepest("3x3", 10)
