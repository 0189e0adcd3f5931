"""Arrays derived from tables and kept in a data folder, trusted only when made here.

A derived array (a pattern database's compact array) is covered by no manifest,
and a data folder may be hostile: a planted array would change answers. So one
is used only when this machine wrote it from exactly the sources now in the
folder (its stamp and source key are remembered outside the folder, see
storage/integrity.py); anything else is derived again and replaced. Writing
goes to a fresh name (``O_EXCL|O_NOFOLLOW``) in a folder opened without
following a link, then renamed over the place: a planted link is replaced,
never followed. A folder that is itself a link keeps nothing.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from pipeline.storage import integrity

#: The arrays a table's folder may keep beside its level files (verify knows them): a
#: sliding puzzle's pattern database (solvers/optimal.py) and a twisty pattern table's
#: depths in each format (solvers/twisty_tables.py).
TABLE_ARRAYS = frozenset({"_pdb.npy", "_depths-byte.npy", "_depths-nibble.npy", "_depths-mod3.npy"})


def load(directory: Path, name: str, sources: str, size: int, mmap: bool) -> np.ndarray | None:
    """The uint8 array of ``size`` kept at ``directory/name`` if this machine wrote it
    from ``sources``, else None. ``mmap``: mapped, so a search reads only its pages."""
    with _folder(directory) as dfd:
        if dfd is None:
            return None
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None
            if not integrity.is_derived(_key(directory, name), st, sources):
                return None
            with contextlib.suppress(ValueError, OSError):
                return _read(f, size, mmap)
    return None


def keep(directory: Path, name: str, arr: np.ndarray, sources: str) -> None:
    """Write ``arr`` as ``directory/name`` (aside, then renamed over it) and remember
    it as made here from ``sources``; a place that cannot be written keeps nothing."""
    with _folder(directory) as dfd:
        if dfd is None:
            return
        tmp = f"{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            with os.fdopen(os.open(tmp, flags, 0o644, dir_fd=dfd), "wb") as f:
                np.save(f, arr)
                f.flush()
                os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
                st = os.fstat(f.fileno())  # after the rename, which sets the ctime
            integrity.remember_derived(_key(directory, name), st, sources)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)


def make_folder(directory: Path) -> None:
    """``directory`` as a real folder: made when missing, a link there replaced."""
    with contextlib.suppress(OSError):
        if directory.is_symlink():
            directory.unlink()
        directory.mkdir(exist_ok=True)


@contextlib.contextmanager
def _folder(directory: Path) -> Iterator[int | None]:
    """The folder opened without following a link in its place (None if it cannot be)."""
    try:
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        yield None
        return
    try:
        yield dfd
    finally:
        os.close(dfd)


def _key(directory: Path, name: str) -> str:
    return os.path.join(os.path.realpath(directory), name)


def _read(f: BinaryIO, size: int, mmap: bool) -> np.ndarray | None:
    """The .npy file's array if it is ``size`` uint8 values, read or mapped."""
    fmt = np.lib.format
    version = fmt.read_magic(f)
    read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
    shape, _, dtype = read_header(f)
    if shape != (size,) or dtype != np.uint8:
        return None
    offset = f.tell()
    if mmap:
        return np.memmap(f, np.uint8, "r", offset, (size,))
    arr = np.fromfile(f, np.uint8, size)
    return arr if arr.size == size else None
