"""A table's puzzle as the registry (or the kept spec) defines it, never as a data folder says.

A manifest records its puzzle (pipeline/storage/manifest.py), but a data folder
is untrusted input: a manifest whose symbols are swapped would print wrong
boards, and text in it must never reach SQL. So every reader pairs a table
with the registry's puzzle of its name and requires the manifest to record
exactly that puzzle's description (the title aside: it changes no answer);
the catalog's SQL is then made from the registry's puzzle alone.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from pipeline import hints
from pipeline.errors import CorruptTable, PuzzleDBError
from pipeline.puzzles import registry
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.reserved import reserved
from pipeline.storage.format import COLUMNS, MANIFEST, PATHS_COLUMN
from pipeline.storage.manifest import Manifest

#: Fields of a manifest's puzzle that may differ from the registry's (no answer depends on them).
FREE = ("title",)


def puzzle_of(m: Manifest, data: Path) -> Puzzle:
    """The puzzle of table ``m`` in ``data``; CorruptTable (one line) when its name is
    reserved, names no puzzle here, or its manifest records the puzzle otherwise."""
    where = f"{data / m.table / MANIFEST}"
    why = reserved(m.table)
    if why is not None:
        raise CorruptTable(f"{where}: the table's name is refused: {why}")
    try:
        p = registry.get(m.table, data)
    except PuzzleDBError as e:
        raise CorruptTable(f"{where}: names no puzzle known here ({_first_line(e)})") from None
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
    return p


def _columns(m: Manifest) -> set[str]:
    """The columns a manifest declares, the optional path counts aside."""
    return set(m.columns) - set(PATHS_COLUMN)


def checked(m: Manifest, data: Path) -> Manifest:
    """``m`` with its puzzle replaced by the registry's description (keeping its title),
    so whatever is made from it is made from trusted values; CorruptTable as :func:`puzzle_of`."""
    described = _canonical(puzzle_of(m, data).describe())
    return dataclasses.replace(m, puzzle={**described, "title": m.puzzle["title"]})


def first_difference(recorded: dict[str, Any], described: dict[str, object]) -> str | None:
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


def _canonical(described: dict[str, object]) -> dict[str, Any]:
    """The description as JSON gives it back (tuples as lists), as a manifest holds it."""
    return dict(json.loads(json.dumps(described)))


def _text(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(type(value))  # never equal to a description's text


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
