"""The manifest of a table, typed: every field checked when it is read.

A manifest is input like any other file: a hand-edited or damaged one must
give one clear error, never a traceback nor a value that reaches SQL or a
path unchecked. :func:`read` validates the types and ranges of every field
the project uses and how they agree (counts sum to the total, files belong
to levels); unknown extra fields are kept as they are.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, TypeGuard, TypeVar, cast

from pipeline import hints
from pipeline.engine.core import Graph
from pipeline.errors import CorruptTable
from pipeline.storage import files
from pipeline.storage.format import (
    CHUNKS_VERSION,
    CLASS_SIZE,
    COLUMNS,
    FILE_NAME,
    FILE_ROWS,
    MANIFEST,
    NAME,
    ORBITS,
    READ_VERSIONS,
    ROW_GROUP_ROWS,
)

_HEX = set("0123456789abcdef")
_HEXES = re.compile("[0-9a-f]*")
#: The most a file of ``rows`` rows can take on disk: every column at full width
#: (state, parent, class size 8 bytes each, depth 1, path counts 16: 41 bytes),
#: uncompressible, with page headers and the footer. A file's size is checked
#: against this before it is hashed or its footer read, so a sparse file of 8 GiB
#: listed as 10 rows is refused, not hashed for seconds.
ROW_BYTES = 64
FILE_SLACK = 2 << 20


def most_bytes(rows: int) -> int:
    """The largest size a level file of ``rows`` rows may have."""
    return rows * ROW_BYTES + FILE_SLACK


class _Invalid(ValueError):
    pass


#: A JSON object as read: its values are checked where they are used.
Doc = Mapping[str, object]

#: A puzzle's description as its manifest records it (``Puzzle.describe``): the
#: fields the catalog turns into SQL are checked here (:func:`_puzzle`), the whole
#: is held against the registry's description before a table is used
#: (puzzles/trusted.py).
# Any: a family's own fields (jumps, symmetries, ...) are read by its own SQL
Description = dict[str, Any]


class BuildInfo(TypedDict, total=False):
    """How a table was built (other fields a manifest holds are kept as they are)."""

    started: str
    finished: str
    seconds: float
    executor: str


_T = TypeVar("_T")


def _object(doc: object, where: str) -> dict[str, object]:
    """``doc`` as a JSON object (its keys are strings); _Invalid if it is none."""
    if not isinstance(doc, dict):
        raise _Invalid(f"{where} is not an object")
    return doc


def _get(doc: Doc, key: str, kind: type[_T], where: str) -> _T:
    value = doc.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise _Invalid(f"{where}{key} is {value!r}, not a valid value")
    return value


def _number(doc: Doc, key: str, where: str) -> float:
    """A number (an int stays one): never a bool."""
    value = doc.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise _Invalid(f"{where}{key} is {value!r}, not a valid value")
    return value


def _count(doc: Doc, key: str, where: str, top: int = 1 << 64) -> int:
    value = _get(doc, key, int, where)
    if not 0 <= value < top:
        raise _Invalid(f"{where}{key} = {value} is out of range")
    return value


def _state(doc: Doc, key: str, where: str) -> int | None:
    return None if doc.get(key) is None else _count(doc, key, where)


#: A level file's entry as a JSON object: what the writer returns, progress.json and
#: the manifest list (:meth:`FileEntry.parse` checks one).
# Any: its values are str, int and None, which the build adds up and pops by name
EntryDoc = dict[str, Any]


@dataclass(frozen=True)
class FileEntry:
    """One Parquet file of a table."""

    name: str
    depth: int
    rows: int
    bytes: int
    sha256: str
    min_state: int | None
    max_state: int | None
    #: The sha256 of the file's footer (files written since footers are hashed).
    footer_sha256: str | None = None
    #: The sha256 of each column chunk, by row group then column in the file's order
    #: (format version 2; checked as each is read: storage/reader.py).
    chunk_sha256: tuple[tuple[str, ...], ...] | None = None

    @classmethod
    def parse(cls, raw: object, where: str) -> FileEntry:
        doc = _object(raw, where)
        name = _get(doc, "name", str, where)
        match = FILE_NAME.fullmatch(name)
        digest = _get(doc, "sha256", str, where)
        if match is None:
            raise _Invalid(f"{where}name {name!r} is not a level file name (dDDD-PPP.parquet)")
        footer = doc.get("footer_sha256")
        if not _is_digest(digest) or not (footer is None or _is_digest(footer)):
            raise _Invalid(f"{where}sha256 is not a sha256 digest")
        entry = cls(
            name,
            _count(doc, "depth", where, 256),
            _count(doc, "rows", where),
            _count(doc, "bytes", where),
            digest,
            _state(doc, "min_state", where),
            _state(doc, "max_state", where),
            footer,
            _chunks(doc.get("chunk_sha256"), where),
        )
        if int(match.group(1)) != entry.depth:
            raise _Invalid(f"{where}name {name!r} does not match depth {entry.depth}")
        if entry.rows > FILE_ROWS or entry.bytes > most_bytes(entry.rows):
            raise _Invalid(
                f"{where[:-1]}: {name} has {entry.rows:,} rows in {entry.bytes:,} bytes: a level "
                f"file holds at most {FILE_ROWS:,} rows, in at most {ROW_BYTES} bytes a row"
            )
        return entry

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = dict(self.__dict__)
        if out["footer_sha256"] is None:
            del out["footer_sha256"]
        if self.chunk_sha256 is None:
            del out["chunk_sha256"]
        else:
            out["chunk_sha256"] = [list(row) for row in self.chunk_sha256]
        return out

    def fingerprint(self) -> str:
        """The sha256 of the entry as JSON: every figure of it at once (what a build
        remembers of a file it staged)."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()


