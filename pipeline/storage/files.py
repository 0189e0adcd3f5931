"""Reading a data folder's small files as untrusted input, and writing into it safely.

Any byte of a data folder may be hostile: a FIFO named ``_manifest.json`` would
block every command forever, and a symlink to ``/dev/zero`` would fill memory.
So only a regular file is read, opening never waits (``O_NONBLOCK``), a
symlink is not followed unless asked, and no more than a limit is read.

Writes never follow a link planted in the folder either (one to ``~/.bashrc``
named ``report.html`` would have it overwritten): each folder below the data
folder is a real one (:func:`folder`), a file is created new under a unique
name (``O_EXCL|O_NOFOLLOW``) and renamed into place (:func:`replace`: a rename
replaces a link, never writes through it), and a removal unlinks a link
rather than what it points to (:func:`remove`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.errors import CannotWrite

if TYPE_CHECKING:
    from collections.abc import Buffer  # Python 3.12's; the checker's

#: The largest manifest read. The default build's largest (2x5: 56 levels,
#: 56 files) is 36 KB, about 530 bytes a level and its file; french37's (3
#: billion positions, some 750 files of 4 M rows) would be near 400 KB. 64 MiB
#: is over 100,000 files, far beyond any table a disk holds.
MANIFEST_LIMIT = 64 << 20
#: The largest spec (a board description: a few hundred bytes to a few KB).
SPEC_LIMIT = 1 << 20

_KINDS = {
    stat.S_ISFIFO: "a FIFO",
    stat.S_ISCHR: "a character device",
    stat.S_ISBLK: "a block device",
    stat.S_ISSOCK: "a socket",
    stat.S_ISDIR: "a folder",
}


class NotReadable(OSError):
    """A file that is not a regular file, or is larger than its limit: its text says
    which, for "<path> cannot be read (...)". An OSError, so callers that take a
    missing file in their stride take this one too."""


def read_bytes(path: Path, limit: int, follow: bool = False) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; NotReadable
    (or another OSError) otherwise. ``follow``: a symlink to a regular file is read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP and not follow:
            raise NotReadable("a symbolic link, not followed") from None
        raise
    try:
        st = os.fstat(fd)
        kind = next((name for test, name in _KINDS.items() if test(st.st_mode)), None)
        if kind is not None or not stat.S_ISREG(st.st_mode):
            raise NotReadable(f"{kind or 'a special file'}, not a regular file")
        data = b"" if st.st_size > limit else _read_at_most(fd, limit + 1)
    finally:
        os.close(fd)
    if st.st_size > limit or len(data) > limit:
        raise NotReadable(f"larger than {limit:,} bytes")
    return data


def read_text(path: Path, limit: int, follow: bool = False) -> str:
    """:func:`read_bytes` decoded as UTF-8 (UnicodeDecodeError, a ValueError, if not)."""
    return read_bytes(path, limit, follow).decode("utf-8")


def read_json(path: Path, limit: int) -> object:
    """The JSON document in ``path``: an OSError or a ValueError (JSON nested too deep
    for the parser is one too, not a RecursionError; so is a lone surrogate, which
    DuckDB refused to bind for every query) when it cannot be had. Input: the caller
    checks each value it uses."""
    raw = read_bytes(path, limit)
    try:
        doc = json.loads(raw)
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except UnicodeEncodeError:  # "\ud800" is valid JSON; no database or terminal takes it
        raise ValueError("a string holds a lone surrogate (not Unicode text)") from None
    return doc


def _read_at_most(fd: int, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def folder(data: Path, *names: str) -> Path:
    """``data/names...``, each folder below ``data`` made when missing and refused
    (CannotWrite) when a link or not a folder: never followed. ``data`` itself is
    the user's choice (it may be a link) and is made when missing. An OSError when
    a folder cannot be made (the caller says in one line what it was writing)."""
    data.mkdir(parents=True, exist_ok=True)
    path = data
    for name in names:
        path = path / name
        with contextlib.suppress(FileExistsError):
            path.mkdir()
        if not is_folder(path):
            what = "a symbolic link" if path.is_symlink() else "not a folder"
            raise CannotWrite(
                f"{path} is {what}: remove it (puzzledb writes only inside its data folder)"
            )
    return path


def is_folder(path: Path) -> bool:
    """Whether ``path`` is a real folder (a link to one is not)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def is_file(path: Path) -> bool:
    """Whether ``path`` is a regular file (a link to one is not)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def replace(path: Path, data: str | Buffer, sync: bool = True, direct: bool = False) -> None:
    """Write ``data`` (bytes, a buffer or str) to ``path`` whole or not at all.

    Into a new file beside it, of a unique name, created with O_EXCL|O_NOFOLLOW
    (a link planted under any name is never written through), then renamed over
    ``path``: a link there is replaced, not followed. The folder must be a real
    one (:func:`folder`). ``sync``: on disk (fsync) before the rename.
    ``direct``: around the page cache where it can (:func:`_write_direct`; ``data``
    starts on a page boundary).
    """
    raw = memoryview(data.encode() if isinstance(data, str) else data).cast("B")
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o666)
    try:
        try:
            done = _write_direct(fd, raw) if direct else 0
            while done < len(raw):
                done += os.write(fd, raw[done:])
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


#: What O_DIRECT needs aligned (memory address, length): a page, which covers the
#: logical block size of the disks it is used on (512 or 4096 bytes).
DIRECT_ALIGN = 4096


def _write_direct(fd: int, raw: memoryview) -> int:
    """Write the whole blocks at the start of ``raw`` with O_DIRECT; return how many
    bytes were written (0 where the memory is not aligned or the file system
    refuses it: the caller writes the rest as usual).

    A level file is written once, and copying it into the page cache was about
    2 s of a 3x4 build's 25 s of CPU (the kernel's copy_folio_from_iter_atomic,
    more when the cache must first be reclaimed: docs/BENCHMARKS.md); a step
    that reads a level back reads it from the disk. fsync still follows.
    """
    head = len(raw) // DIRECT_ALIGN * DIRECT_ALIGN
    o_direct = getattr(os, "O_DIRECT", 0)
    if not head or not o_direct:
        return 0
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | o_direct)
    except OSError:
        return 0
    done = 0
    try:
        while done < head:
            n = os.write(fd, raw[done:head])
            done += n
            if n % DIRECT_ALIGN:  # a short write off a block: the rest as usual
                break
    except OSError as e:
        if e.errno != errno.EINVAL:  # refused (alignment, file system): nothing written
            raise
    finally:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags)
    return done


def remove(path: Path) -> None:
    """Remove what is at ``path`` (nothing: fine) without following a link: a link is
    unlinked, a real folder removed with all it holds (rmtree unlinks links inside)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def remove_inside(data: Path, *names: str) -> None:
    """Remove ``data/names...`` as :func:`remove` does, each folder on the way a real
    folder below ``data``: a link there (``specs`` moved elsewhere and linked back) is
    CannotWrite, never followed to delete what it names."""
    path = data
    for name in names[:-1]:
        path = path / name
        if not os.path.lexists(path):
            return  # nothing there to remove
        if not is_folder(path):
            raise CannotWrite(
                f"{path} is {'a symbolic link' if path.is_symlink() else 'not a folder'}: "
                "puzzledb removes nothing through it (remove the link, run again)"
            )
    remove(path / names[-1])


def lock(path: Path) -> int:
    """An open descriptor of the lock file ``path`` (made when missing), to flock. A
    build writes its pid into it: a link there, symbolic or hard (a second name of
    ~/.bashrc), is replaced by a new file, never followed nor truncated; anything
    else but a regular file is refused (CannotWrite)."""
    try:
        fd = _open_lock(path)
        if fd is None:
            os.unlink(path)  # the link only: what it names stays as it was
            fd = _open_lock(path)
    except OSError as e:
        raise CannotWrite(f"{path} cannot be opened: {e.strerror}") from None
    if fd is None:
        raise CannotWrite(f"{path} cannot be opened: a link again, made by another process")
    return fd


def _open_lock(path: Path) -> int | None:
    """The lock file's descriptor; None when ``path`` is a link (symbolic or hard)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return None
        raise
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
        return fd
    os.close(fd)
    if stat.S_ISREG(st.st_mode):
        return None
    raise CannotWrite(f"{path} is not a regular file: remove it, run again")
