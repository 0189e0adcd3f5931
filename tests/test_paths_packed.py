"""Path counts beside packed keys (issue 14): the files of the (child, parent,
weight) rows, byte for byte, in memory, in lanes, re-expanded and spilled."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from pipeline.build import loop as build
from pipeline.engine import indexed, packed
from pipeline.engine import rows as row_rules
from pipeline.errors import CorruptTable
from pipeline.executors.local import lanes
from pipeline.puzzles import registry as puzzles
from pipeline.storage import reader
from tests.conftest import build_local

#: The English board's first levels (7,046,919 positions, 4,138,302 at depth 12).
ENGLISH_DEPTH = 12


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.parquet")}


def _build(name: str, folder: Path, work: int | None = None) -> build.Manifest:
    depth = ENGLISH_DEPTH if name == "english33" else None
    return build_local(puzzles.get(name), folder, paths=True, work=work, max_depth=depth)


@pytest.fixture(scope="module")
def by_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tables built on (child, parent, weight) rows, sorted by argsort."""
    folder = tmp_path_factory.mktemp("rows")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(row_rules, "PACKED_MIN", 1 << 62)
        for name in ("2x5", "triangle15", "english33"):
            _build(name, folder)
    return folder


@pytest.mark.parametrize(
    ("name", "work", "buckets"),
    [
        ("2x5", None, 1),  # in memory, two lanes
        ("2x5", 1 << 20, 10),  # spilled buckets (past lanes.REEXPAND_KEYS)
        ("triangle15", None, 1),
        ("english33", None, 1),
        ("english33", 24 << 20, 8),
    ],
)
def test_packed_keys_carry_the_path_counts_of_the_rows(
    by_rows: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    work: int | None,
    buckets: int,
) -> None:
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    weighed = []
    for name_ in ("weigh", "index"):  # rows (key, count), or indexed moves
        kernel = getattr(packed.Kernels, name_)
        monkeypatch.setattr(
            packed.Kernels,
            name_,
            lambda self, keys, *a, f=kernel: weighed.append(len(keys)) or f(self, keys, *a),
        )
    m = _build(name, tmp_path, work)
    assert (
        sum(weighed) >= sum(lv.stats.get("pairs", 0) for lv in m.levels) > 0
    )  # every move weighed
    assert max(lv.stats["buckets"] for lv in m.levels) >= buckets
    assert _files(tmp_path / name) == _files(by_rows / name)
    assert len(_files(tmp_path / name)) == m.max_depth + 1


