"""Scratch files (storage/scratch.py): each kind read back as written, and each cut
short (a disk that filled, a file someone truncated) refused with one clear error
instead of fewer rows."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from pipeline.engine import indexed
from pipeline.engine import rows as row_rules
from pipeline.engine.buffers import Pool
from pipeline.errors import CorruptTable
from pipeline.executors.local import lanes
from pipeline.storage import scratch


def _cut(path: Path, drop: int = 1) -> None:
    os.truncate(path, path.stat().st_size - drop)


def test_bucket_files_are_read_back_whole_and_refused_cut_short(tmp_path: Path) -> None:
    rows = np.arange(30, dtype=np.uint64).reshape(-1, 3)
    with scratch.Buckets(tmp_path, 2, 5, 3) as buckets:
        buckets.add(2, rows[:4])
        buckets.add(3, rows[4:])
        buckets.add(2, rows[:1])
        buckets.close()
        assert buckets.take(2).tolist() == [*rows[:4].tolist(), rows[0].tolist()]
        assert buckets.take(4).shape == (0, 3)
        _cut(buckets.paths[3], 8)  # a whole row's word short: no row boundary saves it
        with pytest.raises(CorruptTable, match="ends before its moves"):
            buckets.take(3)
    assert not list(tmp_path.iterdir())  # each file removed once read, the rest on the way out


def test_buckets_leave_the_other_scratch_files_alone(tmp_path: Path) -> None:
    """A spill run of rows shares the scratch folder with the slots and the raw path
    counts of the level before: it removes only its own files."""
    path, f = scratch.new_counts(tmp_path, 7)
    f.close()
    with scratch.Buckets(tmp_path, 0, 2, 2) as buckets:
        buckets.add(0, np.ones((2, 2), np.uint64))
    assert list(tmp_path.iterdir()) == [path]


@pytest.fixture
def pool() -> ThreadPoolExecutor:
    with ThreadPoolExecutor(2) as p:
        yield p


@pytest.fixture
def pegs() -> object:
    from pipeline.puzzles.pegs.moves import peg_moves

    k = peg_moves([(0, c) for c in range(5)], [(0, 1, 2), (2, 1, 0)])
    assert k is not None
    return k


def test_a_slot_of_keys_cut_short_is_refused(
    tmp_path: Path, pool: ThreadPoolExecutor, pegs: object
) -> None:
    keys = np.arange(10, dtype=np.uint64)
    plain = row_rules.Rows(row_rules.MoveRules(expand=None, packed=pegs))  # type: ignore[arg-type]
    with scratch.Slots(tmp_path, np.zeros(2, bool)) as slots:
        slots.write(0, keys[:4])
        slots.write(0, keys[4:])
    assert slots.sizes == [80, 0]
    (a, b), _, _ = lanes._read_slot(pool, slots, 0, plain, Pool(0), None)
    assert np.concatenate([a, b]).tolist() == keys.tolist()
    _cut(slots.path(0), 3)
    with pytest.raises(CorruptTable, match="ends before its moves"):
        lanes._read_slot(pool, slots, 0, plain, Pool(0), None)


def test_a_slot_of_indexed_moves_cut_short_is_refused(
    tmp_path: Path, pool: ThreadPoolExecutor, pegs: object
) -> None:
    index = indexed.Index(12)
    index.add(3, [0, 12])  # one chunk of 3 states, 12 moves to slot 0
    rules = row_rules.MoveRules(None, pegs, weights=True)  # type: ignore[arg-type]
    indexed_runs = row_rules.Rows(rules, 3)
    assert indexed_runs.low == 64 - 12  # five holes and 7 bits of jump
    with scratch.Slots(tmp_path, np.zeros(1, bool)) as slots:
        slots.write(0, np.arange(12, dtype=np.uint64) % np.uint64(3))
    counts = np.ones(3, np.uint64)
    runs, _, tables = lanes._read_slot(pool, slots, 0, indexed_runs, Pool(0), index, counts)
    assert sum(len(r) for r in runs) == 12 and tables is not None
    _cut(slots.path(0), 16)
    with pytest.raises(CorruptTable, match="ends before its moves"):
        lanes._read_slot(pool, slots, 0, indexed_runs, Pool(0), index, counts)


@pytest.mark.parametrize("kind", ["bin", "top"])
def test_a_slot_of_5_byte_keys_cut_short_is_refused(
    tmp_path: Path, pool: ThreadPoolExecutor, pegs: object, kind: str
) -> None:
    """5-byte keys: 4 in the slot, 1 in its .top, offsets from the bucket's first key."""
    plain = row_rules.Rows(row_rules.MoveRules(expand=None, packed=pegs))  # type: ignore[arg-type]
    keys = np.arange(10, dtype=np.uint64)
    base = 1 << 41
    with scratch.Slots(tmp_path, np.array([False, True])) as slots:
        slots.write_narrow(1, keys.astype(np.uint32), np.ones(10, np.uint8))
    assert slots.sizes == [0, 40]
    (a, b), _, _ = lanes._read_slot(pool, slots, 1, plain, Pool(0), None, None, base)
    assert np.concatenate([a, b]).tolist() == (keys + np.uint64(base + (1 << 32))).tolist()
    _cut(slots.path(1, kind))
    with pytest.raises(CorruptTable, match="ends before its moves"):
        lanes._read_slot(pool, slots, 1, plain, Pool(0), None, None, base)


