"""Checking a built table against its puzzle: a certificate, not a spot check.

Streamed level by level (a few levels in memory at a time; a layered table one
level's states at a time, pipeline/verify/stream.py):
- files match the manifest (size and sha256), the depth column is each file's level,
  states strictly increasing in each level, counts as the manifest says;
- depth 0 holds exactly the roots (plus, with zero-cost moves, their closure);
- every parent is one legal move from its child and one level up (or a
  zero-cost move at the same depth, without cycles);
- every move out of a level lands at most one level further (closure): with
  the parent check this proves each depth is the true distance and no
  reachable position is missing;
- each state appears once in the whole table, and the total is what the
  puzzle predicts when it predicts one.

A partial table (``build --max-depth N``) is checked the same way on its
levels, but for what needs the levels after N: the moves out of level N are
not checked (they lead to level N+1, not built) nor the puzzle's total.
"""

from __future__ import annotations

import itertools
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.engine.core import (
    NO_PARENT,
    Expander,
    Graph,
    Level,
    absent,
    excluded_depths,
    merge_sorted,
    unique,
)
from pipeline.engine.reference import step_counted
from pipeline.puzzles.base import Puzzle
from pipeline.storage.format import wrong_columns
from pipeline.storage.integrity import sha256
from pipeline.storage.manifest import FileEntry
from pipeline.storage.reader import open_file, read_column, row_group_mins, u64
from pipeline.storage.table import Table