def test_a_spill_of_rows_leaves_the_raw_counts_of_its_frontier(
    by_rows: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Levels shrinking past PACKED_MIN: a level made from packed keys (its counts
    written raw to the scratch folder) is expanded as rows, spilled in buckets into
    the same folder. The spill removes only its own files (it used to empty the
    folder, and the build stopped: "No such file or directory: paths-038.u64")."""
    monkeypatch.setattr(row_rules, "PACKED_MIN", 120_000)
    m = _build("2x5", tmp_path, 1 << 20)
    sizes = [lv.positions for lv in m.levels]
    crossed = [
        d
        for d in range(2, len(sizes))
        if sizes[d - 2] >= 120_000 > sizes[d - 1] and m.levels[d].stats["buckets"] > 4
    ]
    assert crossed  # a level of rows spilled right after one of packed keys
    assert _files(tmp_path / "2x5") == _files(by_rows / "2x5")


def test_spilled_keys_find_their_counts_again_by_their_parents_row(
    by_rows: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spilled peg key carries its parent's row in its chunk (12 bits here, so chunks
    of 4,096 rows and many of them in each half of a slot): every spilled move is
    joined to its count again, and the files are those of the rows."""
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    monkeypatch.setattr(row_rules.Rows, "spare_bits", lambda self: 12 if self.counted else 0)
    joined = []
    attach = indexed.Index.attach
    monkeypatch.setattr(
        indexed.Index,
        "attach",
        lambda self, flat, *a: joined.append(len(flat) // 2) or attach(self, flat, *a),
    )
    m = _build("english33", tmp_path, 24 << 20)
    spilled = [
        lv.stats["pairs"] for lv in m.levels if lv.stats.get("buckets", 1) > lanes.REEXPAND_KEYS
    ]
    assert sum(joined) == sum(spilled) > 1_000_000
    assert _files(tmp_path / "english33") == _files(by_rows / "english33")


def test_indexed_runs_from_a_level_on_file_count_each_chunk_on(
    by_rows: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every bucket re-expanded, a level read back from its files comes in chunks of
    row groups (262,144 rows), the first half of them to one run and the rest to
    the other: each run's table is its half of the level's counts, each move's
    row moved up by the chunks before its own. The files are those of the rows."""
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    monkeypatch.setattr(lanes, "REEXPAND_KEYS", 1 << 10)
    halves = []
    two_runs = lanes._two_runs

    def spy(*args: object) -> object:
        got = two_runs(*args)
        halves.append(got[2])
        return got

    monkeypatch.setattr(lanes, "_two_runs", spy)
    m = _build("english33", tmp_path, 24 << 20)
    assert max(lv.stats["buckets"] for lv in m.levels) > 2  # re-expanded, not spilled
    assert max(halves) > 262_144  # a run of more than one chunk
    assert _files(tmp_path / "english33") == _files(by_rows / "english33")


def test_the_resolve_sums_each_kept_childs_weights_and_sees_64_bit_overflow() -> None:
    """On a line of five holes (jumps 0: 0 over 1 to 2, 1: 1 over 2 to 3, 2: 2 over 3
    to 4, then the same three reversed), keys are child << 7 | jump."""
    from pipeline.puzzles.pegs.moves import peg_moves

    line = [(0, c) for c in range(5)]
    forward = [(0, 1, 2), (1, 2, 3), (2, 3, 4)]
    k = peg_moves(line, forward + [(t, o, f) for f, o, t in forward])
    assert k is not None
    top = 2**64 - 1

    def key(child: int, jump: int) -> int:
        return child << 7 | jump

    # Child 0b00100 from 0b00011 (jump 0) and 0b11000 (jump 5); 0b01000 from
    # 0b00110 (jump 1); 0b10001, excluded, from 0b01101 (jump 2) and 0b10110 (jump 3).
    a = np.array([[key(0b00100, 0), 5], [key(0b01000, 1), 1], [key(0b10001, 2), top]], np.uint64)
    b = np.array([[key(0b00100, 5), 7], [key(0b10001, 3), 1]], np.uint64)
    excluded = (np.array([0b10001], np.uint64),)
    children, parents, sums = k.resolve_counted(a, excluded, b)
    assert children.tolist() == [0b00100, 0b01000]  # the excluded sum passes 64 bits unseen
    assert parents.tolist() == [0b00011, 0b00110]
    assert sums.tolist() == [12, 1]
    a[0, 1] = top - 7  # 7 + 2**64 - 8: exactly the largest
    assert k.resolve_counted(a, excluded, b)[2].tolist() == [top, 1]
    a[0, 1] = top - 6
    with pytest.raises(OverflowError):
        k.resolve_counted(a, excluded, b)


def test_a_level_not_kept_hands_its_counts_on_raw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next step reads the counts of a level not kept from the raw file the build
    wrote beside it, not from the DECIMAL column; the raw file goes with its level."""
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    read = []
    chunks = reader.LevelFiles.chunks

    def spy(self: reader.LevelFiles, rows: int, parents: bool = False, counts: bool = False):
        if counts:
            read.append((self.depth, self.raw_counts and self.raw_counts.stat().st_size))
        return chunks(self, rows, parents, counts)

    monkeypatch.setattr(reader.LevelFiles, "chunks", spy)
    m = build_local(puzzles.get("2x5"), tmp_path, paths=True, work=1 << 20)
    rows = {lv.depth: lv.positions for lv in m.levels}
    assert read and all(size == 8 * rows[depth] for depth, size in read)
    assert not list((tmp_path / "2x5").rglob("*.u64"))


def test_a_raw_count_file_shorter_than_its_level_is_refused(tmp_path: Path) -> None:
    m = build_local(puzzles.get("2x5"), tmp_path, paths=True)
    depth = m.max_depth // 2
    files = [f for f in m.files if f.depth == depth]
    level = reader.LevelFiles(tmp_path / "2x5", depth, files)
    counts = np.concatenate([c[2] for c in level.chunks(1 << 20, counts=True)])
    raw = tmp_path / "paths.u64"
    counts.tofile(raw)
    level.raw_counts = raw
    assert np.array_equal(
        np.concatenate([c[2] for c in level.chunks(1 << 20, counts=True)]), counts
    )
    counts[:-1].tofile(raw)
    with pytest.raises(CorruptTable, match="ends before its level"):
        list(level.chunks(1 << 20, counts=True))


def test_a_levels_counts_for_indexed_runs_are_the_raw_file_or_the_decoded_column(
    tmp_path: Path,
) -> None:
    """The tables of indexed runs are slices of ``path_counts``: the raw file mapped
    when the build left one, else the DECIMAL column decoded; a short raw file is
    refused, not mapped past its end."""
    m = build_local(puzzles.get("2x5"), tmp_path, paths=True)
    depth = m.max_depth // 2
    level = reader.LevelFiles(tmp_path / "2x5", depth, [f for f in m.files if f.depth == depth])
    decoded = level.path_counts()
    assert len(decoded) == m.levels[depth].positions and decoded.min() >= 1
    raw = tmp_path / "paths.u64"
    decoded.tofile(raw)
    level.raw_counts = raw
    assert np.array_equal(level.path_counts(), decoded)
    decoded[:-1].tofile(raw)
    with pytest.raises(CorruptTable, match="ends before its level"):
        level.path_counts()
