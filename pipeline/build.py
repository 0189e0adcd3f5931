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
#: Kept free on the disk beyond the estimate of the next level.
DISK_MARGIN = 64 << 20


@dataclass(frozen=True)
class LevelDone:
    """Reported after each level is on disk."""

    depth: int
    positions: int
    total: int
    seconds: float


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


def _needed_for_resume(graph: bfs.Graph, depths: list[int]) -> list[int]:
    if graph is bfs.Graph.GENERAL:
        return depths
    return depths[-2:] if graph in (bfs.Graph.BIPARTITE, bfs.Graph.REVERSIBLE) else depths[-1:]


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
) -> dict[str, Any]:
    """Build (or resume, or with ``force`` rebuild aside) one table; return its manifest.

    With ``paths`` the table gets the path-count column; a built table without
    it is rebuilt aside (all files of a table keep the same columns).
    """
    target = data / puzzle.name
    if (target / MANIFEST).exists() and not force:
        manifest = json.loads((target / MANIFEST).read_text())
        if not paths or "paths" in manifest.get("columns", {}):
            return manifest
    puzzle = puzzle.bind(data)  # a derived table reads the tables it comes from
    with build_lock(data, puzzle.name):
        return _build_locked(puzzle, data, target, on_level, paths)


def _build_locked(
    puzzle: Puzzle,
    data: Path,
    target: Path,
    on_level: Callable[[LevelDone], None] | None,
    paths: bool,
) -> dict[str, Any]:
    staging = data / ".staging" / puzzle.name
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
            p.unlink()

    metadata = {
        "puzzledb.format_version": str(FORMAT_VERSION),
        "puzzledb.table": puzzle.name,
        "puzzledb.puzzle": puzzle.name,
        "puzzledb.encoding": puzzle.encoding,
    }
    done_depths = [lv["depth"] for lv in progress["levels"]]
    resume = [
        _load_level(staging, progress["files"], d)
        for d in _needed_for_resume(puzzle.graph, done_depths)
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
            write_json_atomic(staging / PROGRESS, progress)
            if on_level:
                on_level(LevelDone(level.depth, len(level), total, now - clock))

        last_bytes, growth = 0, 1.0
        for level in levels:
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