@dataclass
class Report:
    """What verify found; ``ok`` when nothing is wrong."""

    table: str
    positions: int = 0
    levels: int = 0
    problems: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _present(states: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    return ~absent(states, sorted_set)


#: Rows expanded at a time, so that checking a 22-million-row level stays small.
CHUNK = 1 << 21


def one_move(expand: Expander, parents: np.ndarray, children: np.ndarray) -> np.ndarray:
    """For each row, whether ``children[i]`` is one move of ``expand`` from ``parents[i]``."""
    ok = np.zeros(len(children), dtype=bool)
    for lo in range(0, len(children), CHUNK):
        src, child = expand(parents[lo : lo + CHUNK])
        ok[lo + src[child == children[lo : lo + CHUNK][src]]] = True
    return ok


def _missing(expand: Expander, states: np.ndarray, targets: list[np.ndarray]) -> tuple:
    """(count, first) of the moves out of ``states`` that land in none of ``targets``."""
    count, first = 0, None
    for lo in range(0, len(states), CHUNK):
        _, child = expand(states[lo : lo + CHUNK])
        miss = np.ones(len(child), dtype=bool)
        for t in targets:
            miss &= ~_present(child, t)
        n = int(miss.sum())
        if n and first is None:
            first = int(child[np.flatnonzero(miss)[0]])
        count += n
    return count, first


def _acyclic(level: Level) -> bool:
    """Same-level parents (zero-cost moves) must lead out of the level, never round."""
    same = _present(level.parents, level.states) & (level.parents != NO_PARENT)
    if not same.any():
        return True
    ptr = np.full(len(level), -1, dtype=np.int64)
    ptr[same] = np.searchsorted(level.states, level.parents[same])
    for _ in range(64):  # pointer doubling: 2^64 steps is beyond any level
        live = ptr >= 0
        if not live.any():
            return True
        nxt = np.full(len(ptr), -1, dtype=np.int64)
        nxt[live] = ptr[ptr[live]]
        ptr = nxt
    return False


#: States of the level above expanded at a time when path counts are checked.
PATHS_PIECE = 1 << 20


def _check_paths(
    puzzle: Puzzle, level: Level, up: Level | None, bad: Callable[[str], None]
) -> None:
    """Path counts: 1 at the roots, else the sum over every move from the level above."""
    d = level.depth
    if level.counts is None:
        bad(f"depth {d}: the table has a paths column but this level has none")
        return
    if d == 0 or up is None or up.counts is None:
        expected = np.ones(len(level), np.uint64)
    else:
        # The level above in pieces, so the moves of one piece are in memory at a
        # time; a piece's children are unique, so each adds its sums in place.
        expected = np.zeros(len(level), np.uint64)
        for a in range(0, len(up), PATHS_PIECE):
            piece = slice(a, a + PATHS_PIECE)
            kids, _, sums = step_counted(up.states[piece], puzzle.expand, [], up.counts[piece])
            assert sums is not None
            pos = np.searchsorted(level.states, kids)
            pos[pos == len(level)] = 0
            found = level.states[pos] == kids
            expected[pos[found]] += sums[found]
    wrong = np.flatnonzero(level.counts != expected)
    if len(wrong):
        i = int(wrong[0])
        bad(
            f"depth {d}: {len(wrong)} path counts wrong, e.g. {puzzle.text(int(level.states[i]))} "
            f"has {int(level.counts[i])}, the moves give {int(expected[i])}"
        )


def streams(puzzle: Puzzle, table: Table) -> bool:
    """Whether the table is checked one level held at a time (pipeline/verify/stream.py):
    a layered puzzle without zero-cost moves or path counts, whose checks need no
    more than two adjacent levels."""
    return puzzle.graph is Graph.LAYERED and puzzle.expand_free is None and not table.has_paths


def verify(
    puzzle: Puzzle,
    table: Table,
    on_level: Callable[[int], None] | None = None,
) -> Report:
    """Check ``table`` against ``puzzle``; problems are listed, not raised."""
    report = Report(table.name)
    _files(table, report)
    if report.problems:
        return report
    report.checks.append("files match the manifest checksums")
    if not _columns(table, report):
        return report
    if streams(puzzle, table):
        from pipeline.verify.stream import Layered

        Layered(puzzle, table, report).run(on_level)
    else:
        checker = _Levels(puzzle, table, report)
        levels = table.levels()
        nxt = next(levels, None)
        while nxt is not None:
            level, nxt = nxt, next(levels, None)
            checker.level(level, nxt)
            if on_level:
                on_level(level.depth)
    total, partial = table.manifest.total, table.manifest.partial_depth
    _no_empty_level(table, report)
    if report.positions != total:
        report.problems.append(f"{report.positions} rows in all, the manifest says {total}")
    if partial is None and puzzle.expected_total is not None and total != puzzle.expected_total:
        report.problems.append(
            f"{total} positions, the puzzle has {puzzle.expected_total} reachable"
        )
    report.checks += [
        "depth 0 is the roots; states sorted and unique in each level",
        "the depth column is each file's level",
        "every parent one legal move up (or a zero-cost move in the level)",
        "every move leads at most one level on (no position missing)"
        + (f", but from depth {partial}, the last built" if partial is not None else ""),
        f"counts sum to the total ({total})",
        *(["path counts equal the sums over every move from the level above"] * table.has_paths),
        *(
            [f"partial table (depths 0..{partial}): the puzzle's total not checked"]
            * (partial is not None)
        ),
    ]
    extra = puzzle.check_table  # a family's own columns (class_size)
    if extra is not None:
        problems, checks = extra(table)
        report.problems += problems
        report.checks += checks
    return report


def _no_empty_level(table: Table, report: Report) -> None:
    """A search ends at its first empty level: a level of no rows (its count checked
    against the files) would make max_depth deeper than any position."""
    m = table.manifest
    for lv in m.levels:
        if lv.positions == 0:
            report.problems.append(
                f"depth {lv.depth}: a level of no rows in the manifest (max_depth "
                f"{m.max_depth}, max_depth_positions {m.max_depth_positions}); a search has none"
            )


#: Files a table folder may hold besides its level files: the manifest, and the
#: pattern-database array the solver derives (pipeline/solvers/optimal.py).
OWN_FILES = {"_manifest.json", "_pdb.npy"}


def _files(table: Table, report: Report) -> None:
    """Every file the manifest lists, as it lists it, and no other file."""
    for entry in table.files:
        p = table.path(entry)
        st = p.stat() if p.exists() else None
        if st is None:
            report.problems.append(f"{entry.name} is missing")
        elif not stat.S_ISREG(st.st_mode):  # a FIFO would be read forever
            report.problems.append(f"{entry.name} is not a regular file")
        elif st.st_size != entry.bytes:
            report.problems.append(
                f"{entry.name} has {st.st_size} bytes, the manifest says {entry.bytes}"
            )
        elif sha256(p) != entry.sha256:
            report.problems.append(f"{entry.name} does not match its checksum in the manifest")
    listed = {e.name for e in table.files} | OWN_FILES
    for p in sorted(table.directory.iterdir()):
        if p.name not in listed:
            report.problems.append(f"{p.name} is not listed in the manifest (a stray file)")


def _columns(table: Table, report: Report) -> bool:
    """Each file has the format's columns (False when one has not: the other checks
    cannot read it), the rows and states its manifest entry says, and its depth
    column says its level: SQL over the files reads that column, not the manifest
    (a file of 4M rows reads in a few ms)."""
    readable = True
    for entry in table.files:
        path = table.path(entry)
        pf = open_file(path, entry)
        wrong = wrong_columns(pf.schema_arrow, table.has_paths)
        if wrong:
            report.problems.append(f"{entry.name}: column {'; '.join(wrong)}")
            readable = False
            continue
        rows = pf.metadata.num_rows
        if rows != entry.rows:
            report.problems.append(
                f"{entry.name}: {rows} rows, the manifest's rows say {entry.rows}"
            )
        if rows:
            _depth_column(entry, read_column(path, pf, "depth"), report)
            _state_range(entry, pf, u64(read_column(path, pf, "state")), report)
    return readable


def _state_range(entry: FileEntry, pf: pq.ParquetFile, states: np.ndarray, report: Report) -> None:
    """The file's smallest and largest state as the manifest says them, and each row
    group's as its statistics say them: a point look-up skips files and row groups
    by those figures, so a wrong one hides a position."""
    said = {"min_state": entry.min_state, "max_state": entry.max_state}
    found = {"min_state": int(states.min()), "max_state": int(states.max())}
    for key, value in said.items():
        if value != found[key]:
            report.problems.append(
                f"{entry.name}: {key} is {value} in the manifest, the file's is {found[key]}"
            )
    at = 0
    for i in range(pf.metadata.num_row_groups):
        group = pf.metadata.row_group(i)
        stats = group.column(pf.metadata.schema.names.index("state")).statistics
        part = states[at : at + group.num_rows]
        at += group.num_rows
        real = (int(part.min()), int(part.max())) if len(part) else None
        told = (int(stats.min), int(stats.max)) if stats is not None and stats.has_min_max else None
        if told != real:
            report.problems.append(
                f"{entry.name}: row group {i}'s statistics say states {told}, it holds {real}"
            )
            return


def _depth_column(entry: FileEntry, column: pa.ChunkedArray, report: Report) -> None:
    """Every row of the file at its level (nulls too are another depth)."""
    nulls = column.null_count
    values = (column.fill_null(entry.depth) if nulls else column).to_numpy()
    off = np.flatnonzero(values != entry.depth)
    if nulls or len(off):
        e_g = f"e.g. {int(values[off[0]])}" if len(off) else "nulls"
        report.problems.append(
            f"depth {entry.depth}: {nulls + len(off)} rows of {entry.name} say another "
            f"depth in the depth column ({e_g})"
        )


class _Levels:
    """The per-level checks, with the few levels around the one checked."""

    def __init__(self, puzzle: Puzzle, table: Table, report: Report) -> None:
        self.puzzle = puzzle
        self.table = table
        self.report = report
        self.bad = report.problems.append
        self.expected = dict(table.histogram())
        self.roots = unique(np.asarray(puzzle.roots(), dtype=np.uint64))
        self.window: dict[int, Level] = {}
        self.seen = np.empty(0, np.uint64)  # only for Graph.GENERAL

    def level(self, level: Level, nxt: Level | None) -> None:
        d = level.depth
        self.window = {k: v for k, v in self.window.items() if k >= d - 1}
        self.window[d] = level
        if nxt is not None:
            self.window[nxt.depth] = nxt
        self.report.levels += 1
        self.report.positions += len(level)
        self._rows(level)
        self._parents(level)
        if self.table.has_paths:
            _check_paths(self.puzzle, level, self.window.get(d - 1), self.bad)
        if d != self.table.manifest.partial_depth:  # the moves out of the last level built
            self._closure(level, nxt)

    def _rows(self, level: Level) -> None:
        """Counts, order, and roots exactly at depth 0."""
        d, s, p = level.depth, level.states, level.parents
        if len(s) != self.expected.get(d):
            self.bad(f"depth {d}: {len(s)} rows, the manifest says {self.expected.get(d)}")
        if len(s) > 1 and not bool(np.all(s[1:] > s[:-1])):
            self.bad(f"depth {d}: states not strictly increasing (a repeat or unsorted)")
        is_root = p == NO_PARENT
        if d == 0:
            if not np.array_equal(s[is_root], self.roots):
                self.bad("depth 0: the rows without a parent are not exactly the puzzle's roots")
        elif is_root.any():
            self.bad(f"depth {d}: {int(is_root.sum())} rows without a parent")

    def _parents(self, level: Level) -> None:
        """One cost-1 move from the level above, or a free move in this level."""
        d, s, p = level.depth, level.states, level.parents
        free = self.puzzle.expand_free
        has = p != NO_PARENT
        up = self.window.get(d - 1)
        from_above = has & (_present(p, up.states) if up is not None else False)
        same = has & ~from_above
        legal = np.zeros(len(s), dtype=bool)
        legal[from_above] = one_move(self.puzzle.expand, p[from_above], s[from_above])
        if free is not None and same.any():
            inside = _present(p[same], s)
            legal[np.flatnonzero(same)[inside]] = one_move(free, p[same][inside], s[same][inside])
            if not _acyclic(level):
                self.bad(f"depth {d}: zero-cost parents form a cycle")
        wrong = has & ~legal
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            self.bad(
                f"depth {d}: {int(wrong.sum())} parents are not one legal move up, "
                f"e.g. {self.puzzle.text(int(s[i]))} <- {self.puzzle.text(int(p[i]))}"
            )

    def _closure(self, level: Level, nxt: Level | None) -> None:
        """No move leads more than one level further (nor out of the table)."""
        d, s = level.depth, level.states
        if self.puzzle.graph is Graph.GENERAL:
            # a linear merge: numpy 2's hashed union1d took 65 of 80 s on a
            # 4M-row pattern database
            if len(s) < 2 or bool(np.all(s[1:] > s[:-1])):
                self.seen = merge_sorted(self.seen, s[absent(s, self.seen)])
            else:  # an unsorted level (reported above): the slow, robust way
                self.seen = np.union1d(self.seen, s)
            allowed = [self.seen] + ([nxt.states] if nxt is not None else [])
        else:
            near = [*excluded_depths(self.puzzle.graph, d), d + 1]
            allowed = [self.window[k].states for k in near if k in self.window]
        moves = [(self.puzzle.expand, allowed, "one level")]
        if self.puzzle.expand_free is not None:
            same = [self.seen] if self.puzzle.graph is Graph.GENERAL else [s]
            moves.append((self.puzzle.expand_free, same, "zero levels"))
        for expand, targets, limit in moves:
            count, c = _missing(expand, s, targets)
            if count:
                self.bad(
                    f"depth {d}: {count} moves lead more than {limit} on "
                    f"or out of the table, e.g. to {self.puzzle.text(c)}"
                )


def duplicates(table: Table, rows: int = 1 << 25) -> int:
    """States found at more than one depth, counted range by range of states.

    Streamed: the state space is cut at row-group minima into ranges of about
    ``rows`` rows; each range's states are read from every level (only the row
    groups that overlap it), sorted and compared with their neighbours. Memory
    stays near ``rows`` states whatever the size of the table.
    """
    from pipeline.engine import radix  # numba: np.sort took 60 ns a state, this about 12
    from pipeline.storage.format import ROW_GROUP_ROWS
    from pipeline.storage.reader import LevelFiles

    mins: list[int] = []
    for entry in table.files:
        if entry.rows:
            mins += row_group_mins(open_file(table.path(entry)))
    mins.sort()
    per = max(1, rows // ROW_GROUP_ROWS)
    cuts = sorted(set(mins[per::per]))
    edges = [0, *cuts, 1 << 64]
    # Every file as one source, whatever its depth: a state repeats across them.
    everything = LevelFiles(table.directory, -1, table.files)
    dupes = 0
    for lo, hi in itertools.pairwise(edges):
        states = radix.sort_keys(everything.between(lo, hi).copy())
        dupes += int(np.count_nonzero(states[1:] == states[:-1]))
    return dupes
