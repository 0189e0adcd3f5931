"""Path counts beside packed keys (issue 14): the files of the (child, parent,
weight) rows, byte for byte, in memory, in lanes, re-expanded and spilled."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from pipeline import build, puzzles
from pipeline.engine import packed
from pipeline.engine import rows as row_rules
from pipeline.errors import CorruptTable
from pipeline.storage import reader

#: The English board's first levels (7,046,919 positions, 4,138,302 at depth 12).
ENGLISH_DEPTH = 12


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.parquet")}


def _build(name: str, folder: Path, work: int | None = None) -> build.Manifest:
    depth = ENGLISH_DEPTH if name == "english33" else None
    return build.build(puzzles.get(name), folder, paths=True, work=work, max_depth=depth)


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
        ("2x5", 1 << 20, 10),  # spilled buckets (past lanes.REEXPAND)
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
    weigh = packed.Kernels.weigh
    monkeypatch.setattr(
        packed.Kernels,
        "weigh",
        lambda self, keys, *a: weighed.append(len(keys)) or weigh(self, keys, *a),
    )
    m = _build(name, tmp_path, work)
    assert (
        sum(weighed) >= sum(lv.stats.get("pairs", 0) for lv in m.levels) > 0
    )  # every move weighed
    assert max(lv.stats["buckets"] for lv in m.levels) >= buckets
    assert _files(tmp_path / name) == _files(by_rows / name)
    assert len(_files(tmp_path / name)) == m.max_depth + 1


def test_path_sums_add_the_weights_of_each_kept_child_and_see_64_bit_overflow() -> None:
    # Keys are child << 2 | tag: keys 8, 9 and 10 are child 2 (its sum passes 64
    # bits only with the weight 2**64 - 1), key 13 is child 3, key 20 child 5 (not kept).
    top = 2**64 - 1
    a = np.array([[8, 5], [10, 1], [20, 9]], np.uint64)
    b = np.array([[9, 7], [13, 4]], np.uint64)
    kept = np.array([2, 3], np.uint64)
    out = np.empty(2, np.uint64)
    assert packed.path_sums(a, b, np.uint64(2), np.uint64(0), kept, out)
    assert out.tolist() == [13, 4]
    a[1, 1] = top
    assert not packed.path_sums(a, b, np.uint64(2), np.uint64(0), kept, out)
    a[1, 1] = top - 12  # 5 + 7 + 2**64 - 13: exactly the largest
    assert packed.path_sums(a, b, np.uint64(2), np.uint64(0), kept, out)
    assert out.tolist() == [top, 4]


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
    m = build.build(puzzles.get("2x5"), tmp_path, paths=True, work=1 << 20)
    rows = {lv.depth: lv.positions for lv in m.levels}
    assert read and all(size == 8 * rows[depth] for depth, size in read)
    assert not list((tmp_path / "2x5").rglob("*.u64"))


def test_a_raw_count_file_shorter_than_its_level_is_refused(tmp_path: Path) -> None:
    m = build.build(puzzles.get("2x5"), tmp_path, paths=True)
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
