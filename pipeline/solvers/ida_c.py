"""The IDA* kernel in C (ida_kernel.c), built with the system's compiler, called by ctypes.

Why: a 4x4 solve searches a few thousand nodes (milliseconds), but going
through numba costs every command numba's import and the load of its cached
kernel, many times the search (docs/BENCHMARKS.md#figures-behind-the-code).
The C kernel is the same search step for step (same node counts, same moves:
tests/test_ida_c.py); it is compiled once with ``$CC``
(default ``gcc``) into ``$XDG_CACHE_HOME/puzzledb/`` (default
``~/.cache/puzzledb/``), under a name hashing the source, the compiler and
its flags, so an edited kernel is rebuilt and old builds are never loaded
(``$PUZZLEDB_CACHE``, when set, is that folder, as for the integrity cache).
Beside it ``ida-<hash>.json`` records its size and sha256, checked before
each load: a library cut short (a full disk, a crash) would kill the process
with SIGBUS when loaded, so one that does not match is built again.
When it cannot be built or loaded the numba kernel (ida.py) is used: a
slower start, the same answers. ``PUZZLEDB_IDA=numba`` (or ``c``) forces one.

``python -m pipeline.solvers.ida_c`` builds it now and says where (the
install step of ``make build-db`` runs it); it never fails the install.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Protocol

import numpy as np

from pipeline.errors import BadMethod
from pipeline.solvers.ida_tables import RankedTables, Tables
from pipeline.storage import files
from pipeline.storage.integrity import CACHE_ENV

SOURCE = Path(__file__).with_name("ida_kernel.c")
FLAGS = ["-O2", "-std=c99", "-shared", "-fPIC"]
ENV = "PUZZLEDB_IDA"

_I64 = ctypes.c_int64
_P = ctypes.c_void_p
RANKED = ("nbr", "nnbr", "grp", "rgrp", "gt", "gk", "rt", "refl", "off", "pdb")


class Kernel(Protocol):
    """An IDA* search over one board's tables: in C, or with numba."""

    name: str

    def ida(self, board: np.ndarray, max_bound: int) -> tuple[int, int, np.ndarray]:
        """The optimal length (-1: none within ``max_bound``), the nodes generated and
        the blank's cell after each move."""
        ...

    def heuristic(self, board: np.ndarray) -> int:
        """The lower bound the search starts from."""
        ...


class _CTables(ctypes.Structure):
    """``struct tables`` of ida_kernel.c: sizes, then the addresses of the arrays."""

    _fields_ = [(f, _I64) for f in ("n", "groups", "use_refl")] + [
        (f, _P) for f in ("nbr", "nnbr", "grp", "w", "rgrp", "rw", "refl", "off", "pdb")
    ]


class _CRanked(ctypes.Structure):
    """``struct ranked`` of ida_kernel.c (RankedTables)."""

    _fields_ = [(f, _I64) for f in ("n", "groups", "use_refl")] + [(f, _P) for f in RANKED]


def cache_dir() -> Path:
    """Where built kernels live: the user's cache, beside integrity.py's checked.json."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "puzzledb"


def compiler() -> list[str]:
    """The C compiler command: ``$CC`` split as a shell would, else gcc."""
    return shlex.split(os.environ.get("CC") or "gcc")


def library_path(cc: list[str], source: Path = SOURCE, stem: str = "ida") -> Path:
    """The built library's path: a hash of source, compiler, flags and machine."""
    key = hashlib.sha256(source.read_bytes())
    key.update(repr((cc, FLAGS, platform.machine(), sys.platform)).encode())
    return cache_dir() / f"{stem}-{key.hexdigest()[:16]}.so"


