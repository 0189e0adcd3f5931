"""Reading a data folder's small files (manifests, specs, progress.json) as untrusted input.

Any byte of a data folder may be hostile: a FIFO named ``_manifest.json`` would
block every command forever, and a symlink to ``/dev/zero`` would fill memory.
So only a regular file is read, opening never waits (``O_NONBLOCK``), a
symlink is not followed unless asked, and no more than a limit is read.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

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


def read_json(path: Path, limit: int) -> Any:
    """The JSON document in ``path``: an OSError or a ValueError (JSON nested too deep
    for the parser is one too, not a RecursionError) when it cannot be had."""
    raw = read_bytes(path, limit)
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _read_at_most(fd: int, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
