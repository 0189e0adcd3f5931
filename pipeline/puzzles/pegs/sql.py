"""The peg family's part of the DuckDB catalog: jump tests and winnable positions.

Generated from each peg table's puzzle as the registry describes it (its jump
lines, symmetries, and a winnable table's source: a checked manifest holds that
description, puzzles/trusted.py), numbers cast to int before they become SQL,
like the rest of the catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.puzzles.base import ident, sql_str
from pipeline.puzzles.family import Statement
from pipeline.puzzles.trusted import Checked

if TYPE_CHECKING:
    from pipeline.storage.manifest import Manifest


def statements(tables: list[Checked]) -> list[Statement]:
    """The ``winnable`` macro, the status views, the ``can_jump`` and ``canonical`` macros."""
    found = [t.manifest for t in tables]
    return [_canonical(found), *_winnable(found), _can_jump(found)]


def _canonical(found: list[Manifest]) -> str:
    """``canonical(puzzle, state)``: the smallest image of a position under the
    symmetries of a symmetric peg table (``<board>-sym``), the state its class
    is stored as; each image is the state's bits moved by one symmetry."""
    arms = []
    for m in found:
        perms = m.puzzle.get("symmetries")
        if not perms:
            continue
        images = [
            " | ".join(f"(((state >> {i}) & 1::UBIGINT) << {int(t)})" for i, t in enumerate(perm))
            for perm in perms
        ]
        arms.append(f"WHEN {sql_str(m.table)} THEN least({', '.join(images)})::UBIGINT")
    none = "error('no symmetric table ' || puzzle || ' in the catalog')"
    body = f"CASE puzzle {' '.join(arms)} ELSE {none} END" if arms else none
    return f"CREATE OR REPLACE MACRO canonical(puzzle, state) AS {body}"


def _can_jump(found: list[Manifest]) -> str:
    """``can_jump(puzzle, state)``: whether a peg position has a legal jump.

    Built from the jump lines each peg table's manifest records; a position
    without one ends a game (won or a dead end).
    """
    arms = []
    for m in found:
        jumps = m.puzzle.get("jumps")
        if not jumps:
            continue
        tests = []
        for a, b, c in ((int(a), int(b), int(c)) for a, b, c in jumps):
            flip, need = (1 << a) | (1 << b) | (1 << c), (1 << a) | (1 << b)
            tests.append(f"(state & {flip}::UBIGINT) = {need}::UBIGINT")
        arms.append(f"WHEN {sql_str(m.table)} THEN ({' OR '.join(tests)})")
    none = "error('no jump table for ' || puzzle || ' in the catalog')"
    body = f"CASE puzzle {' '.join(arms)} ELSE {none} END" if arms else none
    return f"CREATE OR REPLACE MACRO can_jump(puzzle, state) AS {body}"


def _winnable(found: list[Manifest]) -> list[Statement]:
    """The status views and the ``winnable`` macro over derived winnable tables."""
    names = {m.table for m in found}
    pairs = [
        (m.puzzle["derived_from"], m.table) for m in found if m.puzzle.get("kind") == "winnable"
    ]
    sql: list[Statement] = [
        f"CREATE OR REPLACE VIEW {ident(src + '-status')} AS "
        f"SELECT f.state, f.depth, f.parent, w.state IS NOT NULL AS winnable, "
        f"w.depth AS jumps_left FROM {ident(src)} f LEFT JOIN {ident(win)} w USING (state)"
        for src, win in pairs
        if src in names
    ]
    sym = {m.table for m in found if m.puzzle.get("symmetries")}  # typed: canonical first
    typed = {src: f"canonical({sql_str(src)}, s)" if src in sym else "s" for src, _ in pairs}
    arms = " ".join(
        f"WHEN {sql_str(src)} THEN ({typed[src]} IN (SELECT state FROM {ident(win)}))"
        for src, win in pairs
    )
    none = "error('no winnable table for ' || puzzle || ' in the catalog')"
    body = f"CASE puzzle {arms} ELSE {none} END" if arms else none
    sql.append(f"CREATE OR REPLACE MACRO winnable(puzzle, s) AS {body}")
    return sql
