"""The registry: every puzzle by its public name (part of the data contract).

A name is a built-in (builtin.py), a name of the grammar built from parts
(names.py: ``3x3@4``, ``triangle15@3-winnable``, ``plus`` from a kept spec,
``3x3~1b2c3d4e``), or a group of tables (``4x4-pdb``). Callers find puzzles
here; nothing below imports it back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline.draw.art import Art
from pipeline.errors import PuzzleDBError
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.builtin import BUILTIN, FAMILIES, GROUPS, REGISTRY, family_of, unknown
from pipeline.puzzles.names import resolve
from pipeline.puzzles.spec import parse as spec

__all__ = [
    "FAMILIES",
    "GROUPS",
    "REGISTRY",
    "art_of",
    "defaults",
    "derived",
    "expand_names",
    "family_codec",
    "family_of",
    "family_sql",
    "get",
    "listed",
]


def get(name: str, data: Path | None = None) -> Puzzle:
    """The puzzle registered as ``name``; UnknownPuzzle lists the known names.

    Names built from parts (``3x3-multi@4``) resolve too (names.py); those whose
    definition lives in a data folder (specs, typed roots) need ``data``.
    """
    found = resolve(name, data)
    if found is None:
        raise unknown(name)
    return found


def defaults() -> list[Puzzle]:
    """The puzzles ``make build-db`` builds."""
    return [p for p in BUILTIN if p.default]


def derived(name: str) -> bool:
    """Whether table ``name`` is made for a solver (:attr:`Puzzle.derived`: the pattern
    databases). Only built-ins are: no spec, goal cell or typed root makes one, and a
    ``-winnable`` table is a table people query, not derived."""
    found = REGISTRY.get(name)
    return found is not None and found.derived


def expand_names(names: list[str]) -> list[str]:
    """Replace each group name by its tables, keeping order and dropping repeats."""
    out: list[str] = []
    for n in names:
        for m in GROUPS.get(n, [n]):
            if m not in out:
                out.append(m)
    return out


def listed(data: Path) -> list[Puzzle]:
    """What ``puzzledb list`` shows: the built-ins, the tables of each spec kept in
    ``data``, and every other table built there (other goals, typed roots)."""
    out = dict(REGISTRY)
    for s in spec.kept(data):
        for suffix in spec.families()[s.family].tables:
            out.setdefault(s.name + suffix, get(s.name + suffix, data))
    for manifest in sorted(data.glob("*/_manifest.json")):
        name = manifest.parent.name
        if name not in out:
            with contextlib.suppress(PuzzleDBError):
                out[name] = get(name, data)
    return list(out.values())


def family_sql(found: list[Any]) -> list[Any]:
    """Catalog statements the families add for the tables in ``found`` (manifests)."""
    return [stmt for f in FAMILIES if f.sql is not None for stmt in f.sql(found)]


def family_codec(m: Any) -> Mapping[str, str] | None:
    """The codec macros' SQL a family gives for table ``m`` (a checked manifest) whose
    state is no cells, else None (the cell codec the manifest records reads it)."""
    for f in FAMILIES:
        made = f.codec(m) if f.codec is not None else None
        if made is not None:
            return made
    return None


def art_of(puzzle: Puzzle) -> Art:
    """The drawing of ``puzzle``: its family's for its class, else the plain one."""
    family = family_of(puzzle)
    made = family.art_class(puzzle) if family is not None else None
    return (made or Art)(puzzle)
