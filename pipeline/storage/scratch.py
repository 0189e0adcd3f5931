"""Scratch files: what a build keeps on disk for itself while it runs, never published.

The one module that names, lays out, writes and reads back scratch files, and
refuses one cut short (a disk that filled, a file someone truncated): every
reader checks the bytes it was told were written and raises CorruptTable
rather than hand on fewer rows. None of these files is part of the table's
contract (format.py); their layout may change from one version to the next.

The scratch folder is ``<staging>/spill`` (:func:`folder`: its name since the
first spill files, kept, as tests that plant links in a staging folder or kill
a build mid-spill know it), removed when the build ends; everything in it is
raw native-endian uint64 unless said otherwise:

- ``b00012.bin`` (:class:`Buckets`): the moves of bucket 12 of a level of rows
  (executors/local/spill.py), rows ``(child, parent[, count])``; written in a
  spill run, read back whole once and removed.
- ``slot00003.bin`` (:class:`Slots`): the moves of one bucket of a spill pass
  of packed keys (executors/local/lanes.py): keys, indexed keys ``key << bits
  | row`` (engine/indexed.py) or rows ``(key, count)``; or, for a bucket whose
  keys span less than 2**40, the low 4 bytes of each key's offset from the
  bucket's first key, with the fifth bytes in ``slot00003.top``. Slots are
  overwritten in place from level to level, never truncated (fresh pages are
  slow: :meth:`Slots._open`), so a slot file may be longer than its moves.
- ``counts.bin`` (:class:`Slots`): the path counts of the frontier, chunk by
  chunk in the order a spill pass read them, when its keys carry their
  parent's row in its chunk: read back to join them to their counts again
  (engine/indexed.py).
- ``paths-017.u64`` (:func:`new_counts`): the path counts of level 17 in row
  order, written by the build as the level is (build/resident.py) and read by the
  next step instead of the DECIMAL column (storage/reader.py).
- ``<scratch>-rounds/round0002-s.bin`` and ``-p.bin`` (:class:`Round`): the
  states and the parents of round 2 of a level closed under zero-cost moves
  (executors/closing.py), when the rounds pass the work; mapped back.

Beside it, ``<staging>/.spark`` (:func:`executor_folder`): the level files the Spark
workers write, ``d013/k000/r00002/`` for range 2 of round 0 of depth 13 and
``d013/union/r00002/`` for its rounds united (:func:`level_parts`,
:func:`range_parts`), until the driver moves them into the staging folder.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from pipeline.engine.core import States
from pipeline.errors import CorruptTable

#: The scratch folder's name in a build's staging folder.
FOLDER = "spill"


def folder(staging: Path) -> Path:
    """A build's scratch folder."""
    return staging / FOLDER


def executor_folder(staging: Path, executor: str) -> Path:
    """Where an executor that writes a level's parts itself keeps them until they are
    published into the staging folder (``.spark``: the Spark workers' parts)."""
    return staging / f".{executor}"


def level_parts(staging: Path, executor: str, depth: int) -> Path:
    """Where the workers of an executor that writes parts itself write level ``depth``'s
    before they are published (in :func:`executor_folder`)."""
    return executor_folder(staging, executor) / f"d{depth:03d}"


def range_parts(level: Path, r: int, round: int | None = None) -> Path:
    """A new, empty folder for child range ``r``'s parts of a level (:func:`level_parts`):
    those of round ``round`` of a level closed in rounds, or (None) of the rounds
    united. What a task that ran before left there (a retried task) is removed."""
    out = level / ("union" if round is None else f"k{round:03d}") / f"r{r:05d}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return out


def query_spill(folder: Path) -> Path:
    """Where DuckDB spills a large query (in the read-only connection's own temp folder)."""
    return folder / FOLDER


def rounds_folder(scratch: Path) -> Path:
    """Where a level closed in rounds keeps the rounds past the work: beside the
    scratch folder, removed with the level (the slots in it stay)."""
    return scratch.with_name(scratch.name + "-rounds")


def _cut_short(path: Path | str, what: str) -> CorruptTable:
    return CorruptTable(f"{path}: ends before {what} (scratch file cut short)")


class Buckets:
    """Buckets ``first <= b < last`` of a spill run: rows of ``width`` uint64 appended
    to each bucket's file, then each read back whole once (:meth:`take`) and removed.
    A context manager: what is left is removed on the way out."""

    def __init__(self, scratch: Path, first: int, last: int, width: int) -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        self.width = width
        self.paths = {b: scratch / f"b{b:05d}.bin" for b in range(first, last)}
        self.rows = dict.fromkeys(self.paths, 0)
        self._files: dict[int, BinaryIO] = {}
        for b, path in self.paths.items():
            self._files[b] = open(path, "wb")  # noqa: SIM115 (closed by close)

    def add(self, b: int, rows: np.ndarray) -> None:
        """Rows appended to bucket ``b``'s file."""
        rows.tofile(self._files[b])
        self.rows[b] += len(rows)

    def close(self) -> None:
        """Every file written (before the buckets are read back)."""
        for f in self._files.values():
            f.close()

    def take(self, b: int) -> np.ndarray:
        """Bucket ``b``'s rows, its file removed."""
        path = self.paths.pop(b)
        n = self.rows[b] * self.width
        rows = np.fromfile(path, np.uint64, n)
        path.unlink()
        if len(rows) != n:
            raise _cut_short(path, "its moves")
        return rows if self.width == 1 else rows.reshape(-1, self.width)

    def __enter__(self) -> Buckets:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        for path in self.paths.values():
            path.unlink(missing_ok=True)


