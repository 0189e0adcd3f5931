"""What a family of puzzles declares about itself, so that no other room lists families.

Each family (a module or a folder of pipeline/puzzles/) declares one
:class:`Family`: its puzzle classes, its built-in tables, the drawing of each
class, its part of the DuckDB catalog, the suffixes its boards take in a name
and its table in a TOML spec, the way python-chess's variants carry their own
names and file suffixes. builtin.py lists the families (one line each); the
name grammar (names.py), the specs (spec/parse.py), the catalog (registry.py)
and the pictures (registry.art_of) read these declarations and name no family.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.draw.art import Art
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.spec.base import Spec

if TYPE_CHECKING:
    from pipeline.puzzles.trusted import Checked

#: A statement of the DuckDB catalog: SQL, or SQL and its bound rows (a list a column).
Statement = str | tuple[str, list[list[object]]]


@dataclass(frozen=True)
class Variants:
    """The suffixes a family's boards take in a name and the puzzles they make.

    ``3x3-multi@4``: the board ``3x3``, then the suffixes ``-multi@4`` matched
    against :attr:`pattern`, whose named groups :attr:`make` is given (None for
    a group that did not match).
    """

    #: The suffixes after a board's name, a regex with named groups.
    pattern: str
    #: The puzzle of a board and the groups of a match; None when they make none.
    make: Callable[[Puzzle, dict[str, str | None]], Puzzle | None]
    #: Boards named by a rule rather than listed (any rectangle ``RxC``), or None.
    board: Callable[[str], Puzzle | None] | None = None
    #: The board enumerated from a typed position (``<board>~<hash>``): given the
    #: board, the position's cell values and the table's name; None: no such tables.
    rooted: Callable[[Puzzle, list[int], str], Puzzle] | None = None
    #: Small names the grammar makes, one for each suffix (the docs, and the tests'
    #: matrix of table kinds build them).
    examples: tuple[str, ...] = ()

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern)


@dataclass(frozen=True)
class SpecTable:
    """A family's table in a TOML spec (``[tiles]``): its keys (required ones True),
    the suffixes of the tables ``build --spec`` builds, and the loader, which
    raises spec/base.py's ``Problem`` naming the key that is wrong. A family with
    files of its own (twsearch's ``.tws``) names their suffix and ``own`` makes the
    spec of such a file (its path, its text, the table's name); ``keep`` makes the
    spec kept in the data folder from a TOML spec that names a file beside it. Both
    are also handed the memory budget in bytes, if given (twisty: the budget its
    pattern tables are chosen within). The kept spec's text holds everything: it
    needs no file outside the folder."""

    key: str
    keys: Mapping[str, bool]
    tables: tuple[str, ...]
    load: Callable[[Spec], Puzzle]
    suffix: str | None = None
    own: Callable[[Path, str, str, int | None], Spec] | None = None
    keep: Callable[[Path, Spec, int | None], Spec] | None = None


@dataclass(frozen=True)
class Family:
    """One family: its classes, its tables, and what the rest of the package asks of it."""

    name: str
    #: What its boards are called in a sentence ("sliding boards", "peg boards").
    noun: str
    #: Its puzzle classes (subclasses belong to the family of their nearest base listed).
    classes: tuple[type[Puzzle], ...]
    #: Its built-in tables, in the order ``puzzledb list`` shows them.
    tables: tuple[Puzzle, ...] = ()
    #: Names that stand for several of its tables (``4x4-pdb``: a partition).
    groups: Mapping[str, list[str]] = field(default_factory=dict)
    #: The drawing of each class (its subclasses inherit it); the plain drawing otherwise.
    arts: Mapping[type[Puzzle], type[Art]] = field(default_factory=dict)
    #: Its statements in the DuckDB catalog, given every sound table (made even when
    #: none of its tables is built: its macros then say so).
    sql: Callable[[list[Checked]], list[Statement]] | None = None
    #: The catalog's ``board``, ``cells``, ``drawing`` and ``state_of`` for one table of
    #: its own whose state is no cells (SQL by macro name), or None for a table it
    #: leaves to the cell codec (made after its ``sql``, which may make the tables
    #: these read).
    codec: Callable[[Checked], Mapping[str, str] | None] | None = None
    variants: Variants | None = None
    spec: SpecTable | None = None

    def art_class(self, puzzle: Puzzle) -> type[Art] | None:
        """The drawing of ``puzzle``'s nearest class that has one here."""
        for cls in type(puzzle).__mro__:
            if cls in self.arts:
                return self.arts[cls]
        return None