def test_a_counts_file_shorter_than_its_chunks_is_refused(tmp_path: Path) -> None:
    """Keys joined to counts from the pass's counts file that ends early: one clear
    error, not counts read past its end."""
    with scratch.Slots(tmp_path, np.zeros(1, bool), counts=True) as slots:
        slots.write_counts(np.arange(100, dtype=np.uint64))
    index = indexed.Index(12)
    index.add(60, [0, 3])  # chunk 0: rows 0..59, three keys to slot 0
    index.add(60, [0, 2])  # chunk 1: rows 60..119 (past the file's 100), two keys
    keys = np.array([1, 2, 59, (7 << 12) | 4, (9 << 12) | 5], np.uint64)
    flat = np.zeros(10, np.uint64)
    flat[5:] = keys
    with pytest.raises(CorruptTable, match="ends before its chunk"):
        index.attach(flat, 0, 0, slots.counts)
    with scratch.Slots(tmp_path, np.zeros(1, bool), counts=True) as slots:
        slots.write_counts(np.arange(120, dtype=np.uint64))  # written over, from its start
    flat[5:] = keys  # the failed join overwrote some in place
    rows = index.attach(flat, 0, 0, slots.counts)
    assert rows.tolist() == [[0, 1], [0, 2], [0, 59], [7, 64], [9, 65]]


@pytest.mark.parametrize("column", [0, 1])  # states, parents
def test_a_round_cut_short_is_refused(tmp_path: Path, column: int) -> None:
    states, parents = np.arange(5, dtype=np.uint64), np.arange(5, 10, dtype=np.uint64)
    kept = scratch.Round(tmp_path, 3)
    kept.add(states[:2], parents[:2])
    kept.add(states[2:], parents[2:])
    got = kept.mapped()
    assert got is not None
    assert got[0].tolist() == states.tolist() and got[1].tolist() == parents.tolist()
    assert isinstance(got[0].base, np.memmap)
    del got
    short = scratch.Round(tmp_path, 4)
    short.add(states, parents)
    short._files[column].flush()
    _cut(short.paths[column], 8)
    with pytest.raises(CorruptTable, match="ends before its round"):
        short.mapped()
    assert scratch.Round(tmp_path, 5).mapped() is None  # no rows: nothing mapped


def test_a_levels_raw_counts_cut_short_are_refused(tmp_path: Path) -> None:
    counts = np.arange(1, 7, dtype=np.uint64)
    path, f = scratch.new_counts(tmp_path, 17)
    f.write(counts)  # type: ignore[arg-type]
    f.close()
    assert path.name == "paths-017.u64"
    with pytest.raises(FileExistsError):
        scratch.new_counts(tmp_path, 17)  # a new file, never one left over
    assert scratch.mapped_counts(path, 6).tolist() == counts.tolist()
    with scratch.counts_reader(path) as take:
        assert take(4).tolist() + take(2).tolist() == counts.tolist()
    _cut(path, 8)
    with pytest.raises(CorruptTable, match="ends before its level"):
        scratch.mapped_counts(path, 6)
    with scratch.counts_reader(path) as take:
        take(4)
        with pytest.raises(CorruptTable, match="ends before its level"):
            take(2)
