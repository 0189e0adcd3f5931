"""Who reads and who makes files, seen from outside the code that does it.

:class:`Readers` asks the kernel (Linux inotify) for every open and every read of
the files in some folders, whatever opened them (Python's ``open``, Arrow's own
C++ files, DuckDB), and lays each one to the Python code running when it happened:
a profile hook takes the events the kernel has queued at every call and return,
and the kernel queues an event before the system call returns, so each is laid to
the call it happened in. One thread: the hook is the calling thread's.

:class:`Makers` is an audit hook (``sys.addaudithook``) on every file opened to be
written and every folder made below a folder, with the code that made it; audit
hooks run in the thread that makes the file, so builds on threads are seen too.

Both name the code by the innermost frame of the package (``storage/reader.py``),
or ``outside`` when no frame of the package is on the stack.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent / "pipeline"

#: inotify's event masks (linux/inotify.h).
IN_ACCESS, IN_OPEN, IN_Q_OVERFLOW = 0x1, 0x20, 0x4000
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, length of the name that follows


def owner(frame: FrameType | None) -> str:
    """The module of the package innermost on the stack from ``frame``, as a path under
    pipeline/ (``storage/reader.py``); ``outside`` when there is none."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(str(PACKAGE) + os.sep):
            return os.path.relpath(name, PACKAGE)
        frame = frame.f_back
    return "outside"


@dataclass
class Readers:
    """Every open and read of a file in ``folders`` while the ``with`` lasts: ``events``
    of (file, "open" or "read", the code that did it)."""

    folders: Iterable[Path]
    events: list[tuple[Path, str, str]] = field(default_factory=list)

    def __enter__(self) -> Readers:
        libc = ctypes.CDLL(None, use_errno=True)
        self._fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self._watched: dict[int, Path] = {}
        for folder in self.folders:
            wd = libc.inotify_add_watch(self._fd, os.fsencode(folder), IN_ACCESS | IN_OPEN)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch {folder}")
            self._watched[wd] = Path(folder)
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)
        self._take(sys._getframe())
        os.close(self._fd)

    def _hook(self, frame: FrameType, event: str, arg: Any) -> None:
        # At a call the events queued since the last one came from the caller.
        self._take(frame.f_back if event == "call" else frame)

    def _take(self, frame: FrameType | None) -> None:
        try:
            got = os.read(self._fd, 1 << 16)
        except BlockingIOError:
            return
        who = owner(frame)
        at = 0
        while at < len(got):
            wd, mask, _, size = _EVENT.unpack_from(got, at)
            name = got[at + _EVENT.size : at + _EVENT.size + size].rstrip(b"\0")
            at += _EVENT.size + size
            if mask & IN_Q_OVERFLOW:
                raise AssertionError("inotify's queue overflowed: events were lost")
            path = self._watched[wd] / os.fsdecode(name)
            for bit, kind in ((IN_OPEN, "open"), (IN_ACCESS, "read")):
                if mask & bit:
                    self.events.append((path, kind, who))


@dataclass
class Makers:
    """Every file opened to be written and every folder made below ``root`` while the
    ``with`` lasts: ``made`` of (path, the code that made it). An audit hook cannot
    be removed: it stops recording when the ``with`` ends."""

    root: Path
    made: list[tuple[Path, str]] = field(default_factory=list)

    def __enter__(self) -> Makers:
        self._on = True
        sys.addaudithook(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        self._on = False

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self._on:
            return
        if event == "open":
            path, mode, flags = args
            writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT
            if not (isinstance(mode, str) and set(mode) & set("wax+")) and not flags & writes:
                return
        elif event == "os.mkdir":
            path = args[0]
        else:
            return
        if isinstance(path, str | bytes | os.PathLike):
            made = Path(os.fsdecode(path))
            if made.is_relative_to(self.root):
                self.made.append((made, owner(sys._getframe(1))))