def build(source: Path = SOURCE, stem: str = "ida") -> Path:
    """Compile a kernel (by default this one) unless it is built and whole; its path.
    Raises OSError or subprocess.SubprocessError (compiler missing or failing, cache
    not writable)."""
    cc = compiler()
    path = library_path(cc, source, stem)
    if intact(path):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    record = _record_path(path)
    record_tmp = record.with_name(f"{record.name}.{os.getpid()}.tmp")
    try:
        subprocess.run(
            [*cc, *FLAGS, "-o", str(tmp), str(source)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        record_tmp.write_text(json.dumps(_describe(tmp.read_bytes())))
        os.replace(tmp, path)  # whole or not at all, also when two solves build at once
        os.replace(record_tmp, record)
    finally:
        tmp.unlink(missing_ok=True)
        record_tmp.unlink(missing_ok=True)
    return path


def intact(path: Path) -> bool:
    """Whether ``path`` has the size and sha256 recorded when it was built. A library
    cut short (a full disk, a crash, a copy) kills the process that loads it (SIGBUS):
    one that fails this check is built again. Hashing its ~15 KB costs microseconds."""
    try:
        record = files.read_json(_record_path(path), 4096)
        return record == _describe(files.read_bytes(path, 1 << 26))
    except (OSError, ValueError):
        return False


def _record_path(path: Path) -> Path:
    return path.with_suffix(".json")


def _describe(raw: bytes) -> dict[str, int | str]:
    return {"bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}


@functools.cache
def library() -> ctypes.CDLL | None:
    """The loaded C kernel, built on first use; None when it cannot be built or loaded."""
    try:
        lib = ctypes.CDLL(str(build()))
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    lib.pdb_ida.argtypes = [ctypes.POINTER(_CTables), _P, _I64, ctypes.POINTER(_I64), _P]
    lib.pdb_ida.restype = _I64
    lib.pdb_heuristic.argtypes = [ctypes.POINTER(_CTables), _P]
    lib.pdb_heuristic.restype = _I64
    lib.ranked_ida.argtypes = [ctypes.POINTER(_CRanked), _P, _I64, ctypes.POINTER(_I64), _P]
    lib.ranked_ida.restype = _I64
    lib.ranked_heuristic.argtypes = [ctypes.POINTER(_CRanked), _P]
    lib.ranked_heuristic.restype = _I64
    return lib


class CKernel:
    """IDA* over one board's tables through the C library."""

    name = "c"

    def __init__(self, lib: ctypes.CDLL, t: Tables) -> None:
        # Contiguous arrays of the kernel's types, kept alive as long as the struct.
        self._arrays = {
            f: np.ascontiguousarray(getattr(t, f), np.int64)
            for f in ("nbr", "nnbr", "grp", "w", "rgrp", "rw", "refl", "off")
        }
        self._arrays["pdb"] = np.ascontiguousarray(t.pdb, np.uint8)  # a mapped file stays mapped
        addresses = {f: a.ctypes.data for f, a in self._arrays.items()}
        self._t = _CTables(len(t.nnbr), len(t.off), int(t.use_refl), **addresses)
        self._lib = lib

    def ida(self, board: np.ndarray, max_bound: int) -> tuple[int, int, np.ndarray]:
        """As ida.ida: optimal length (-1: none within max_bound), nodes, blank's cells."""
        board = np.ascontiguousarray(board, np.int64)
        path = np.zeros(max_bound + 1, np.int64)
        nodes = _I64(0)
        length = self._lib.pdb_ida(
            ctypes.byref(self._t),
            board.ctypes.data,
            max_bound,
            ctypes.byref(nodes),
            path.ctypes.data,
        )
        return int(length), nodes.value, path[: max(length, 0)]

    def heuristic(self, board: np.ndarray) -> int:
        board = np.ascontiguousarray(board, np.int64)
        return int(self._lib.pdb_heuristic(ctypes.byref(self._t), board.ctypes.data))


class CRankedKernel:
    """IDA* over rank-indexed tables (RankedTables) through the C library."""

    name = "c"

    def __init__(self, lib: ctypes.CDLL, t: RankedTables) -> None:
        self._arrays = {f: np.ascontiguousarray(getattr(t, f), np.int64) for f in RANKED[:-1]}
        self._arrays["pdb"] = np.ascontiguousarray(t.pdb, np.uint8)  # a mapped file stays mapped
        addresses = {f: a.ctypes.data for f, a in self._arrays.items()}
        self._t = _CRanked(len(t.nnbr), len(t.off), int(t.use_refl), **addresses)
        self._lib = lib

    def ida(self, board: np.ndarray, max_bound: int) -> tuple[int, int, np.ndarray]:
        """As CKernel.ida."""
        board = np.ascontiguousarray(board, np.int64)
        path = np.zeros(max_bound + 1, np.int64)
        nodes = _I64(0)
        t = ctypes.byref(self._t)
        length = self._lib.ranked_ida(
            t, board.ctypes.data, max_bound, ctypes.byref(nodes), path.ctypes.data
        )
        return int(length), nodes.value, path[: max(length, 0)]

    def heuristic(self, board: np.ndarray) -> int:
        board = np.ascontiguousarray(board, np.int64)
        return int(self._lib.ranked_heuristic(ctypes.byref(self._t), board.ctypes.data))


def ranked_kernel(t: RankedTables) -> CRankedKernel | None:
    """The C kernel over rank-indexed tables; None when it cannot be built (they
    have no numba kernel: the caller answers with the 6-6-3 databases instead)."""
    if os.environ.get(ENV) == "numba":
        return None
    lib = library()
    return None if lib is None else CRankedKernel(lib, t)


class NumbaKernel:
    """IDA* over one board's tables through the numba kernel (imported on first use)."""

    name = "numba"

    def __init__(self, t: Tables) -> None:
        self.t = t

    def ida(self, board: np.ndarray, max_bound: int) -> tuple[int, int, np.ndarray]:
        from pipeline.solvers import ida

        t = self.t
        return ida.ida(
            board, t.nbr, t.nnbr, t.grp, t.w, t.rgrp, t.rw, t.refl, t.off, t.pdb, t.use_refl,
            max_bound,
        )  # fmt: skip

    def heuristic(self, board: np.ndarray) -> int:
        from pipeline.solvers import ida

        t = self.t
        return ida.heuristic(board, t.grp, t.w, t.rgrp, t.rw, t.refl, t.off, t.pdb, t.use_refl)


def kernel(t: Tables, name: str | None = None) -> Kernel:
    """The kernel to search with: ``name`` or ``$PUZZLEDB_IDA`` (``c``, ``numba``),
    else C when it can be built, else numba."""
    name = name or os.environ.get(ENV) or "auto"
    if name not in ("auto", "c", "numba"):
        raise BadMethod(f"{ENV} must be c or numba, not {name!r}")
    lib = library() if name != "numba" else None
    if lib is not None:
        return CKernel(lib, t)
    if name == "c":
        raise BadMethod(
            f"{ENV}=c but the C kernel cannot be built with {shlex.join(compiler())} "
            f"(see python -m pipeline.solvers.ida_c)"
        )
    return NumbaKernel(t)


def main() -> int:
    """Build the kernel now (the install step); say where, or why not (never fails)."""
    try:
        print(f"IDA* kernel: {build()}")
    except (OSError, subprocess.SubprocessError) as e:
        err = getattr(e, "stderr", b"") or b""
        why = err.decode(errors="replace").strip().splitlines()[-1:] or [str(e)]
        print(f"IDA* kernel: not built with {shlex.join(compiler())} ({why[0]}): solves use numba")
    return 0


if __name__ == "__main__":
    sys.exit(main())
