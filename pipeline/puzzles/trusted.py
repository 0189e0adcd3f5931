"""A table's puzzle as the registry (or the kept spec) defines it, never as a data folder says.

A manifest records its puzzle (pipeline/storage/manifest.py), but a data folder
is untrusted input: a manifest whose symbols are swapped would print wrong
boards, and text in it must never reach SQL. So every reader pairs a table
with the registry's puzzle of its name and requires the manifest to record
exactly that puzzle's description (the title aside: it changes no answer);
the catalog's SQL is then made from the registry's puzzle alone.

:func:`scan` reads every table folder of a data folder so, once a snapshot of
the folder (service/folder.py holds the result): each sound table as a
:class:`Checked` (its manifest and its puzzle), each damaged one with the
line that says why.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from pipeline import hints
from pipeline.errors import CorruptTable, PuzzleDBError
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.reserved import reserved
from pipeline.storage import files, integrity
from pipeline.storage import manifest as manifests
from pipeline.storage.format import COLUMNS, MANIFEST, NAME, PATHS_COLUMN
from pipeline.storage.manifest import Manifest

#: A data folder's resolver: the puzzle of a name (the folder's Registry.puzzle).
Resolve = Callable[[str], Puzzle]

#: Fields of a manifest's puzzle that may differ from the registry's (no answer depends on them).
FREE = ("title",)


@dataclasses.dataclass(frozen=True)
class Checked:
    """A sound table: its manifest, whose puzzle is the registry's description (its own
    title kept), and the registry's puzzle of its name."""

    manifest: Manifest
    puzzle: Puzzle

    @property
    def table(self) -> str:
        return self.manifest.table


#: The sound tables by name, and the damaged ones with the line that says why.
Scan = tuple[dict[str, Checked], dict[str, str]]


def scan(data: Path, resolve: Resolve) -> Scan:
    """Every table folder of ``data`` (a folder holding a manifest, a link or a broken
    one too), by name: the sound ones checked against their puzzle and their files'
    footers, the damaged ones with the one line that says what is wrong and which
    command mends it."""
    return split({name: table(data, name, resolve) for name in table_names(data)})


def split(checked: dict[str, Checked | str | None]) -> Scan:
    """Tables checked one by one (:func:`table`), as a :data:`Scan`."""
    found = {n: t for n, t in checked.items() if isinstance(t, Checked)}
    broken = {n: t for n, t in checked.items() if isinstance(t, str)}
    return found, broken


def table(data: Path, name: str, resolve: Resolve) -> Checked | str | None:
    """Table ``name`` of ``data`` checked as :func:`scan` checks each: a sound one, the
    line that says why it is damaged, or None where no table of that name is."""
    p = data / name
    if not (NAME.fullmatch(name) and os.path.lexists(p / MANIFEST)):
        return None
    if p.is_symlink():
        return f"{p} is a symbolic link, not a table's folder (never followed)"
    if not files.is_folder(p):
        return None
    try:
        m = manifests.read(p)
        checked = check(m, puzzle_named(m, data, resolve), data)
        integrity.check_footers(p, checked.manifest)
    except CorruptTable as e:
        return str(e)
    return checked


def hashed(data: Path, tables: Scan) -> Scan:
    """``tables`` with every file of each sound one hashed against its manifest (what
    DuckDB reads unchecked: remembered by stamp, integrity.check_table); one that fails
    moves to the damaged ones."""
    found, broken = dict(tables[0]), dict(tables[1])
    for name, t in list(found.items()):
        try:
            integrity.check_table(data / name, t.manifest)
        except CorruptTable as e:
            del found[name]
            broken[name] = str(e)
    return found, broken


def table_names(data: Path) -> list[str]:
    """The names of the folders of ``data`` that hold a manifest (whatever it is: a link
    is one, refused when read), sorted; never an error (a loop of links is no folder)."""
    try:
        names = sorted(data.iterdir()) if data.is_dir() else []
    except OSError:
        return []
    return [  # a folder of no table's name is no table (and its name is never printed)
        p.name
        for p in names
        if NAME.fullmatch(p.name)
        and (files.is_folder(p) or p.is_symlink())
        and os.path.lexists(p / MANIFEST)
    ]


def puzzle_named(m: Manifest, data: Path, resolve: Resolve) -> Puzzle:
    """The registry's puzzle of table ``m``'s name, reading states as the manifest's format
    version wrote them (``Puzzle.for_format``); CorruptTable (one line) when the name
    is reserved or names no puzzle here."""
    where = f"{data / m.table / MANIFEST}"
    why = reserved(m.table)
    if why is not None:
        raise CorruptTable(f"{where}: the table's name is refused: {why}")
    try:
        return resolve(m.table).for_format(m.format_version)  # its states as written
    except PuzzleDBError as e:
        raise CorruptTable(f"{where}: names no puzzle known here ({_first_line(e)})") from None


def check(m: Manifest, p: Puzzle, data: Path) -> Checked:
    """Table ``m`` with its puzzle ``p``; CorruptTable (one line) when its manifest
    records the puzzle otherwise. The manifest's puzzle becomes ``p``'s description
    (its title kept), so whatever is made from it is made from trusted values."""
    where = f"{data / m.table / MANIFEST}"
    field = first_difference(m.puzzle, p.describe())
    try:
        p.cells.drawing()  # the layout's shape, the one the catalog's SQL is made from
    except ValueError as e:
        raise CorruptTable(f"{where}: {m.table}: {e}") from None
    if field is None and _columns(m) != {*COLUMNS, *p.extra_docs}:
        field = "columns"  # a class_size declared on a plain table was read as one
    if field is not None:
        rebuild = hints.build(m.table, data, force=True)
        raise CorruptTable(
            f"{where}: {'' if field == 'columns' else 'puzzle.'}{field} is not the "
            f"{m.table} puzzle's: rebuild with {rebuild}"
        )
    described = _canonical(p.describe())
    return Checked(dataclasses.replace(m, puzzle={**described, "title": m.puzzle["title"]}), p)


def _columns(m: Manifest) -> set[str]:
    """The columns a manifest declares, the optional path counts aside."""
    return set(m.columns) - set(PATHS_COLUMN)


def first_difference(recorded: Mapping[str, object], described: Mapping[str, object]) -> str | None:
    """The first field (in the registry's order) whose value differs, by type too
    (``true`` is not ``1``, ``1.0`` is not ``1``), or that only one side has."""
    want = _canonical(described)
    for key in [*want, *(k for k in recorded if k not in want)]:
        if key in FREE:
            continue
        if key not in recorded or key not in want:
            return key
        if _text(recorded[key]) != _text(want[key]):
            return key
    return None


def _canonical(described: Mapping[str, object]) -> dict[str, object]:
    """The description as JSON gives it back (tuples as lists), as a manifest holds it."""
    return dict(json.loads(json.dumps(described)))


def _text(value: object) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(type(value))  # never equal to a description's text


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
