"""The JVM's stderr while Spark starts: held back, and dropped when the start fails.

pyspark starts its JVM with this process's stderr, and a failed start prints
10 to 16 lines of Java stack there before our one line says why. So while the
session starts, fd 2 is a pipe: a thread holds what comes through it, passes
it on (and all the JVM writes later) once the start succeeds, and drops it
when it fails.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

#: Bytes held back at most while Spark starts (the rest is dropped).
HELD = 1 << 20


class _Relay(threading.Thread):
    """Reads the JVM's stderr; holds, passes on or drops it (``mode``)."""

    def __init__(self, pipe: int, out: int) -> None:
        super().__init__(name="puzzledb-jvm-stderr", daemon=True)
        self.pipe, self.out = pipe, out
        self.mode = "hold"
        self.held: list[bytes] = []
        self.lock = threading.Lock()

    def run(self) -> None:
        while chunk := os.read(self.pipe, 1 << 16):
            with self.lock:
                if self.mode == "pass":
                    _write(self.out, chunk)
                elif self.mode == "hold" and sum(map(len, self.held)) < HELD:
                    self.held.append(chunk)
        os.close(self.pipe)

    def settle(self, ok: bool) -> None:
        with self.lock:
            self.mode = "pass" if ok else "drop"
            for chunk in self.held if ok else []:
                _write(self.out, chunk)
            self.held = []


def _write(fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, data)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Around the call that starts the JVM: its stderr shows only if the call returns."""
    read, write = os.pipe()
    terminal = os.dup(2)  # the relay's way to the real stderr, kept open for it
    relay = _Relay(read, terminal)
    relay.start()
    sys.stderr.flush()
    os.dup2(write, 2)
    os.close(write)
    ok = False
    try:
        yield
        ok = True
    finally:
        sys.stderr.flush()
        os.dup2(terminal, 2)
        relay.settle(ok)
