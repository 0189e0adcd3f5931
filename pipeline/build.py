"""Building a table: the engine's levels written to Parquet, safely.

A build works in ``<data>/.staging/<name>/`` under an OS lock (flock, released
by the kernel when the process dies, so kill -9 leaves no stale lock). After
each level it records the finished levels in ``progress.json``; a rerun of an
interrupted build resumes after the last finished level. When the search ends
it writes the manifest last and swaps the staging folder into ``<data>/<name>``
in one rename, so readers see the old complete table or the new one.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import fcntl
import json
import os
import platform
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline import bfs
from pipeline.buffers import Columns, Pool, owner
from pipeline.errors import BuildLocked, DiskFull
from pipeline.puzzles.base import Puzzle
from pipeline.store import (
    FORMAT_VERSION,
    MANIFEST,
    join_parts,
    read_level_file,
    write_json_atomic,
    write_level,
)

PROGRESS = "progress.json"
#: Levels whose files may still be being written while the next one is computed.
WRITE_LAG = 2
#: Kept free on the disk beyond the estimate of the next level.
DISK_MARGIN = 64 << 20


@dataclass(frozen=True)
class LevelDone:
    """Reported after each level is on disk."""

    depth: int
    positions: int
    total: int
    seconds: float
    #: How the level was made (0 when built by the in-memory search).
    buckets: int = 0
    level_seconds: float = 0.0


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("puzzledb")
    except PackageNotFoundError:
        return "dev"


@contextlib.contextmanager
def build_lock(data: Path, name: str) -> Iterator[None]:
    """Hold the build lock of one table; refuse at once if another build holds it."""
    lock_dir = data / ".staging"
    lock_dir.mkdir(parents=True, exist_ok=True)
    path = lock_dir / f"{name}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            raise BuildLocked(
                f"{name} is being built by another process (pid {holder}); "
                "wait for it or stop it, then run the build again"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    if platform.system() != "Linux":
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return rc == 0


def _swap_into_place(staging: Path, target: Path) -> None:
    if not target.exists():
        os.rename(staging, target)
        return
    if _exchange(staging, target):
        shutil.rmtree(staging)  # now holds the old table
        return
    old = staging.with_name(staging.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    os.rename(target, old)
    os.rename(staging, target)
    shutil.rmtree(old)


def _load_level(staging: Path, files: list[dict[str, Any]], depth: int) -> bfs.Level:
    parts = [read_level_file(staging / f["name"]) for f in files if f["depth"] == depth]
    return join_parts(depth, parts)


def _check_disk(where: Path, last_bytes: int, growth: float) -> None:
    need = int(last_bytes * max(growth, 1.0) * 1.5) + DISK_MARGIN
    free = shutil.disk_usage(where).free
    if free < need:
        raise DiskFull(
            f"only {free >> 20} MiB free under {where}, the next level needs about "
            f"{need >> 20} MiB; finished levels are kept: free some space and rerun to resume"
        )


def build(
    puzzle: Puzzle,
    data: Path,
    *,
    force: bool = False,
    paths: bool = False,
    on_level: Callable[[LevelDone], None] | None = None,
    memory: int | str | None = None,
    work: int | None = None,
) -> dict[str, Any]:
    """Build (or resume, or with ``force`` rebuild aside) one table; return its manifest.

    With ``paths`` the table gets the path-count column; a built table without
    it is rebuilt aside (all files of a table keep the same columns).

    ``memory`` is the budget for the whole process (default 3GB): levels whose
    expansion would not fit are split into buckets (pipeline.bucketed); the
    rows are the same whatever the budget. ``work`` sets the bytes of the level
    step directly instead (tests use it to force many buckets on small boards).
    """
    target = data / puzzle.name
    if (target / MANIFEST).exists() and not force:
        manifest = json.loads((target / MANIFEST).read_text())
        if not paths or "paths" in manifest.get("columns", {}):
            return manifest
    puzzle = puzzle.bind(data)  # a derived table reads the tables it comes from
    with build_lock(data, puzzle.name):
        if puzzle.expand_free is not None:
            return _build_locked(puzzle, data, target, on_level, paths, memory)
        return _build_budgeted(puzzle, data, target, on_level, memory, work, paths)


def _open_progress(puzzle: Puzzle, staging: Path, paths: bool = False) -> dict[str, Any]:
    """The progress of an interrupted build of the same puzzle, or a fresh staging folder.

    A build with other columns (``paths``) never resumes from it.
    """
    describe = puzzle.describe()
    progress: dict[str, Any] | None = None
    if (staging / PROGRESS).exists():
        with contextlib.suppress(OSError, ValueError):
            progress = json.loads((staging / PROGRESS).read_text())
        if (
            not progress
            or progress.get("puzzle") != describe
            or progress.get("format_version") != FORMAT_VERSION
            or progress.get("paths", False) != paths
        ):
            progress = None
    if progress is None:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        progress = {
            "format_version": FORMAT_VERSION,
            "table": puzzle.name,
            "puzzle": describe,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "levels": [],
            "files": [],
            "seconds": 0.0,
            "paths": paths,
        }
    # Anything not recorded as finished is a leftover of a killed level.
    kept = {f["name"] for f in progress["files"]} | {PROGRESS}
    for p in staging.iterdir():
        if p.name not in kept:
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
    return progress


def _metadata(puzzle: Puzzle) -> dict[str, str]:
    return {
        "puzzledb.format_version": str(FORMAT_VERSION),
        "puzzledb.table": puzzle.name,
        "puzzledb.puzzle": puzzle.name,
        "puzzledb.encoding": puzzle.encoding,
    }


def _exclude_depths(graph: bfs.Graph, depth: int) -> list[int]:
    """The finished levels a level after ``depth`` is checked against."""
    if graph is bfs.Graph.BIPARTITE:
        return [depth - 1] if depth > 0 else []
    if graph is bfs.Graph.REVERSIBLE:
        return [d for d in (depth - 1, depth) if d >= 0]
    if graph is bfs.Graph.LAYERED:
        return []
    return list(range(depth + 1))


def _build_budgeted(
    puzzle: Puzzle,
    data: Path,
    target: Path,
    on_level: Callable[[LevelDone], None] | None,
    memory: int | str | None,
    work: int | None,
    paths: bool = False,
) -> dict[str, Any]:
    """The build loop over finished levels on disk, each step within the budget."""
    from pipeline import bucketed
    from pipeline.store import FILE_ROWS, LevelWriter

    budget = bucketed.parse_memory(memory if memory is not None else bucketed.DEFAULT_MEMORY)
    if work is None:
        # The writer holds up to three parts in flight; the rest is for the step.
        # (less a tenth of the budget, at least 256 MiB, for what no estimate
        # sees: allocator slack, Arrow's buffers while a part is read or
        # written. Arrow's mimalloc keeps freed blocks a while, which spares the
        # writers fresh pages; it kept 0.15 GiB more than glibc in a 1GB build.)
        fixed = bucketed.rss() + 3 * store_part_bytes()
        work = budget - max(budget // 10, 256 << 20) - fixed
        if work < (64 << 20):
            raise bucketed.BadMemory(
                f"a memory budget of {budget >> 20} MiB leaves no room to work "
                f"(this process already uses {bucketed.rss() >> 20} MiB): give at least "
                f"{(fixed + (64 << 20) + (256 << 20)) >> 20}MB"
            )
    staging = data / ".staging" / puzzle.name
    progress = _open_progress(puzzle, staging, paths)
    metadata = _metadata(puzzle)
    spill = staging / "spill"
    # Compiled moves serve levels of PACKED_MIN states or more; a smaller build
    # never imports numba nor compiles anything (the rows are the same).
    packed = not paths and puzzle.moves_possible
    # Big buffers (keys, rows, the levels' columns) are reused from one step to
    # the next: writing fresh pages costs far more (buffers.py).
    pool = Pool(0)
    owned: dict[int, list[np.ndarray]] = {}  # depth -> the pooled buffers its columns are in

    levels: dict[int, bucketed.Stored] = {}

    def stored(depth: int) -> bucketed.Stored:
        if depth not in levels:
            files = [f for f in progress["files"] if f["depth"] == depth]
            levels[depth] = bucketed.Stored(depth, staging, files)
        return levels[depth]

    total = sum(lv["positions"] for lv in progress["levels"])
    clock = time.perf_counter()

    last_record = time.perf_counter()

    def record(
        depth: int,
        entries: list[dict[str, Any]],
        started: float,
        extra: dict,
        computed: float | None = None,
    ) -> None:
        """Note a level whose files are all written (``computed``: when its rows were)."""
        nonlocal total, last_record
        rows = sum(e["rows"] for e in entries)
        total += rows
        now = time.perf_counter()
        computed = now if computed is None else computed
        progress["levels"].append(
            {"depth": depth, "positions": rows, "seconds": round(computed - started, 4), **extra}
        )
        progress["files"].extend(entries)
        progress["seconds"] = round(progress["seconds"] + now - last_record, 4)
        last_record = now
        write_json_atomic(staging / PROGRESS, progress, indent=None)
        if on_level:
            on_level(
                LevelDone(
                    depth, rows, total, now - clock, extra.get("buckets", 1), computed - started
                )
            )

    # Two writers: compressing a part takes about as long as computing it.
    with ThreadPoolExecutor(max_workers=2) as writers:
        if not progress["levels"]:
            started = time.perf_counter()
            roots = bfs.roots_level(puzzle.roots())
            if paths:
                roots = bfs.Level(0, roots.states, roots.parents, np.ones(len(roots), np.uint64))
            record(0, write_level(staging, roots, metadata), started, {"buckets": 1})
            levels[0] = bucketed.Stored(
                0, staging, progress["files"][:], roots.states, roots.parents, roots.paths
            )
        # A level kept in memory is recorded once its files are written, which
        # goes on while the next levels are computed (a killed build resumes from
        # the last recorded level). Levels are recorded in order.
        writing: list[tuple[int, LevelWriter, float, float, dict[str, Any]]] = []

        def settle(lag: int = 0) -> None:
            """Record the written levels; wait while more than ``lag`` are in flight."""
            while writing and (len(writing) > lag or writing[0][1].done()):
                done_depth, done_writer, started, computed, extra = writing.pop(0)
                entries = done_writer.close()
                extra["write_wait_seconds"] = round(done_writer.seconds, 4)
                extra["written_after_seconds"] = round(time.perf_counter() - computed, 4)
                record(done_depth, entries, started, extra, computed)
                if done_depth in levels:
                    levels[done_depth].files = list(entries)

        depth = progress["levels"][-1]["depth"]
        size = progress["levels"][-1]["positions"]
        prev = progress["levels"][-2]["positions"] if len(progress["levels"]) > 1 else 0
        per_state = 4.0  # moves per state of the level before (a guess until one is made)
        while size:
            current = stored(depth)
            exclude = [stored(d) for d in _exclude_depths(puzzle.graph, depth)]
            growth = size / max(1, prev)
            guess = int(size * max(growth, 1.0))
            # Levels held: those kept, and those whose parts still wait for a writer.
            in_memory = sum(
                len(lv) * bucketed.STATE_BYTES for lv in levels.values() if lv.states is not None
            ) + sum(w[1].rows * bucketed.STATE_BYTES for w in writing if w[0] not in levels)
            # Keep the new level in memory when it and the step after it fit.
            moves = None
            if packed and size >= bucketed.PACKED_MIN:
                before = bucketed.rss()
                # The first time: numba and the kernels load, and the threaded step
                # begins (small builds keep glibc's default, which faults less).
                bucketed.give_back_freed_memory()
                moves = puzzle.moves
                work -= max(0, bucketed.rss() - before)
            move_bytes = bucketed.KEY_BYTES if moves else bucketed.PAIR_BYTES
            step = guess * (bucketed.STATE_BYTES + per_state * move_bytes)
            keep = in_memory + step <= work
            # Free buffers kept for reuse stay within what the step leaves of the
            # work (a level not kept goes in buckets that reuse about half).
            pool.trim(int(work - in_memory - step if keep else (work - in_memory) // 2))
            # The next level's files, plus the spill of its buckets (16 bytes a move).
            last_bytes = sum(f["bytes"] for f in current.files) or size * 6
            _check_disk(staging, last_bytes + size * 48, growth)
            started = time.perf_counter()
            # A kept level's parts are views of arrays kept anyway: queue them all and
            # go on with the next level while they are written.
            writer = LevelWriter(
                staging, depth + 1, metadata, writers.submit, pending=None if keep else 2
            )
            # The packed step lends its rows (pooled buffers): a kept level is
            # copied into pooled columns, handed to the writer a part at a time as
            # views. Otherwise the writer, and a kept level, take the runs as they are.
            columns = None
            if keep and moves is not None:
                columns = Columns(pool, 3 if paths else 2, int(guess * 1.15))
            runs: list[tuple[np.ndarray, ...]] | None = [] if keep and moves is None else None
            handed = [0]

            def sink(
                states: np.ndarray,
                parents: np.ndarray,
                sums: np.ndarray | None,
                writer: LevelWriter = writer,
                columns: Columns | None = columns,
                runs: list[tuple[np.ndarray, ...]] | None = runs,
                handed: list[int] = handed,
            ) -> bool:
                run = (states, parents) if sums is None else (states, parents, sums)
                if columns is None:
                    writer.add(*run)
                    if runs is not None:
                        runs.append(run)
                    return False  # the arrays are kept as they are
                columns.add(*run)
                while columns.rows - handed[0] >= FILE_ROWS:
                    writer.add(*(c[handed[0] : handed[0] + FILE_ROWS] for c in columns.arrays()))
                    handed[0] += FILE_ROWS
                return True

            stats = bucketed.next_level(
                current,
                exclude,
                puzzle.expand,
                work,
                spill,
                sink,
                kept=in_memory + (guess * bucketed.STATE_BYTES if keep else 0),
                weights=paths,
                moves=moves,
                skip_back=puzzle.graph is not bfs.Graph.LAYERED,
                buffers=pool,
            )
            cols: list[np.ndarray | None] = [None, None, None]
            if columns is not None:
                arrays = columns.arrays()
                if columns.rows > handed[0]:
                    writer.add(*(c[handed[0] :] for c in arrays))
                cols[: len(arrays)] = arrays
                owned[depth + 1] = columns.owned
            elif runs:
                for i, c in enumerate(zip(*runs, strict=True)):
                    cols[i] = np.concatenate(c) if len(c) > 1 else c[0]
            del runs
            if not (packed and puzzle.graph is not bfs.Graph.LAYERED):
                cols[1] = None  # parents serve only to skip the move back
            if not writer.rows:
                for e in writer.close():
                    (staging / e["name"]).unlink()
                break
            writer.finish()
            levels[depth + 1] = bucketed.Stored(depth + 1, staging, [], *cols)
            writing.append(
                (
                    depth + 1,
                    writer,
                    started,
                    time.perf_counter(),
                    {
                        "buckets": stats.buckets,
                        "pairs": stats.pairs,
                        "expand_seconds": round(stats.expand, 4),
                        "dedup_seconds": round(stats.dedup, 4),
                        "rss_mib": bucketed.rss() >> 20,
                        "kept": keep,
                    },
                )
            )
            # Up to two levels in flight (their arrays are kept anyway); none when
            # the next step reads this level back from its files.
            settle(WRITE_LAG if keep else 0)
            needed = {depth + 1, *_exclude_depths(puzzle.graph, depth + 1)}
            for d in list(levels):
                if d not in needed:
                    del levels[d]
                elif d != depth + 1:
                    # Kept for dedup only: the states suffice, and only those of the
                    # last level stay in memory (older ones are read by range).
                    levels[d].parents = levels[d].paths = None
                    if d != depth and all(w[0] != d for w in writing):
                        levels[d].states = None  # on disk: read back by range
            del current, exclude
            _release(owned, levels, {w[0] for w in writing}, pool)
            per_state = max(1.0, stats.pairs / size)
            depth, prev, size = depth + 1, size, writer.rows
        settle()

    shutil.rmtree(spill, ignore_errors=True)
    manifest = _manifest(puzzle, progress)
    write_json_atomic(staging / MANIFEST, manifest)
    (staging / PROGRESS).unlink()
    _swap_into_place(staging, target)
    return manifest


def _release(
    owned: dict[int, list[np.ndarray]],
    levels: dict[int, Any],
    writing: set[int],
    pool: Pool,
) -> None:
    """Give back the buffers of levels no longer held in memory nor being written."""
    for d in list(owned):
        if d in writing:
            continue
        level = levels.get(d)
        held = [] if level is None else [level.states, level.parents, level.paths]
        bases = {id(owner(a)) for a in held if a is not None}
        pool.give(*(b for b in owned[d] if id(owner(b)) not in bases))
        owned[d] = [b for b in owned[d] if id(owner(b)) in bases]
        if not owned[d]:
            del owned[d]


def store_part_bytes() -> int:
    """Memory of one part in flight to the writer: the buffered runs it is cut from,
    the Arrow copy of the parents with their null mask, the compressed output
    (measured: 24 bytes a row let a 1GB build of 3x4 peak at 1.19 GiB)."""
    from pipeline.store import FILE_ROWS

    return FILE_ROWS * 40


def _build_locked(
    puzzle: Puzzle,
    data: Path,
    target: Path,
    on_level: Callable[[LevelDone], None] | None,
    paths: bool = False,
    memory: int | str | None = None,
) -> dict[str, Any]:
    """The in-memory build (whole levels through bfs.search).

    For puzzles with zero-cost moves and for path counts, which are not split
    into buckets yet.
    """
    from pipeline import bucketed

    budget = bucketed.parse_memory(memory if memory is not None else bucketed.DEFAULT_MEMORY)
    staging = data / ".staging" / puzzle.name
    progress = _open_progress(puzzle, staging, paths)
    metadata = _metadata(puzzle)
    done_depths = [lv["depth"] for lv in progress["levels"]]
    resume = [
        _load_level(staging, progress["files"], d)
        for d in done_depths
        if d == done_depths[-1] or d in _exclude_depths(puzzle.graph, done_depths[-1])
    ]
    total = sum(lv["positions"] for lv in progress["levels"])
    clock = time.perf_counter()
    last = clock
    levels = bfs.search(
        puzzle.roots(),
        puzzle.expand,
        puzzle.graph,
        puzzle.expand_free,
        resume=resume,
        paths=paths,
    )
    with ThreadPoolExecutor(max_workers=1) as writer:
        pending: tuple[bfs.Level, Future[list[dict[str, Any]]]] | None = None

        def settle() -> None:
            nonlocal total, last
            assert pending is not None
            level, future = pending
            entries = future.result()
            total += len(level)
            now = time.perf_counter()
            progress["levels"].append(
                {"depth": level.depth, "positions": len(level), "seconds": round(now - last, 4)}
            )
            progress["files"].extend(entries)
            progress["seconds"] = round(progress["seconds"] + now - last, 4)
            last = now
            write_json_atomic(staging / PROGRESS, progress, indent=None)
            if on_level:
                on_level(LevelDone(level.depth, len(level), total, now - clock))

        last_bytes, growth = 0, 1.0
        for level in levels:
            # Zero-cost moves (0-1 BFS) are not split into buckets yet: stop cleanly
            # before a level whose expansion would not fit (finished levels are kept).
            need = len(level) * bucketed.PAIR_BYTES * 4
            if need > budget:
                raise bucketed.BadMemory(
                    f"{puzzle.name}: depth {level.depth + 1} would need about {need >> 20} MiB "
                    "and levels with zero-cost moves or path counts are not split into "
                    f"buckets yet: raise --memory above {budget >> 20} MiB"
                )
            if pending is not None:
                settle()
                prev = pending[0]
                growth = len(level) / max(1, len(prev))
                last_bytes = sum(f["bytes"] for f in progress["files"][-1:])
            _check_disk(staging, max(last_bytes, len(level) * 8), growth)
            pending = (level, writer.submit(write_level, staging, level, metadata))
        if pending is not None:
            settle()

    manifest = _manifest(puzzle, progress)
    write_json_atomic(staging / MANIFEST, manifest)
    (staging / PROGRESS).unlink()
    _swap_into_place(staging, target)
    return manifest


def _manifest(puzzle: Puzzle, progress: dict[str, Any]) -> dict[str, Any]:
    levels = progress["levels"]
    for lv in levels:
        lv["files"] = [f["name"] for f in progress["files"] if f["depth"] == lv["depth"]]
    max_depth = levels[-1]["depth"]
    return {
        "format_version": FORMAT_VERSION,
        "table": puzzle.name,
        "puzzle": puzzle.describe(),
        "columns": {
            "state": "uint64: the position, in the encoding above",
            "depth": "uint8: fewest moves from the roots",
            "parent": "uint64: the smallest state one move nearer the roots (null at the roots)",
            **(
                {"paths": "decimal(38,0): move sequences from the roots along shortest paths"}
                if progress.get("paths")
                else {}
            ),
        },
        "total": sum(lv["positions"] for lv in levels),
        "max_depth": max_depth,
        "max_depth_positions": levels[-1]["positions"],
        "levels": levels,
        "files": progress["files"],
        "build": {
            "started": progress["started"],
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": progress["seconds"],
        },
        "versions": {
            "puzzledb": _package_version(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pyarrow": pa.__version__,
        },
    }