def _is_digest(d: object) -> TypeGuard[str]:
    return isinstance(d, str) and len(d) == 64 and set(d) <= _HEX


#: The most column chunks a level file's entry lists: row groups a file (FILE_ROWS
#: rows in groups of ROW_GROUP_ROWS) and columns a row group (the format's five and
#: a puzzle's own, with room).
MOST_GROUPS = FILE_ROWS // ROW_GROUP_ROWS
MOST_COLUMNS = 16


def _chunks(doc: object, where: str) -> tuple[tuple[str, ...], ...] | None:
    """``chunk_sha256``: a list (row groups) of lists (columns) of sha256 digests."""
    if doc is None:
        return None
    if not isinstance(doc, list) or len(doc) > MOST_GROUPS or not all(map(_digests, doc)):
        raise _Invalid(f"{where}chunk_sha256 is not a list of row groups' column chunk digests")
    return tuple(map(tuple, doc))


def _digests(row: object) -> bool:
    """Whether ``row`` is a row group's list of column chunk digests (one match for all)."""
    if not isinstance(row, list) or not 0 < len(row) <= MOST_COLUMNS:
        return False
    try:
        joined = "".join(row)
    except TypeError:  # not all strings
        return False
    return len(joined) == 64 * len(row) and _HEXES.fullmatch(joined) is not None


@dataclass
class LevelEntry:
    """One depth: its count, its files and how it was made (``stats``: numbers and flags)."""

    depth: int
    positions: int
    seconds: float
    files: list[str] = field(default_factory=list)
    stats: dict[str, float | int | bool] = field(default_factory=dict)

    @classmethod
    def parse(cls, raw: object, where: str) -> LevelEntry:
        doc = _object(raw, where)
        files = doc.get("files", [])
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            raise _Invalid(f"{where}files is not a list of names")
        stats: dict[str, float | int | bool] = {}
        for k, v in doc.items():
            if k in ("depth", "positions", "seconds", "files"):
                continue
            if not isinstance(v, int | float):  # a bool is an int
                raise _Invalid(f"{where}build statistics must be numbers")
            stats[k] = v
        seconds = _number(doc, "seconds", where)
        return cls(
            _count(doc, "depth", where, 256), _count(doc, "positions", where), seconds, files, stats
        )

    def to_dict(self, files: bool = True) -> dict[str, object]:
        out: dict[str, object] = {
            "depth": self.depth,
            "positions": self.positions,
            "seconds": self.seconds,
        }
        out.update(self.stats)
        return {**out, "files": self.files} if files else out