class Slots:
    """The slot files of one spill pass of packed keys: slot ``i``'s moves, the fifth
    bytes of the 5-byte slots (``narrow[i]``), and with ``counts`` the frontier's
    path counts chunk by chunk. Written through the context manager, then read
    back slot by slot (``sizes``: the bytes written to each slot)."""

    def __init__(self, scratch: Path, narrow: np.ndarray, counts: bool = False) -> None:
        self.scratch = scratch
        self.sizes: list[int] = []
        self._stack = contextlib.ExitStack()
        self._keys = [self._open(i) for i in range(len(narrow))]
        self._tops = [self._open(i, "top") if f else None for i, f in enumerate(narrow)]
        self._counts = self._open("counts") if counts else None

    def path(self, i: int | str, kind: str = "bin") -> Path:
        """Slot ``i``'s file (``kind`` "top": its fifth bytes), or the counts file."""
        return self.scratch / (f"slot{i:05d}.{kind}" if isinstance(i, int) else f"{i}.{kind}")

    def _open(self, i: int | str, kind: str = "bin") -> BinaryIO:
        """A slot file, open to be written from its start. Slots are overwritten in
        place, never truncated nor removed until the build ends (LocalExecutor.close):
        on this machine writing pages the page cache holds ran at 11 GB/s, while new
        pages (a new or truncated file) ran at 0.7 GB/s and reading them back at 0.4."""
        path = self.path(i, kind)
        if not path.exists():
            self.scratch.mkdir(parents=True, exist_ok=True)
            path.touch()
        return self._stack.enter_context(open(path, "r+b"))

    def write(self, i: int, keys: np.ndarray) -> None:
        self._keys[i].write(keys)

    def write_narrow(self, i: int, low: np.ndarray, high: np.ndarray) -> None:
        """5-byte keys: their low 4 bytes to the slot, their fifth to its ``.top``."""
        self._keys[i].write(low)
        top = self._tops[i]
        assert top is not None, "a narrow slot has its fifth bytes' file"
        top.write(high)

    def write_counts(self, counts: States) -> None:
        """The path counts of the next chunk of the frontier."""
        assert self._counts is not None, "slots made with counts=True"
        self._counts.write(counts)

    def __enter__(self) -> Slots:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sizes = [f.tell() for f in self._keys]
        self._stack.close()

    def read(self, i: int, runs: list[np.ndarray]) -> None:
        """Slot ``i``'s moves read into ``runs`` in turn (views as long as the bytes
        written to it)."""
        path = self.path(i)
        with open(path, "rb") as f:
            for run in runs:
                if f.readinto(run) != run.nbytes:
                    raise _cut_short(path, "its moves")

    def read_narrow(self, i: int, runs: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Slot ``i``'s 5-byte keys read into ``runs`` in turn: (4-byte parts, fifth bytes)."""
        with open(self.path(i), "rb") as low, open(self.path(i, "top"), "rb") as top:
            for keys, high in runs:
                got = low.readinto(keys) + top.readinto(high)
                if got != keys.nbytes + high.nbytes:
                    raise _cut_short(low.name, "its moves")

    def counts(self, first: int, states: int) -> States:
        """The path counts of the frontier's ``states`` states from row ``first`` on."""
        path = self.path("counts")
        counts = np.fromfile(path, np.uint64, states, offset=8 * first)
        if len(counts) != states:
            raise _cut_short(path, "its chunk")
        return counts


class Round:
    """A round's rows past the work: states and parents appended to two files, mapped
    back once the round is done."""

    def __init__(self, rounds: Path, number: int) -> None:
        rounds.mkdir(parents=True, exist_ok=True)
        self.paths = [rounds / f"round{number:04d}-{c}.bin" for c in "sp"]
        self.rows = 0
        self._files = [open(p, "wb") for p in self.paths]  # noqa: SIM115 (closed by mapped)

    def add(self, states: States, parents: States) -> None:
        states.tofile(self._files[0])
        parents.tofile(self._files[1])
        self.rows += len(states)

    def mapped(self) -> tuple[States, States] | None:
        """The round's states and parents, memory-mapped (None: no rows)."""
        for f in self._files:
            f.close()
        if not self.rows:
            return None
        for path in self.paths:
            if path.stat().st_size < 8 * self.rows:
                raise _cut_short(path, "its round")
        s, p = (np.memmap(path, np.uint64, "r", shape=(self.rows,)) for path in self.paths)
        return np.asarray(s), np.asarray(p)


def new_counts(scratch: Path, depth: int) -> tuple[Path, BinaryIO]:
    """A new file for level ``depth``'s path counts, open to be appended to. A new
    file: "x" is O_EXCL, which never follows a link (the scratch folder was made
    new with the staging folder: staging.Progress)."""
    scratch.mkdir(exist_ok=True)
    path = scratch / f"paths-{depth:03d}.u64"
    return path, open(path, "xb")


def mapped_counts(path: Path, states: int) -> States:
    """The path counts of a level of ``states`` states, mapped (its pages are shared
    with the page cache, where the build just wrote them)."""
    if path.stat().st_size < 8 * states:
        raise _cut_short(path, "its level")
    if states == 0:
        return np.empty(0, np.uint64)
    return np.memmap(path, np.uint64, "r", shape=(states,)).view(np.ndarray)


@contextlib.contextmanager
def counts_reader(path: Path) -> Iterator[Callable[[int], States]]:
    """A level's path counts read in order: each call, the next ``n``."""
    with open(path, "rb") as f:

        def take(n: int) -> States:
            counts = np.fromfile(f, np.uint64, n)
            if len(counts) != n:
                raise _cut_short(path, "its level")
            return counts

        yield take
