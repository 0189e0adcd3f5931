"""The memory budget: all the arithmetic that decides what fits.

A build is given a budget for the whole process (default 3GB, capped at the
machine's memory). What the level step may use (``work``) is the budget less
what the process already holds, a reserve for what no estimate sees
(allocator slack, Arrow's buffers while a part is read or written: a tenth
of the budget, at least 256 MiB or a quarter of a smaller one) and, for each
level, the parts in flight to the writers (as large as the level's parts: a
small table's are small). Each level then asks
:meth:`Budget.plan` whether the new level can stay in memory for the next
step, and the executor asks :func:`buckets` how many child ranges its moves
need.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import math
import os
import re
import resource
from dataclasses import dataclass

from pipeline.errors import PuzzleDBError
from pipeline.words import size_of

DEFAULT_MEMORY = "3GB"
#: Peak bytes per (child, parent) row while a chunk is expanded, sorted and
#: resolved (measured on 3x4; numpy temporaries included).
PAIR_BYTES = 56
#: The same for a packed key: the key and the radix sort's scratch (8 each), then
#: the rows it resolves to (a child and a parent, 16 a child: a few keys make one
#: child, and the buffer the sort left free takes some), with room to spare.
KEY_BYTES = 20
#: The same for a move of the dense engine (dense.py): the marks' 4-byte key (with the
#: moves back to a parent, left in as blanks, about 6 bytes a move) and its row's share
#: of the runs waiting for the sink (the bitmaps' moves cost nothing: counted alike).
DENSE_MOVE_BYTES = 8
#: Extra bytes a row carries with path counts (its parent's count, and the child's).
COUNT_BYTES = 24
#: Extra bytes a packed key carries with path counts: its parent's count, and again in the
#: sort's scratch (a child's count comes after, in what the sort left free).
KEY_COUNT_BYTES = 12
#: Bytes per state of a level kept in memory (its state and its parent).
STATE_BYTES = 16
#: Bytes per state of an earlier level read from files to check a bucket against:
#: the state, and its copy while the row groups read are joined. Uncounted,
#: 4x4-pdb-8 (reversible: two levels a step) peaked at 3.68 GiB in a 3 GiB budget.
EXCLUDED_BYTES = 16
#: The least the level step can work in.
MIN_WORK = 64 << 20


class BadMemory(PuzzleDBError):
    """A memory budget that cannot be parsed or is too small to work in."""


def parse_memory(text: str | int) -> int:
    """'3GB', '512MB', '1.5G', '800M' or a number of bytes, as bytes (powers of 1024)."""
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(I?B)?\s*", text.upper())
    if not m:
        raise BadMemory(f"memory budget {text!r} not understood (examples: 3GB, 512MB)")
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2)]
    return int(float(m.group(1)) * scale)


def machine_memory() -> int | None:
    """The machine's physical memory in bytes, when the system says."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def rss() -> int:
    """Resident memory of this process now, in bytes."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:  # not Linux: fall back to the peak
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_for_large_builds() -> None:
    """How a large build takes memory from the system: freed blocks go back at once
    (:func:`_give_back_freed_memory`), and in pages of 4 KiB (:func:`_no_huge_pages`)."""
    _give_back_freed_memory()
    _no_huge_pages()


def _give_back_freed_memory() -> None:
    """Have glibc return every freed block of 2 MiB or more to the system at once.

    By default glibc raises its mmap threshold up to 32 MiB after the first large
    free, and blocks below it then stay in per-thread arenas once freed: with the
    level step on four threads that kept a 1GB build of 3x4 at 1.9 GiB. Blocks
    under 2 MiB are kept, with up to 16 MiB free at the top of each heap (fixing
    the threshold fixes that at 128 KiB): zstd's output for a page of a level
    file (storage/pages.py) is a block of just over 1 MiB, made and freed for
    each page, which came back as fresh pages each time (0.2 million page faults
    writing a third of 3x4's rows, against 11 thousand).
    """
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 2 << 20)  # M_MMAP_THRESHOLD (fixed, so no longer raised)
        libc.mallopt(-1, 16 << 20)  # M_TRIM_THRESHOLD


def _no_huge_pages() -> None:
    """Stop numpy asking for transparent huge pages (madvise) for its arrays.

    Where the kernel defragments for those who ask (its default, ``defrag``
    madvise), a fault with no free huge page at hand compacts memory first, in
    the faulting thread, and a build makes its arrays anew from level to level
    (the cost: docs/BENCHMARKS.md). numpy's own switch (NUMPY_MADVISE_HUGEPAGE=0 before
    numpy is imported), for the rest of the process as the mmap threshold above;
    left as it is where numpy has none.
    """
    with contextlib.suppress(ImportError):
        # at first use, and guarded: a private module, which another numpy may lack
        from numpy._core import multiarray

        # A private switch, which numpy's stubs do not declare: looked up by name.
        switch = getattr(multiarray, "_set_madvise_hugepage", None)
        if switch is not None:
            switch(False)


def move_bytes(packed: bool, counts: bool = False, dense: bool = False) -> int:
    """Peak bytes one move costs the level step (``dense``: the dense engine's)."""
    if dense and not counts:
        return DENSE_MOVE_BYTES
    if packed:
        return KEY_BYTES + (KEY_COUNT_BYTES if counts else 0)
    return PAIR_BYTES + (COUNT_BYTES if counts else 0)


def buckets(
    n: int,
    branching: float,
    kept: int,
    work: int,
    per_move: int = PAIR_BYTES,
    beside: int = 0,
) -> int:
    """How many child ranges (buckets) a level of ``n`` states needs within ``work`` bytes;
    ``beside``: states of earlier levels read from files to check each bucket against
    (a reversible graph's two levels before; each bucket reads its range of them)."""
    moves = n * branching
    checked = beside * EXCLUDED_BYTES
    need = moves * per_move + checked + kept
    if need <= work:
        return 1
    room = max(work - kept, work // 4)
    # Spilling, a bucket holds its moves plus the sort's temporaries.
    return max(2, math.ceil((moves * per_move * 1.25 + checked) / room))


@dataclass(frozen=True)
class LevelPlan:
    """What one level step may use, decided before it runs."""

    #: The new level's size, guessed from the growth of the last one.
    guess: int
    #: Whether the new level stays in memory for the next step.
    keep: bool
    #: Bytes of levels held in memory during the step (for the executor).
    held: int
    #: Bytes of free buffers worth keeping for reuse meanwhile.
    spare: int
    #: Bytes the level step may use (the work less this level's parts in flight).
    work: int = 0


@dataclass
class Budget:
    """The memory of one build: the whole budget and what the level step may use."""

    total: int
    work: int = 0
    forced: bool = False
    #: Bytes of the parts in flight to the writers when they are full (set_work).
    parts: int = 0
    #: Rows of a full part.
    part_rows: int = 1
    #: What the budget asked for, when more than the machine has (capped).
    asked: int | None = None
    #: Whether a budget too small for a level is refused.
    strict: bool = False

    @classmethod
    def parse(cls, memory: int | str | None) -> Budget:
        """The budget given (default 3GB), capped at the machine's memory (``asked`` says)."""
        total = parse_memory(memory if memory is not None else DEFAULT_MEMORY)
        machine = machine_memory()
        if machine and total > machine:
            return cls(machine, asked=total)
        return cls(total)

    @property
    def reserve(self) -> int:
        return max(self.total // 10, min(256 << 20, self.total // 4))

    def set_work(
        self,
        parts_in_flight: int,
        work: int | None = None,
        strict: bool = True,
        part_rows: int = 1,
    ) -> None:
        """What the level step may use: ``work`` as given (tests), else the budget less
        this process and a reserve (each level's parts in flight, of ``part_rows``
        rows when full, come off in :meth:`plan`); ``strict`` refuses a budget
        that leaves too little."""
        self.forced = work is not None
        self.parts, self.part_rows = parts_in_flight, max(1, part_rows)
        self.strict = strict
        if work is not None:
            self.work = work
            return
        used = rss()
        self.work = self.total - self.reserve - used
        if strict and self.work < MIN_WORK:
            least = used + MIN_WORK + min(256 << 20, (used + MIN_WORK) // 3)
            raise BadMemory(
                f"a memory budget of {size_of(self.total)} leaves no room to work "
                f"(this process already uses {size_of(used)}): give at least "
                f"{-(-least >> 20)}MB"
            )

    def in_flight(self, rows: int) -> int:
        """Bytes of the writers' parts in flight for a level of ``rows`` rows."""
        if self.forced:
            return 0
        return int(self.parts * min(1.0, rows / self.part_rows))

    def affords(self, nbytes: int, share: int = 1) -> bool:
        """Whether memory kept for the whole build (the dense engine's) fits in a
        ``share`` th of the work (always, with a work given as it is)."""
        return self.forced or nbytes * share <= self.work

    def charge(self, nbytes: int) -> None:
        """Take memory the process gained for good (compiled kernels) from the work
        (not from a work given as it is: tests force small ones)."""
        if not self.forced:
            self.work -= max(0, nbytes)

    def plan(
        self,
        size: int,
        growth: float,
        per_state: float,
        held: int,
        packed: bool,
        counts: bool = False,
        dense: bool = False,
    ) -> LevelPlan:
        """The plan of the step from a level of ``size`` states (``held`` bytes kept
        meanwhile; ``counts``: with path counts; ``dense``: by the dense engine)."""
        guess = int(size * max(growth, 1.0))
        step = guess * (STATE_BYTES + per_state * move_bytes(packed, counts, dense))
        work = self.work - self.in_flight(guess)
        # A level of the dense engine needs no more than what it keeps, which came off
        # the work before within its share (affords).
        if self.strict and not self.forced and work < MIN_WORK and not dense:
            raise BadMemory(
                f"a memory budget of {size_of(self.total)} is too small for a level of about "
                f"{guess:,} positions: give at least {-(-(self.total - work + MIN_WORK) >> 20)}MB "
                "(finished levels are kept: the build resumes)"
            )
        keep = held + step <= work
        # Free buffers kept for reuse stay within what the step leaves of the
        # work: a level not kept goes in buckets that each reuse all of them
        # (half of it dropped and made anew every bucket's sort scratch: 15 GiB
        # of fresh pages for french37's depth 16; with path counts, 25 GiB for
        # english33, until the pool stopped spending big buffers on small needs).
        spare = int(work - held - step if keep else work - held)
        kept = held + (guess * STATE_BYTES if keep else 0)
        return LevelPlan(guess, keep, kept, spare, work)
