"""What every puzzle is: a cell encoding, roots, a graph kind and an expander.

A board whose state is "cell i holds a small value in bits b*i .. b*i+b-1" (all
puzzles here) shares one codec, :class:`Cells`, which turns states into text,
drawings and SQL macros from the same data, so the CLI, the Python API and the
DuckDB catalog can never disagree on how a state reads.
"""

from __future__ import annotations

import random
import re
import string
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pipeline.answers import Origin
from pipeline.engine.core import Expander, Graph, States
from pipeline.errors import BadMethod, BadPosition, PuzzleDBError

if TYPE_CHECKING:
    import pyarrow as pa

    from pipeline.engine.packed import Kernels
    from pipeline.storage.table import Hit, Table


def sql_str(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def glob_escape(path: str) -> str:
    """A path as a DuckDB glob that matches only itself (``run[1]/data``: ``[`` is a class)."""
    return "".join(f"[{c}]" if c in "[*?" else c for c in path)


def parity(seq: Sequence[int]) -> int:
    """0 for an even permutation of distinct values, 1 for an odd one (by its cycles:
    one of length k is k - 1 swaps)."""
    order = sorted(range(len(seq)), key=seq.__getitem__)
    seen, odd = [False] * len(seq), 0
    for i in range(len(seq)):
        j, length = i, 0
        while not seen[j]:
            seen[j], j, length = True, order[j], length + 1
        odd ^= max(length - 1, 0) & 1
    return odd


#: A layout field: ``{i}`` or ``{i[k]}`` (Cells.drawing).
_FIELD = re.compile(r"(0|[1-9][0-9]{0,2})(?:\[(0|[1-9][0-9]{0,2})\])?")


def ident(name: str) -> str:
    """A SQL identifier (a table or view name)."""
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Cells:
    """Cell i holds a value in bits ``bits*i ..``; each value has a symbol.

    ``layout`` draws the board in its real shape: ``{i}`` stands for cell i,
    ``{i[k]}`` for character k of its symbol (a cube corner's facelets).
    Symbols of one character may be typed without spaces; longer symbols
    (tile numbers) are separated by spaces or commas.
    """

    count: int
    bits: int
    symbols: tuple[str, ...]
    layout: str
    separator: str = " "

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    @property
    def width(self) -> int:
        return max(len(s) for s in self.symbols)

    def values(self, state: int) -> list[int]:
        return [(state >> (self.bits * i)) & self.mask for i in range(self.count)]

    def encode(self, values: list[int]) -> int:
        return sum(v << (self.bits * i) for i, v in enumerate(values))

    def text(self, state: int) -> str:
        return self.separator.join(self.symbols[v] for v in self.values(int(state)))

    def draw(self, state: int) -> str:
        cells = [self.symbols[v].rjust(self.width) for v in self.values(int(state))]
        return self.layout.format(*cells)

    def tokens(self, text: str) -> list[str]:
        """Split typed text into one token a cell (not yet checked). One-character
        symbols may be typed run together ("x.xx") or spaced; a spaced text of the
        right count is taken by its spaces, so "10 2 3 ..." is a cell "10" (a bad
        value), not ten digits."""
        spaced = [t for t in re.split(r"[\s,]+", text.strip()) if t]
        if self.width == 1 and len(spaced) != self.count:
            return list(re.sub(r"[\s,]+", "", text))
        return spaced

    def parse_values(self, text: str) -> list[int]:
        tokens = self.tokens(text)
        if len(tokens) != self.count:
            raise BadPosition(f"expected {self.count} cells, got {len(tokens)} in {text.strip()!r}")
        lookup = {s: v for v, s in enumerate(self.symbols)}
        bad = [t for t in tokens if t not in lookup]
        if bad:
            allowed = " ".join(self.symbols)
            raise BadPosition(f"{bad[0]!r} is not a cell value here (allowed: {allowed})")
        return [lookup[t] for t in tokens]

    # SQL: the same codec as DuckDB expressions over a UBIGINT ``state``.
    def _sql_symbols(self) -> str:
        return "[" + ", ".join(sql_str(s) for s in self.symbols) + "]"

    def sql_cell(self, state: str, i: str) -> str:
        value = f"((({state}) >> ({self.bits} * {i})) & {self.mask})::INTEGER"
        return f"{self._sql_symbols()}[{value} + 1]"

    def sql_values(self, state: str) -> str:
        """The cell values as an INTEGER list (cell 0 first; SQL lists count from 1)."""
        value = f"((({state}) >> ({self.bits} * i)) & {self.mask})::INTEGER"
        return f"list_transform(range({self.count}), lambda i: {value})"

    def sql_text(self, state: str) -> str:
        cells = f"list_transform(range({self.count}), lambda i: {self.sql_cell(state, 'i')})"
        return f"array_to_string({cells}, {sql_str(self.separator)})"

    def sql_draw(self, state: str) -> str:
        parts: list[str] = []
        for literal, cell, char in self.drawing():
            if literal:
                parts.append(sql_str(literal))
            if cell is not None:
                parts.append(self._sql_field(state, cell, char))
        return "concat(" + ", ".join(parts) + ")"

    def drawing(self) -> list[tuple[str, int | None, int | None]]:
        """The layout as (plain text, cell, character of its symbol or None) parts;
        ValueError for anything but ``{i}`` and ``{i[k]}`` with i a cell, k < width.

        The shape the SQL is made from: a field never reaches SQL as text.
        """
        out: list[tuple[str, int | None, int | None]] = []
        for literal, field, spec, conv in string.Formatter().parse(self.layout):
            if field is None:
                out.append((literal, None, None))
                continue
            m = _FIELD.fullmatch(field)
            if m is None or spec or conv or int(m[1]) >= self.count:
                raise ValueError(f"layout field {field[:20]!r} is not a cell 0..{self.count - 1}")
            char = None if m[2] is None else int(m[2])
            if char is not None and char >= self.width:
                raise ValueError(f"layout field {field!r}: symbols have {self.width} characters")
            out.append((literal, int(m[1]), char))
        return out

    def _sql_field(self, state: str, cell: int, char: int | None) -> str:
        """A layout field: ``{i}`` (cell i, padded) or ``{i[k]}`` (character k of its symbol)."""
        padded = f"lpad({self.sql_cell(state, str(int(cell)))}, {int(self.width)}, ' ')"
        return padded if char is None else f"substr({padded}, {int(char) + 1}, 1)"

    def sql_parse(self, text: str) -> str:
        if self.width == 1:
            tokens = f"string_split(regexp_replace({text}, '[\\s,]+', '', 'g'), '')"
        else:
            tokens = f"string_split_regex(trim({text}), '[\\s,]+')"
        syms = self._sql_symbols()
        value = f"(list_position({syms}, t) - 1)::UBIGINT << ({self.bits} * (i - 1))"
        ok = (
            f"len({tokens}) = {self.count} AND "
            f"list_bool_and(list_transform({tokens}, lambda t: list_contains({syms}, t)))"
        )
        total = f"list_sum(list_transform({tokens}, lambda t, i: {value}))::UBIGINT"
        bad = f"error('not a position of this board: ' || {text})"
        return f"CASE WHEN {ok} THEN {total} ELSE {bad} END"


class StepNote(NamedTuple):
    """What the head line of a walk says when a step is not a move (peg boards: a jump)."""

    line: str  # what a walk to the goal is (after "a")
    each: str  # what each step does, so that every such line is as long
    run: str  # which steps make one move


class Puzzle(ABC):
    """A puzzle: data (cells, roots, graph kind) plus a vectorised expander.

    The whole interface is here, grouped by what it is for: what the manifest
    records, the rules the engine walks, the codec between states and text, the
    display of a walk, and derived tables and extra columns. Subclasses set the
    attributes and implement :meth:`expand`; every optional hook has a default
    (None, empty, or the plain behaviour), so no caller asks whether it exists.
    The engine sees only ``roots``, ``graph``, ``expand``, ``expand_free`` and
    ``kernels``.
    """

    # -- what the manifest and the catalog record -------------------------------
    name: str
    title: str
    encoding: str
    #: Number of reachable positions when known in advance (checked by verify).
    expected_total: int | None = None
    #: An estimate of it when it is not known (the build's time left only; never checked).
    estimated_total: int | None = None
    #: Built by ``make build-db`` / ``puzzledb build --default``.
    default: bool = False
    #: The TOML text of the spec that defines the puzzle (puzzles defined in a
    #: file, pipeline/puzzles/spec/parse.py); the manifest records it.
    spec: str | None = None
    #: A table made for a solver (a pattern database), not for people to read:
    #: ``list`` shows it only with ``--all``, the report and the explorer give
    #: it its own section, and the catalog's views mark it.
    derived: bool = False

    def describe(self) -> dict[str, object]:
        """What the manifest and the catalog record about the puzzle."""
        return {
            "name": self.name,
            "title": self.title,
            "graph": str(self.graph),
            "origin": str(self.origin),
            "roots": list(self.root_texts),
            "encoding": self.encoding,
            "cells": self.cells.count,
            "bits_per_cell": self.cells.bits,
            "symbols": list(self.cells.symbols),
            "separator": self.cells.separator,
            "layout": self.cells.layout,
            **({"spec": self.spec} if self.spec is not None else {}),
        }

    # -- the rules: the graph the engine walks ----------------------------------
    graph: Graph
    #: GOAL when enumerated from the goal (a parent walk is an optimal
    #: solution), START when from the start (a walk is a shortest way there).
    origin: Origin
    #: A table enumerated from a position the user typed (``3x3~<hash>``: names.py).
    typed_root: bool = False

    @property
    def walk_origin(self) -> Origin:
        """What a walk along the table's parents ends at: ROOT on a typed root's table."""
        return Origin.ROOT if self.typed_root and self.origin is Origin.GOAL else self.origin

    root_texts: tuple[str, ...]
    #: Kernels that cost nothing (0-1 BFS), or None.
    expand_free: Expander | None = None
    #: Whether each child is one move of ``expand`` from its parent, without
    #: expanding the parents (verify's parent check on large tables), or None:
    #: verify expands each parent.
    is_move: Callable[[States, States], np.ndarray] | None = None
    #: The same moves as compiled kernels for the fast level step
    #: (engine/packed.py), where the puzzle has them (a property that compiles
    #: on first use).
    kernels: Kernels | None = None
    #: Whether ``kernels`` may exist (known without compiling anything).
    has_kernels: bool = False
    #: N when ``kernels.space`` numbers the states densely, ``0 .. N-1``, and the build
    #: may search them so from its first level (engine/dense.py); None otherwise (a
    #: puzzle whose kernels have a dense space all the same gets it for levels of
    #: ``rows.PACKED_MIN`` states or more, as its other kernels). Known without
    #: compiling anything, like ``has_kernels``.
    dense_states: int | None = None

    @abstractmethod
    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Every cost-1 move out of each state, as (index into states, child)."""

    def roots(self) -> list[int]:
        return [self.parse(t) for t in self.root_texts]

    def moves_from(self, state: int) -> list[tuple[int, int]]:
        """Each move out of one state: (the position it makes, the state the table
        stores for that position), without repeats. The same but for a table of
        symmetry classes, whose stored child is another image (the explorer draws
        the first and links to the second)."""
        one = np.array([state], dtype=np.uint64)
        _, kids = self.expand(one)
        if self.expand_free is not None:  # a chain of jumps going on: the same move
            kids = np.concatenate([self.expand_free(one)[1], kids])
        return [(k, k) for k in dict.fromkeys(int(k) for k in kids)]

    def depth_parity(self, state: int) -> int | None:
        """Depth mod 2 when the state alone decides it (bipartite graphs), else None.

        Lets a look-up of a position's depth skip half the levels.
        """
        return None

    # -- the codec: states as typed and printed text ------------------------------
    cells: Cells
    #: Bits a state may use (None: exactly its cells'); peg boards also keep the last jump.
    state_bits: int | None = None
    #: Whether a position may also be typed as moves from the root (:meth:`from_moves`).
    typed_moves: bool = False
    #: The smallest image of each state, for a table that stores one state a
    #: symmetry class (``<board>-sym``), or None: states are stored as they are.
    canonical: Callable[[States], States] | None = None

    def parse(self, text: str) -> int:
        """A typed position as a state; raises BadPosition naming what is wrong."""
        values = self.cells.parse_values(text)
        self.check(values)
        return self.cells.encode(values)

    def check(self, values: list[int]) -> None:
        """Raise BadPosition when the values cannot be a position of this puzzle."""
        return None

    def check_state(self, state: int) -> int:
        """A state given as a number, checked as a typed position is: in range, every
        cell a value of the puzzle, the puzzle's own rules (:meth:`check`)."""
        c = self.cells
        bits = self.state_bits or c.bits * c.count
        if isinstance(state, bool) or not isinstance(state, int) or not 0 <= state < 1 << bits:
            raise BadPosition(f"{state!r} is not a state of {self.name} (0 <= state < 2**{bits})")
        values = c.values(state)
        bad = [i for i, v in enumerate(values) if v >= len(c.symbols)]
        if bad:
            raise BadPosition(
                f"state {state} is not a position of {self.name}: cell {bad[0]} holds "
                f"{values[bad[0]]}, the cells hold 0..{len(c.symbols) - 1}"
            )
        self.check(values)
        return state

    def from_moves(self, text: str) -> int:
        """The position a sequence of moves reaches from the root (when ``typed_moves``)."""
        raise BadPosition(
            f"{self.name}: positions cannot be typed as turns (the pocket cube's can)"
        )

    def variants(self, state: int) -> list[int]:
        """Every state a typed position stands for (one, unless the state holds more)."""
        return [state]

    def properties(self, state: int) -> dict[str, int]:
        """What a person asks of a position besides its depth, by name (a peg board:
        the pegs left; sliding tiles: the blank's cell, the tiles out of place)."""
        return {}

    #: What :meth:`relabelled` renames (a distance's line says it).
    pieces_word: str = "pieces"

    def relabelled(self, a: int, b: int) -> tuple[int, int, list[str]] | None:
        """Positions ``a`` and ``b`` with the pieces renamed so that ``b`` becomes the
        root of a table, and the tables that may have that root (the first preferred):
        the distance from ``a`` to ``b`` is then the renamed ``a``'s depth there. None
        where pieces are not interchangeable labels (sliding tiles, the pocket cube's
        corners and a twisty definition's distinct pieces are)."""
        return None

    def text(self, state: int) -> str:
        return self.cells.text(state)

    def texts(self, states: Sequence[int]) -> list[str]:
        """:meth:`text` of each state of a line (a walk's, a level's)."""
        return [self.text(s) for s in states]

    def caption(self, state: int) -> str:
        """The position in a line of prose or a title, readable by a person: the typed
        form here; a puzzle whose typed form is a code gives something readable."""
        return self.text(state)

    # -- the display of a position and of a walk ----------------------------------
    #: What one step of a table walk is called (peg boards: "jump").
    step_word: str = "move"
    #: What a walk says of its steps when they are not moves (None: steps are moves).
    step_note: StepNote | None = None
    #: Whether each step of a walk slides a tile into the blank (``solve --tiles``
    #: then lists the tiles slid), and whether a step may slide a line of them.
    slides_tiles: bool = False
    slides_lines: bool = False
    #: The table whose parent walk answers ``solve`` (None: this puzzle's own).
    solved_by: str | None = None

    def tiles_slid(self, states: Sequence[int]) -> list[list[int]]:
        """The tiles each step of a walk slides, the one next to the blank first
        (sliding puzzles, :attr:`slides_tiles`); no step slides any elsewhere."""
        return [[] for _ in states[1:]]

    def draw(self, state: int) -> str:
        return self.cells.draw(state)

    def drawings(self, states: Sequence[int]) -> list[str]:
        """:meth:`draw` of each state of a line."""
        return [self.draw(s) for s in states]

    def moves_in(self, states: Sequence[int]) -> int:
        """Moves along a line of states, first to last (peg boards: runs of one peg's jumps)."""
        return len(states) - 1

    def notation(self, states: Sequence[int]) -> str | None:
        """A compact line of moves from the first state to the last, when the family has one."""
        return None

    def as_typed(self, state: int, line: list[int], forward: bool = False) -> list[int]:
        """A walk of stored states from ``state``, as positions one move apart from the
        position as typed (symmetric tables map each class back); here the walk itself."""
        return line

    def unsolved(self, state: int, where: Hit | None, own_built: bool) -> PuzzleDBError:
        """Why a position is missing from the table that solves it (``solved_by``):
        ``where`` is its row in this puzzle's own table (None if not there or not
        built, ``own_built`` telling which); a puzzle solved by its own table: not there."""
        if self.solved_by is None:
            return BadPosition(
                f"{self.text(state)} is not in the {self.name} table: "
                "no sequence of moves reaches it from the roots"
            )
        return BadPosition(f"{self.text(state)} is not in the {self.solved_by} table")

    # -- derived tables and a family's own columns ----------------------------------
    #: Tables a derived table is computed from (built first, read by :meth:`bind`).
    requires: tuple[str, ...] = ()
    #: Columns a level file holds besides state, depth and parent (symmetric peg
    #: tables: ``class_size``), their values (:attr:`extra_columns`) and their
    #: documentation in the manifest.
    extra_fields: tuple[pa.Field[pa.DataType], ...] = ()
    extra_columns: Callable[[States], dict[str, np.ndarray]] | None = None
    extra_docs: Mapping[str, str] = MappingProxyType({})
    #: Verify's checks of those columns, given the table: (problems, checks made).
    check_table: Callable[[Table], tuple[list[str], list[str]]] | None = None

    def in_folder(self, data: Path) -> Puzzle:
        """The puzzle ready to build or verify in ``data`` (derived tables read their source)."""
        return self

    #: The names of its pattern tables (``<name>-pdb`` stands for them all).
    pattern_tables: tuple[str, ...] = ()
    #: Sets of pattern tables that prune more than :meth:`search_tables`, strongest
    #: first: a search takes the first set that is built, never builds one itself.
    stronger_tables: tuple[tuple[str, ...], ...] = ()

    def random_state(self, rng: random.Random) -> int:
        """A uniformly random position of the puzzle, where its family can pick one without
        a table (a twisty puzzle's group); BadMethod otherwise."""
        raise BadMethod(
            f"{self.name}: a random position is picked from a depth of its table: give --depth"
        )

    def search_tables(self) -> list[str]:
        """The tables built in its stead when it is too large to tabulate (a twisty
        puzzle past 64 bits: its pattern tables, which a search reads); empty when it
        has a table of its own."""
        return []

    def for_format(self, version: int) -> Puzzle:
        """The puzzle reading states as format ``version`` wrote them (a table's manifest
        says which): itself, unless its encoding changed since (a twisty set's ``?``
        pieces, version 1: docs/DATA.md)."""
        return self

    def build_warning(self, max_depth: int) -> str | None:
        """A line for whoever just built the complete table (``max_depth``: its deepest
        level), when it is not what they may expect (a peg start that cannot be
        won); None: nothing to say."""
        return None
