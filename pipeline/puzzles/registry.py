"""The registry: every puzzle by its public name (part of the data contract).

A name is a built-in (builtin.py), a name of the grammar built from parts
(names.py: ``3x3@4``, ``triangle15@3-winnable``, ``plus`` from a kept spec,
``3x3~1b2c3d4e``), or a group of tables (``4x4-pdb``).

:class:`Registry` is the one resolver of a data folder: it turns a name into
its puzzle object once, and keeps it until the folder changes (a spec kept or
removed, a table built: service/folder.py tells it). Below the API every
function takes puzzle objects, never names. :func:`get` answers for the names
no data folder defines (built-ins and names made from their parts): the
tests' and notebooks' way to a built-in puzzle.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from pipeline.draw.art import Art
from pipeline.errors import PuzzleDBError
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.builtin import BUILTIN, FAMILIES, GROUPS, REGISTRY, family_of, unknown
from pipeline.puzzles.family import Statement
from pipeline.puzzles.names import resolve
from pipeline.puzzles.spec import parse as spec
from pipeline.puzzles.trusted import Checked
from pipeline.storage.format import MANIFEST

__all__ = [
    "FAMILIES",
    "GROUPS",
    "REGISTRY",
    "Registry",
    "art_of",
    "defaults",
    "expand_names",
    "family_codec",
    "family_of",
    "family_sql",
    "get",
]


class Registry:
    """The puzzles known in one data folder (None: built-ins and their parts only), by
    name, each made once until :meth:`forget` (the folder changed)."""

    def __init__(self, data: Path | None) -> None:
        self.data = data
        self._made: dict[str, Puzzle] = {}

    def forget(self) -> None:
        """Drop the puzzles made: the folder's specs or manifests changed."""
        self._made.clear()

    def puzzle(self, name: str) -> Puzzle:
        """The puzzle registered as ``name``; UnknownPuzzle names the near misses."""
        if name not in self._made:
            found = resolve(name, self.data)
            if found is None:
                raise unknown(name)
            self._made[name] = found
        return self._made[name]

    def puzzles(self, names: Iterable[str]) -> list[Puzzle]:
        """The puzzles of ``names``, each group name replaced by its tables (a spec's
        ``<name>-pdb``: its pattern tables)."""
        return [self.puzzle(n) for n in expand_names(list(names), self.data)]

    def with_requirements(self, chosen: list[Puzzle]) -> list[Puzzle]:
        """``chosen`` in build order: each derived table after the tables it is made from."""
        out: list[Puzzle] = []
        for p in chosen:
            for r in self.with_requirements([self.puzzle(r) for r in p.requires]):
                if r.name not in [q.name for q in out]:
                    out.append(r)
            if p.name not in [q.name for q in out]:
                out.append(p)
        return out

    def listed(self) -> list[Puzzle]:
        """What ``puzzledb list`` shows: the built-ins, the tables of each spec kept in
        the folder, and every other table built there (other goals, typed roots)."""
        out = dict(REGISTRY)
        if self.data is None:
            return list(out.values())
        for s in spec.kept(self.data):
            for suffix in spec.families()[s.family].tables:
                with contextlib.suppress(PuzzleDBError):
                    out.setdefault(s.name + suffix, self.puzzle(s.name + suffix))
        for manifest in sorted(self.data.glob(f"*/{MANIFEST}")):
            name = manifest.parent.name
            if name not in out:
                with contextlib.suppress(PuzzleDBError):
                    out[name] = self.puzzle(name)
        return list(out.values())


def get(name: str) -> Puzzle:
    """The puzzle ``name`` stands for without a data folder (a built-in, or a name made
    from a built-in's parts: ``3x3-multi@4``); UnknownPuzzle lists the known names."""
    return Registry(None).puzzle(name)


def defaults() -> list[Puzzle]:
    """The puzzles ``make build-db`` builds."""
    return [p for p in BUILTIN if p.default]


def expand_names(names: list[str], data: Path | None = None) -> list[str]:
    """Replace each group name by its tables, keeping order and dropping repeats
    (``<name>-pdb``: a spec's pattern tables too, given ``data``)."""
    out: list[str] = []
    for n in names:
        for m in GROUPS.get(n) or _patterns(n, data) or [n]:
            if m not in out:
                out.append(m)
    return out


def _patterns(name: str, data: Path | None) -> list[str]:
    """The pattern tables ``<board>-pdb`` stands for (none: it is no such name)."""
    if data is None or not name.endswith("-pdb"):
        return []
    with contextlib.suppress(PuzzleDBError):
        board = resolve(name.removesuffix("-pdb"), data)
        return list(board.pattern_tables) if board is not None else []
    return []


def art_of(puzzle: Puzzle) -> Art:
    """The drawing of ``puzzle``: its family's for its class, else the plain one."""
    family = family_of(puzzle)
    made = family.art_class(puzzle) if family is not None else None
    return (made or Art)(puzzle)


def family_sql(found: list[Checked]) -> list[Statement]:
    """Catalog statements the families add for the tables in ``found``."""
    return [stmt for f in FAMILIES if f.sql is not None for stmt in f.sql(found)]


def family_codec(table: Checked) -> Mapping[str, str] | None:
    """The codec macros' SQL a family gives for ``table`` whose state is no cells, else
    None (the cell codec the manifest records reads it)."""
    for f in FAMILIES:
        made = f.codec(table) if f.codec is not None else None
        if made is not None:
            return made
    return None
