"""Big uint64 buffers kept and reused from one level step to the next.

Writing pages a process has never touched costs far more than writing pages it
has: the kernel zeroes each one, and on a virtual machine that hands freed
memory back to its host (free page reporting, as here) the host must find and
map it again. Measured here: 2.5 ms a MB for fresh pages against 0.04 ms a MB
for pages written before; a 2x6 build took 2.1 million page faults and 11 s of
system time. A level step needs buffers of about the same sizes as the step
before (the keys, the resolved rows, the new level's columns), so they are
taken from a :class:`Pool` and given back when done with (with the writers'
reused output buffers, storage/writer.py: 0.1 million faults, 7 s).
"""

from __future__ import annotations

import threading

import numpy as np

from pipeline.engine.core import States

#: A buffer made anew is this much larger than asked for, so that it serves the
#: next, larger buckets and levels too (pages never written are never touched).
#: The pool's limit counts these bytes: at 2.0 a bucket's four buffers passed
#: it and two were made anew every bucket (french37 to depth 16: 2 min 27 s,
#: 2.9 GB peak; at 1.25, 2 min 7 s and 2.1 GB).
HEADROOM = 1.25
#: A free buffer serves requests down to 1/FIT of its size. Any smaller, and it
#: is better left for a request its size: english33 --paths gave its sort
#: scratch (44M keys) a stale 108M buffer every bucket, which left the pool no
#: room to keep the last of the bucket's four, made anew each bucket.
FIT = 2


def owner(array: np.ndarray) -> np.ndarray:
    """The array that owns the memory of ``array`` (itself, or the base of a view)."""
    return array if array.base is None else array.base


class Pool:
    """Free uint64 buffers, handed out best fit: ``take`` a view, ``give`` it back.

    A request takes the smallest free buffer that holds it and is at most
    :data:`FIT` times its size. At most ``limit`` bytes of free buffers are
    kept, counting a buffer a miss makes as kept: the one unused longest goes
    first (of those given back together, the smallest). A buffer less than
    half the size of a request that nothing fits is dropped at once (the
    levels outgrew it). Thread-safe.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        #: (how many give-backs had been made when it came back, buffer), the most
        #: recent first.
        self._free: list[tuple[int, np.ndarray]] = []
        self._returns = 0
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """Bytes of the free buffers kept."""
        with self._lock:
            return sum(b.nbytes for _, b in self._free)

    def take(self, n: int) -> States:
        """``n`` uint64 of undefined content: a view of the smallest free buffer that
        fits, else of a new one with headroom. Give it back with :meth:`give`."""
        with self._lock:
            fits = [i for i, (_, b) in enumerate(self._free) if n <= len(b) <= FIT * n + 1024]
            if fits:
                best = min(fits, key=lambda i: len(self._free[i][1]))
                return self._free.pop(best)[1][:n]
            size = max(int(n * HEADROOM), 1024)
            self._free = [f for f in self._free if 2 * len(f[1]) >= n]
            self._keep(self.limit - 8 * size)
        return np.empty(size, np.uint64)[:n]

    def trim(self, limit: int) -> None:
        """Keep at most ``limit`` bytes of free buffers from now on."""
        self.limit = max(0, limit)
        self.give()

    def give(self, *arrays: States | None) -> None:
        """Take back buffers (views of them, as :meth:`take` made, or any array that
        owns its memory); the caller must hold no other view of them."""
        with self._lock:
            self._returns += 1
            for a in arrays:
                if a is None:
                    continue
                base = owner(a)
                if not isinstance(base, np.ndarray) or base.dtype != np.uint64:
                    continue  # not a plain uint64 buffer (a numba or Arrow one): let it go
                if base.ndim != 1 or not base.flags.c_contiguous:
                    continue
                if any(b is base for _, b in self._free):
                    raise ValueError("buffer given back twice")
                self._free.append((self._returns, base))
            self._keep(self.limit)

    def _keep(self, room: int) -> None:
        """Drop free buffers past ``room`` bytes, the one unused longest first."""
        self._free.sort(key=lambda f: (f[0], len(f[1])), reverse=True)
        total = 0
        for i, (_, b) in enumerate(self._free):
            total += b.nbytes
            if total > room:
                del self._free[i:]
                break


class Columns:
    """A new level's columns, filled run by run with copies in pooled buffers.

    Runs from the level step are borrowed (their buffers serve the next run),
    so they are copied here; :meth:`add` returns the copies for the writer.
    ``owned`` lists every buffer taken (a grown column keeps its first buffer
    until the level is released: the writer may still read views of it).
    """

    def __init__(self, pool: Pool, width: int, capacity: int) -> None:
        self.pool = pool
        self.rows = 0
        self.capacity = max(capacity, 1024)
        self.columns = [pool.take(self.capacity) for _ in range(width)]
        self.owned = list(self.columns)

    def add(self, *runs: States) -> list[States]:
        """Append one run of each column; return the copies."""
        m = len(runs[0])
        if self.rows + m > self.capacity:
            self.capacity = max(2 * self.capacity, self.rows + m)
            bigger = [self.pool.take(self.capacity) for _ in self.columns]
            for new, old in zip(bigger, self.columns, strict=True):
                new[: self.rows] = old[: self.rows]
            self.columns = bigger
            self.owned += bigger
        out = []
        for column, run in zip(self.columns, runs, strict=True):
            column[self.rows : self.rows + m] = run
            out.append(column[self.rows : self.rows + m])
        self.rows += m
        return out

    def arrays(self) -> list[States]:
        """The columns as filled so far."""
        return [c[: self.rows] for c in self.columns]