@dataclass
class Manifest:
    """What a table holds: its puzzle, counts per depth and files (complete unless
    ``partial_depth`` is set)."""

    format_version: int
    table: str
    puzzle: Description
    columns: dict[str, str]
    total: int
    max_depth: int
    max_depth_positions: int
    levels: list[LevelEntry]
    files: list[FileEntry]
    build: BuildInfo
    versions: Mapping[str, object]
    #: Set on a table of the first levels only (``build --max-depth N``): the last
    #: depth built (= max_depth). Absent (None) on a complete table.
    partial_depth: int | None = None
    #: True on the manifest a build returns when the table was already built and
    #: nothing was done (not stored in the file).
    up_to_date: bool = field(default=False, compare=False)

    @property
    def has_paths(self) -> bool:
        return "paths" in self.columns

    def files_at(self, depth: int) -> list[FileEntry]:
        return [f for f in self.files if f.depth == depth]

    def histogram(self) -> list[tuple[int, int]]:
        return [(lv.depth, lv.positions) for lv in self.levels]

    @property
    def classes(self) -> bool:
        """Whether the table holds symmetry classes (its class_size column)."""
        return CLASS_SIZE in self.columns

    def orbit_sums(self) -> list[int] | None:
        """The positions the classes of each level stand for, as recorded by the
        build (None: not a table of classes, or built before they were kept)."""
        sums = [lv.stats.get(ORBITS) for lv in self.levels]
        return None if None in sums else [int(s) for s in sums if s is not None]

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = dict(self.__dict__)
        del out["up_to_date"]
        if out["partial_depth"] is None:
            del out["partial_depth"]
        out["levels"] = [lv.to_dict() for lv in self.levels]
        out["files"] = [f.to_dict() for f in self.files]
        return out

    @classmethod
    def parse(cls, raw: object) -> Manifest:
        """A manifest from its JSON document; _Invalid names the first bad field."""
        if not isinstance(raw, dict):
            raise _Invalid("the manifest is not a JSON object")
        doc = _object(raw, "")
        version = doc.get("format_version")
        if type(version) is not int or version not in READ_VERSIONS:  # true == 1 in Python
            reads = " and ".join(map(str, READ_VERSIONS))
            raise _Invalid(f"format version {version!r}, this puzzledb reads {reads}")
        table = _get(doc, "table", str, "")
        if not NAME.fullmatch(table):
            raise _Invalid(f"table {table!r} is not a table name")
        levels = [
            LevelEntry.parse(lv, f"levels[{i}].") for i, lv in enumerate(_list(doc, "levels"))
        ]
        files = [FileEntry.parse(f, f"files[{i}].") for i, f in enumerate(_list(doc, "files"))]
        m = cls(
            version,
            table,
            _puzzle(doc.get("puzzle")),
            _strings(doc, "columns"),
            _count(doc, "total", ""),
            _count(doc, "max_depth", "", 256),
            _count(doc, "max_depth_positions", ""),
            levels,
            files,
            _build(doc),
            _get(doc, "versions", dict, ""),
            _state(doc, "partial_depth", ""),
        )
        _agree(m)
        _hashed(m)
        return m


def _list(doc: Doc, key: str) -> list[object]:
    return _get(doc, key, list, "")


def _strings(doc: Doc, key: str) -> dict[str, str]:
    value = _get(doc, key, dict, "")
    if not all(isinstance(v, str) for v in value.values()) or not set(COLUMNS) <= set(value):
        raise _Invalid(f"{key} must name the columns state, depth and parent")
    return value


def _build(doc: Doc) -> BuildInfo:
    """How the table was built: its times strings, its seconds a number (other
    fields kept as they are)."""
    build = _get(doc, "build", dict, "")
    for key in ("started", "finished", "executor"):
        if key in build:
            _get(build, key, str, "build.")
    if "seconds" in build:
        _number(build, "seconds", "build.")
    return cast(BuildInfo, build)


def _puzzle(doc: object) -> Description:
    """The puzzle's description: the fields the catalog turns into SQL, checked."""
    if not isinstance(doc, dict):
        raise _Invalid("puzzle is not an object")
    for key in ("name", "title", "origin", "encoding", "separator", "layout"):
        _get(doc, key, str, "puzzle.")
    if doc.get("graph") not in set(Graph):
        raise _Invalid(f"puzzle.graph is {doc.get('graph')!r}, not a graph kind")
    cells = _count(doc, "cells", "puzzle.", 65)
    bits = _count(doc, "bits_per_cell", "puzzle.", 9)
    symbols = _get(doc, "symbols", list, "puzzle.")
    if cells * bits > 64 or not 0 < len(symbols) <= 1 << bits:
        raise _Invalid("puzzle.cells and bits_per_cell do not fit a 64-bit state")
    if not all(isinstance(s, str) and s for s in symbols):
        raise _Invalid("puzzle.symbols must be non-empty strings")
    roots = _get(doc, "roots", list, "puzzle.")
    if not all(isinstance(r, str) for r in roots):
        raise _Invalid("puzzle.roots must be strings")
    return doc


