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

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.engine import radix
from pipeline.engine.core import Graph
from pipeline.puzzles.base import Puzzle
from pipeline.storage import derived
from pipeline.storage.format import ROW_GROUP_ROWS, wrong_columns
from pipeline.storage.integrity import sha256
from pipeline.storage.manifest import FileEntry
from pipeline.storage.reader import LevelFiles, open_file, read_column, row_group_mins, u64
from pipeline.storage.table import Table
from pipeline.verify.report import Report
from pipeline.verify.stream import Layered
from pipeline.verify.window import Windowed


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
        Layered(puzzle, table, report).run(on_level)
    else:
        Windowed(puzzle, table, report).run(on_level)
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
#: arrays the solvers derive from the table (storage/derived.py).
OWN_FILES = {"_manifest.json", *derived.TABLE_ARRAYS}


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
        lo, hi = (stats.min, stats.max) if stats is not None and stats.has_min_max else (None, None)
        told = (int(lo), int(hi)) if lo is not None and hi is not None else None
        if told != real:
            report.problems.append(
                f"{entry.name}: row group {i}'s statistics say states {told}, it holds {real}"
            )
            return


def _depth_column(entry: FileEntry, column: pa.ChunkedArray, report: Report) -> None:
    """Every row of the file at its level (nulls too are another depth)."""
    nulls = column.null_count
    filled = column.fill_null(pa.scalar(entry.depth, column.type)) if nulls else column
    values = filled.to_numpy()
    off = np.flatnonzero(values != entry.depth)
    if nulls or len(off):
        e_g = f"e.g. {int(values[off[0]])}" if len(off) else "nulls"
        report.problems.append(
            f"depth {entry.depth}: {nulls + len(off)} rows of {entry.name} say another "
            f"depth in the depth column ({e_g})"
        )


def verify_all(
    puzzle: Puzzle, table: Table, on_level: Callable[[int], None] | None = None
) -> Report:
    """:func:`verify`, then, when it passed, each state once in the whole table (streamed
    by ranges of states, so a 239-million-row table need not fit in memory)."""
    report = verify(puzzle, table, on_level)
    if report.ok:
        dupes = duplicates(table)
        if dupes:
            report.problems.append(f"{dupes} states appear at more than one depth")
        else:
            report.checks.append("each state once in the whole table")
    return report


def duplicates(table: Table, rows: int = 1 << 25) -> int:
    """States found at more than one depth, counted range by range of states.

    Streamed: the state space is cut at row-group minima into ranges of about
    ``rows`` rows; each range's states are read from every level (only the row
    groups that overlap it), sorted (by radix: quicker than ``np.sort`` on these
    keys, docs/BENCHMARKS.md#figures-behind-the-code) and compared with their
    neighbours. Memory stays near ``rows`` states whatever the size of the table.
    """
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
