"""Registry names built from parts: another metric, another goal, a typed root.

The grammar (part of the data contract, docs/SPECS.md):

    <board><suffixes>        3x3-multi, 3x3@4, 3x3-multi@4, hex6@3, triangle15@3-winnable
    <board><suffixes>~<hash> 3x3~1b2c3d4e, 3x3-multi~1b2c3d4e: from a root the user typed

``<board>`` is a built-in board (``3x3``, ``hex6``, ``triangle15`` ...), a board
its family names by a rule (any rectangle ``RxC``), or the name of a spec in
the data folder (pipeline/puzzles/spec/parse.py). The suffixes a board takes
are its family's (``Family.variants``: ``-multi`` and ``@<cell>`` for sliding
boards, ``@<hole>`` and ``-winnable`` for peg boards, none for the others).
``<hash>`` is the first 8 hex digits of the sha256 of the root as the board
prints it (``board(puzzle, state)``, e.g. ``'8 6 7 2 5 4 3 0 1'``): it depends
on the position alone, so ``3x3~h`` and ``3x3-multi~h`` start from the same
root. Such a table is found again from the root its manifest records.

The one grammar, and it names no family: each family declares its suffixes,
the puzzles they make and its typed roots (puzzles/family.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path

from pipeline.errors import PuzzleDBError, UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.builtin import FAMILIES, REGISTRY, family_of, unknown
from pipeline.puzzles.spec import parse as spec
from pipeline.storage import files, manifest

ROOTED = re.compile(r"(?P<base>[a-z0-9_][a-z0-9_@-]*)~(?P<hash>[0-9a-f]{8})")
#: A board's name, then its suffixes (the family's grammar).
BOARD = re.compile(r"(?P<board>[a-z0-9_]+)(?P<rest>[-@].*)?")


def root_hash(text: str) -> str:
    """The short stable hash of a root, from its text as the board prints it."""
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def resolve(name: str, data: Path | None = None) -> Puzzle | None:
    """The puzzle a name stands for: a built-in, else the one its parts build; None
    when it is neither (the registry says why).

    Names that depend on the data folder (specs, typed roots) need ``data``.
    """
    found = REGISTRY.get(name)
    if found is not None:
        return found
    m = ROOTED.fullmatch(name)
    if m:
        return _rooted_from_folder(name, m["base"], data)
    m = BOARD.fullmatch(name)
    board = _board(m["board"], data) if m else None
    if m is None or board is None or not m["rest"]:
        return board
    family = family_of(board)
    variants = family.variants if family is not None else None
    groups = variants.regex.fullmatch(m["rest"]) if variants is not None else None
    return variants.make(board, groups.groupdict()) if variants and groups else None


def _board(name: str, data: Path | None) -> Puzzle | None:
    """A board the grammar builds on: built-in, named by a family's rule, or a spec."""
    found = REGISTRY.get(name)
    if found is not None:
        return found
    for f in FAMILIES:
        ruled = f.variants.board(name) if f.variants and f.variants.board else None
        if ruled is not None:
            return ruled
    return spec.board(name, data) if data is not None else None


def rooted(base: Puzzle, text: str) -> Puzzle:
    """The board of ``base`` enumerated from the typed position ``text`` (``<base>~<hash>``)."""
    family = family_of(base)
    make = family.variants.rooted if family and family.variants else None
    if make is None:
        kinds = " and ".join(f.noun for f in FAMILIES if f.variants and f.variants.rooted)
        raise UnknownPuzzle(f"{base.name}: tables from a typed root are for {kinds}")
    if "@" in base.name:
        raise UnknownPuzzle(f"{base.name}: give the board without @ (the root is the goal)")
    values = base.cells.parse_values(text)
    canonical = base.cells.text(base.cells.encode(values))
    made = make(base, values, f"{base.name}~{root_hash(canonical)}")
    made.typed_root = True
    return made


def recorded_root(data: Path, name: str) -> str | None:
    """The root a built (or building) table records: its manifest, else its staging."""
    with contextlib.suppress(PuzzleDBError):
        roots = manifest.read(data / name).puzzle["roots"]
        if roots:
            return str(roots[0])
    try:  # a build in progress (progress.json holds the same description)
        progress = data / ".staging" / name / "progress.json"
        doc = files.read_json(progress, files.MANIFEST_LIMIT)
    except (OSError, ValueError):
        return None
    puzzle = doc.get("puzzle") if isinstance(doc, dict) else None
    roots = puzzle.get("roots") if isinstance(puzzle, dict) else None
    return str(roots[0]) if isinstance(roots, list) and roots else None


def _rooted_from_folder(name: str, base: str, data: Path | None) -> Puzzle | None:
    if data is None:
        return None
    root = recorded_root(data, name)
    if root is None:
        return None
    board = resolve(base, data)
    if board is None:
        raise unknown(base)
    p = rooted(board, root)
    if p.name != name:
        raise UnknownPuzzle(f"{name}: the root its manifest records hashes to {p.name}")
    return p