def _agree(m: Manifest) -> None:
    """The counts and files agree with each other."""
    if sum(lv.positions for lv in m.levels) != m.total:
        raise _Invalid(f"the levels' positions do not sum to the total {m.total}")
    if not m.levels or m.levels[-1].depth != m.max_depth:
        raise _Invalid(f"max_depth {m.max_depth} is not the last level's depth")
    if m.levels[-1].positions != m.max_depth_positions:
        raise _Invalid("max_depth_positions is not the last level's count")
    if m.partial_depth is not None and m.partial_depth != m.max_depth:
        raise _Invalid(f"partial_depth {m.partial_depth} is not the last level's depth")
    depths = [lv.depth for lv in m.levels]
    if depths != list(range(len(depths))):
        raise _Invalid("levels must run 0, 1, 2, ... in order")
    _agree_orbits(m)
    empty = [lv.depth for lv in m.levels if lv.positions == 0]
    if empty:  # a search ends at its first empty level: it is never recorded
        raise _Invalid(f"depth {empty[0]} holds no positions")
    _agree_files(m)
    for lv in m.levels:
        mine = m.files_at(lv.depth)
        if sum(f.rows for f in mine) != lv.positions or [f.name for f in mine] != lv.files:
            raise _Invalid(f"the files of depth {lv.depth} do not hold its {lv.positions} rows")


def _agree_files(m: Manifest) -> None:
    """Each file listed once, each at a depth that is a level (a file of no level was
    read as rows by every SQL view and counted by none)."""
    names = [f.name for f in m.files]
    if len(set(names)) != len(names):
        raise _Invalid("a file is listed twice")
    levels = {lv.depth for lv in m.levels}
    stray = [f for f in m.files if f.depth not in levels]
    if stray:
        raise _Invalid(f"file {stray[0].name} belongs to no level (depth {stray[0].depth})")


def _hashed(m: Manifest) -> None:
    """Version 2 hashes every file's footer and column chunks (storage/reader.py); a
    file of version 1 without them is hashed whole before it is read."""
    if m.format_version < CHUNKS_VERSION:
        return
    for i, f in enumerate(m.files):
        if f.footer_sha256 is None or f.chunk_sha256 is None:
            missing = "footer_sha256" if f.footer_sha256 is None else "chunk_sha256"
            raise _Invalid(f"files[{i}].{missing} is missing (format version {m.format_version})")


def _agree_orbits(m: Manifest) -> None:
    """Orbit sums (optional) on every level of a table of classes or on none, each
    between its classes and its classes times the symmetries."""
    have = [lv for lv in m.levels if ORBITS in lv.stats]
    if not have:
        return
    if not m.classes or len(have) != len(m.levels):
        raise _Invalid(f"{ORBITS} must be on every level of a table with a class_size column")
    symmetries = m.puzzle.get("symmetries")
    most = len(symmetries) if isinstance(symmetries, list) else 1
    for lv in have:
        n = lv.stats[ORBITS]
        if type(n) is not int or not lv.positions <= n <= lv.positions * most:
            raise _Invalid(f"levels[{lv.depth}].{ORBITS} = {n!r} is not a sum of class sizes")


def read(directory: Path) -> Manifest:
    """The manifest of the table in ``directory``, validated; CorruptTable names the fault."""
    path = directory / MANIFEST
    rebuild = f"rebuild with {hints.build(directory.name, directory.parent, force=True)}"
    try:
        doc = files.read_json(path, files.MANIFEST_LIMIT)
    except (OSError, ValueError, RecursionError) as e:
        raise CorruptTable(f"{path} cannot be read ({_first_line(e)}): {rebuild}") from None
    try:
        m = Manifest.parse(doc)
    except _Invalid as e:
        raise CorruptTable(f"{path}: {e}: {rebuild}") from None
    if m.table != directory.name:
        raise CorruptTable(f"{path} describes table {m.table!r}, not {directory.name!r}")
    return m


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
