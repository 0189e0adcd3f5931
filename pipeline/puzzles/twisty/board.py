"""A twisty puzzle from its twsearch definition: the positions reachable from solved.

:func:`load` reads a ``.tws`` file (tws.py) into a :class:`TwistyPuzzle`: the
state is the packing of pack.py, a move is each definition move with its
powers (F, F2, F' one move each, as ``twsearch -g`` counts), the table is
enumerated from the solved state (``origin = "goal"``: a parent walk is an
optimal solution), and the moves are table look-ups (tables.py), compiled for
the fast level step (moves.py) when the tables fit.

Positions read and print three ways: the format's own state block (a set's
name, its labels, its orientations), twsearch's compact line (``--compact``:
one or two base-62 characters a piece, ``label * orientations + twist``,
labels counted from 0), and as moves from solved (:meth:`from_moves`).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pipeline.answers import Origin
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition, BadSpec
from pipeline.puzzles.base import Cells, Puzzle, parity
from pipeline.puzzles.twisty import abstract, group, tables, tws
from pipeline.puzzles.twisty.abstract import Pattern
from pipeline.puzzles.twisty.pack import Packing, SetCode, set_code
from pipeline.puzzles.twisty.tws import WILD, Definition, Part, Turn
from pipeline.words import figures

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels

ENCODING = (
    "twisty: each set (in the definition's order, the first most significant) as "
    "arrangement rank * orientation values + orientation value, in mixed radix "
    "(docs/DATA.md, pipeline/puzzles/twisty/pack.py)"
)
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def load(path: Path, name: str, **options: object) -> TwistyPuzzle:
    """The puzzle a definition file describes, as the table ``name``."""
    return TwistyPuzzle(tws.read(path), name, where=str(path), **options)  # type: ignore[arg-type]


def select(d: Definition, moves: Sequence[str] | None, quarter: bool, where: str) -> list[Turn]:
    """The turns of the search: the definition's, or those of the base ``moves``
    named; with ``quarter`` only each move and its inverse (twsearch's ``-q``)."""
    bases = [m.name for m in d.moves]
    if moves is not None:
        unknown = [m for m in moves if m not in bases]
        if unknown:
            raise BadSpec(f"{where}: {unknown[0]!r} is not a move of it (moves: {' '.join(bases)})")
    keep = set(bases if moves is None else moves)
    out = [t for t in d.turns if t.base in keep and (not quarter or abs(t.power) == 1)]
    if not out:
        raise BadSpec(f"{where}: no moves left to search with")
    return out


def states(d: Definition, moves: Sequence[str] | None, quarter: bool) -> int:
    """How many states a definition's encoding has with these moves (pack.py): it has a
    table of its own when they are fewer than 2^64."""
    turns = tuple(select(d, moves, quarter, d.name))
    return Packing(tuple(set_code(d, i, turns) for i in range(len(d.sets)))).size


def piece_width(code: SetCode) -> int:
    """Characters a piece takes in the compact line (twsearch's one or two; three past)."""
    span = code.n * code.o
    return 1 if span <= 62 else 2 if span <= 62 * 62 else 3


#: The first words a state block may start with before its sets (tws.parse_position).
HEADS = ("Scramble", "ScrambleState", "StartState")

#: A twisty state is not cells: the manifest's cell fields get these placeholders (0
#: cells; the catalog's cell macros do not read a twisty state: docs/DATA.md).
CELLS = Cells(0, 0, ("?",), "")


class TwistyPuzzle(Puzzle):
    """The positions a twsearch definition reaches from its solved state."""

    cells = CELLS
    origin = Origin.GOAL
    typed_moves = True
    encoding = ENCODING

    def __init__(
        self,
        definition: Definition,
        name: str,
        *,
        where: str = "<definition>",
        title: str | None = None,
        moves: Sequence[str] | None = None,
        quarter: bool = False,
        default: bool = False,
        legacy: bool = False,
        patterns: Sequence[Pattern] = (),
        stronger: Sequence[Sequence[Pattern]] = (),
    ) -> None:
        d = definition
        self.definition = d
        self.name = name
        self.title = title or f"{d.name} (twsearch definition)"
        self.default = default
        self.spec = d.text
        #: The pattern tables named for it (pipeline/puzzles/twisty/patterns.py).
        self.patterns = tuple(patterns)
        for p in self.patterns:
            abstract.check(d, p, where)
        if len({p.label for p in self.patterns}) < len(self.patterns):
            raise BadSpec(f"{where}: two pattern tables share a label")
        self.pattern_tables = tuple(f"{name}-pdb-{p.label}" for p in self.patterns)
        self.stronger_tables = tuple(
            tuple(f"{name}-pdb-{p.label}" for p in group) for group in stronger
        )
        self.options = {
            "title": title, "moves": moves, "quarter": quarter, "default": default,
            "patterns": self.patterns, "stronger": stronger,
        }  # fmt: skip
        self.where = where
        self.turns = tuple(select(d, moves, quarter, where))
        self.quarter = quarter
        #: Format version 1's encoding of ``?`` pieces (pack.py): a table built then.
        self.legacy = legacy
        codes = tuple(set_code(d, i, self.turns, legacy) for i in range(len(d.sets)))
        self.pack = Packing(codes)
        #: Whether it has a table of its own: fewer than 2^64 states (the largest 2^64 - 2:
        #: 2^64 - 1 is no parent). Else it is solved by search over its pattern tables.
        self.tabulated = self.pack.size < 1 << 64
        self.solved = self.encode(d.solved)
        self.root_texts = (self.text(self.solved),)
        self.estimated_total = self.pack.size if self.tabulated else None
        self.columns, self.inverse = _columns(d, self.turns)
        self.graph, self.parity_sets = _graph(d, self.turns, self.inverse)
        self.has_kernels = self.tabulated and self._keys_fit()
        # A move a byte in the dense engine's bitmaps (engine/bitmaps.py: NO_MOVE is 255).
        dense = self.tabulated and len(self.turns) < 255
        self.dense_states = self.pack.size if dense else None
        self.by_name = {t.name: t for t in self._all_turns()}

    def random_state(self, rng: random.Random) -> int:
        """A uniformly random position of its group (group.py; BadSpec where it cannot)."""
        return self.encode(group.random_position(self.definition, self.turns, rng))

    def search_tables(self) -> list[str]:
        """Its pattern tables when it has no table of its own (none when it has one);
        BadSpec in one line when it has neither."""
        if self.tabulated:
            return []
        if not self.patterns:
            raise BadSpec(
                f"{self.too_large()}: name its pattern tables ([[twisty.pattern]] in a TOML "
                "spec), or let build --spec choose them (--memory)"
            )
        return list(self.pattern_tables)

    def too_large(self) -> str:
        """Why it has no table of its own: how many positions it has."""
        count = group.reachable(self.definition, [t.parts for t in self.turns])
        what = f"{count:,} positions" if count else f"up to {figures(self.pack.size)} positions"
        return (
            f"{self.where}: its positions cannot fit a 64-bit state: {what} "
            f"({figures(self.pack.size)} arrangements and orientations of its sets), "
            "more than 2^64"
        )

    def roots(self) -> list[int]:
        if not self.tabulated:
            over = ", ".join(self.search_tables())
            raise BadSpec(
                f"{self.name} has no table of its own: it is solved by search over {over}"
            )
        return super().roots()

    def for_format(self, version: int) -> TwistyPuzzle:
        """Format version 1 kept a digit for every ``?`` piece (pack.py): a table of it is
        read in that encoding (the same as version 2's when no set has ``?`` pieces)."""
        if version >= 2 or self.legacy or not any(c.any_wild and c.o > 1 for c in self.pack.sets):
            return self
        return self._legacy

    @functools.cached_property
    def _legacy(self) -> TwistyPuzzle:
        old = TwistyPuzzle(self.definition, self.name, where=self.where, legacy=True,
                           **self.options)  # type: ignore[arg-type]  # fmt: skip
        old.spec = self.spec
        return old

    def _keys_fit(self) -> bool:
        tag_bits = max(1, (len(self.turns) - 1).bit_length())
        return self.pack.size < 1 << (64 - tag_bits)

    def _all_turns(self) -> list[Turn]:
        return list(self.definition.turns)

    @functools.cached_property
    def expected_total(self) -> int | None:  # type: ignore[override]
        """The positions reached, when group theory says (distinct pieces: group.py)."""
        return group.reachable(self.definition, [t.parts for t in self.turns])

    # -- the moves ---------------------------------------------------------------------
    @functools.cached_property
    def tables(self) -> tables.MoveTables:
        """The moves (and their inverses, for the compiled undo) on whole arrays."""
        return tables.tables(self.pack, self.columns, self.definition.illegal)

    @functools.cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        if not self.has_kernels:
            return None
        from pipeline.puzzles.twisty.moves import twisty_moves

        return twisty_moves(self.tables, len(self.turns), self.inverse, self.groups)

    @property
    def groups(self) -> np.ndarray:
        """Each move's group when the search has all its base move's powers (two of them
        in a row make one or none: engine/space.py's BitmapKernels), else -1."""
        bases = [m.name for m in self.definition.moves]
        count = {b: sum(t.base == b for t in self.definition.turns) for b in bases}
        mine = {b: sum(t.base == b for t in self.turns) for b in bases}
        return np.array(
            [bases.index(t.base) if mine[t.base] == count[t.base] else -1 for t in self.turns],
            np.int64,
        )

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        return self.tables.expand(np.asarray(states, np.uint64), len(self.turns))

    def moves_from(self, state: int) -> list[tuple[int, int]]:
        """Each move out of one position, applied in plain Python: a position asked alone
        (show, the explorer) needs no tables (a six-edge pattern's take seconds)."""
        out: dict[int, None] = {}
        for turn in self.turns:
            with contextlib.suppress(BadPosition):  # a move into an Illegal position
                out[self.apply(int(state), turn)] = None
        return [(k, k) for k in out]

    def depth_parity(self, state: int) -> int | None:
        if self.graph is not Graph.BIPARTITE:
            return None
        out = 0
        for i in self.parity_sets:
            seq, _ = self.pack.sets[i].decode(self.pack.split(int(state))[i])
            out ^= parity(seq) ^ self.pack.sets[i].parity
        return out

    # -- positions as parts, states and text -----------------------------------------------
    def encode(self, parts: tuple[Part, ...]) -> int:
        """The state of a position (labels as the file numbers them); BadPosition when
        it cannot be reached."""
        coords = []
        for code, part, rules in zip(self.pack.sets, parts, self._rules(), strict=True):
            seq = self._labels(code, part)
            self._check_twists(code, seq, part)
            self._check_rules(code, seq, rules)
            coords.append(code.rank(seq) * code.twists + code.orient(seq, list(part.twist)))
        return self.pack.join(coords)

    def decode(self, state: int) -> tuple[Part, ...]:
        out = []
        for code, c in zip(self.pack.sets, self.pack.split(int(state)), strict=True):
            seq, tw = code.decode(c)
            out.append(Part(tuple(code.labels[v] for v in seq), tuple(tw)))
        return tuple(out)

    def _rules(self) -> list[list[tws.Illegal]]:
        rules = self.definition.illegal
        return [[r for r in rules if r.set == i] for i in range(len(self.pack.sets))]

    @staticmethod
    def _labels(code: SetCode, part: Part) -> list[int]:
        name = code.piece_set.name
        if sorted(part.perm) != sorted(
            v for v, c in zip(code.labels, code.counts, strict=True) for _ in range(c)
        ):
            raise BadPosition(
                f"set {name}: the pieces are not the solved state's (each label as many times)"
            )
        seq = [code.labels.index(v) for v in part.perm]
        if code.even and parity(seq) != code.parity:
            raise BadPosition(
                f"set {name}: the pieces are in an odd arrangement of the solved one: "
                "every move permutes them evenly, so no sequence of moves reaches it"
            )
        return seq

    @staticmethod
    def _check_twists(code: SetCode, seq: list[int], part: Part) -> None:
        name = code.piece_set.name
        for v, t in zip(seq, part.twist, strict=True):
            if t == WILD and not code.wild[v]:
                raise BadPosition(f"set {name}: ? for a piece whose orientation counts")
        if code.implied:
            total = sum(part.twist) % code.o
            if total != code.total:
                raise BadPosition(
                    f"set {name}: the orientations sum to {total} (mod {code.o}); every "
                    f"move keeps the sum, {code.total} when solved: no moves reach it"
                )

    @staticmethod
    def _check_rules(code: SetCode, seq: list[int], rules: list[tws.Illegal]) -> None:
        for rule in rules:
            if code.labels[seq[rule.position]] in rule.labels:
                raise BadPosition(
                    f"set {code.piece_set.name}: piece {code.labels[seq[rule.position]]} "
                    f"may not be at position {rule.position + 1} (Illegal)"
                )

    pieces_word = "pieces"

    def relabelled(self, a: int, b: int) -> tuple[int, int, list[str]] | None:
        """The pieces renamed so that ``b`` is solved: the piece at position j of ``b``
        takes the solved label of j, its twist counted from its twist in ``b``. A move
        adds the same twist to whichever piece it carries, so the renaming commutes
        with every move. None where it cannot: pieces that share a label, a ``?``
        twist, or an Illegal rule (it names labels)."""
        d = self.definition
        if d.illegal or any(len(set(s.perm)) < len(s.perm) or WILD in s.twist for s in d.solved):
            return None
        parts = []
        for pa, pb, solved, piece_set in zip(
            self.decode(a), self.decode(b), d.solved, d.sets, strict=True
        ):
            home = {label: j for j, label in enumerate(pb.perm)}  # where b has each piece
            js = [home[x] for x in pa.perm]
            twist = [
                (t - pb.twist[j] + solved.twist[j]) % piece_set.twists
                for t, j in zip(pa.twist, js, strict=True)
            ]
            parts.append(Part(tuple(solved.perm[j] for j in js), tuple(twist)))
        return self.encode(tuple(parts)), self.solved, [self.name]

    def check_state(self, state: int) -> int:
        if isinstance(state, bool) or not isinstance(state, int) or not 0 <= state < self.pack.size:
            raise BadPosition(
                f"{state!r} is not a state of {self.name} (0 <= state < {self.pack.size})"
            )
        if self.encode(self.decode(state)) != state:  # a ? piece's digit not 0
            raise BadPosition(f"state {state} is not a position of {self.name}")
        return state

    def parse(self, text: str) -> int:
        """A state block, or the compact line (see the module docstring)."""
        words = text.split()
        if not words:
            raise BadPosition("an empty position")
        names = {s.name for s in self.definition.sets}
        if (len(words) == 2 and words[0] == "CPOS") or (len(words) == 1 and words[0] not in names):
            return self.encode(self._compact(words[-1]))
        try:
            parts = tws.parse_position(self.definition, text)
        except tws.LineProblem as p:
            if len(text.strip().splitlines()) == 1 and words[0] in {*names, *HEADS}:
                raise BadPosition(self._one_line(words)) from None
            at = f"line {p.line}: " if p.line else ""
            hint = " (turns from solved? give --turns)" if self._looks_like_moves(text) else ""
            raise BadPosition(f"not a position of {self.name}: {at}{p.message}{hint}") from None
        return self.encode(parts)

    def _one_line(self, words: list[str]) -> str:
        """The line for a state block typed on one line: it needs its lines; the compact
        line of the position it spells, when it spells one (else the solved one's)."""
        said = (
            f"not a position of {self.name}: a state block needs its lines (a set's name, "
            "its labels, its orientations, each on a line of its own)"
        )
        block = self._reflowed(words)
        try:
            compact = self.text(self.parse(block)) if block is not None else None
        except BadPosition:
            compact = None
        if compact is not None:
            return f"{said}; on one line, type its compact line: {compact}"
        return f"{said}, or type a compact line (solved: {self.text(self.solved)})"

    def _reflowed(self, words: list[str]) -> str | None:
        """The block ``words`` spell, a line each: a set's name, then its pieces' labels,
        then (a set with orientations, when given) as many twists; None if they spell none."""
        sets = {s.name: s for s in self.definition.sets}
        head = 2 if words[0] in HEADS and len(words) > 1 and words[1] not in sets else 1
        out, i = ([" ".join(words[:head])], head) if words[0] in HEADS else ([], 0)
        while i < len(words):
            if words[i] == "End":
                out, i = [*out, "End"], i + 1
                continue
            if words[i] not in sets:
                return None
            n, twisted = sets[words[i]].pieces, sets[words[i]].twists > 1
            out += [words[i], " ".join(words[i + 1 : i + 1 + n])]
            i += 1 + n
            if twisted and i < len(words) and words[i] not in sets and words[i] != "End":
                out, i = [*out, " ".join(words[i : i + n])], i + n
        return "\n".join(out)

    def _looks_like_moves(self, text: str) -> bool:
        words = re.split(r"[\s,]+", text.strip())
        return all(w in self.by_name for w in words if w)

    def _compact(self, word: str) -> tuple[Part, ...]:
        at, out = 0, []
        for code in self.pack.sets:
            w, seq, tw = piece_width(code), [], []
            for _ in range(code.n):
                chunk = word[at : at + w]
                if len(chunk) < w or any(c not in BASE62 for c in chunk):
                    raise BadPosition(f"the compact line {word[:40]!r} is short or not base 62")
                v = functools.reduce(lambda x, c: x * 62 + BASE62.index(c), chunk, 0)
                if v >= code.k * code.o:
                    raise BadPosition(f"the compact line holds {chunk!r}, out of range")
                seq.append(code.labels[v // code.o])
                tw.append(WILD if code.wild[v // code.o] else v % code.o)
                at += w
            out.append(Part(tuple(seq), tuple(tw)))
        if at != len(word):
            raise BadPosition(f"the compact line {word[:40]!r} is longer than a position")
        return tuple(out)

    def text(self, state: int) -> str:
        """The compact line: twsearch's ``--compact`` (labels from 0; ? counts 0)."""
        out = []
        for code, part in zip(self.pack.sets, self.decode(state), strict=True):
            w = piece_width(code)
            for v, t in zip(part.perm, part.twist, strict=True):
                x = code.labels.index(v) * code.o + max(t, 0)
                out.append("".join(BASE62[x // 62**k % 62] for k in reversed(range(w))))
        return "".join(out)

    def caption(self, state: int) -> str:
        """The drawing's rows on one line (``CORNER 2 4 3 1 / EDGE 1+1 2 3 4+1``): the
        compact line is a code, no reading for a person."""
        return " / ".join(" ".join(row.split()) for row in self.draw(state).splitlines())

    def block(self, state: int) -> str:
        """The state block the definition format writes (set name, labels, orientations)."""
        rows = []
        for s, part in zip(self.definition.sets, self.decode(state), strict=True):
            rows += [s.name, " ".join(map(str, part.perm))]
            if s.twists > 1:
                rows.append(" ".join("?" if t == WILD else str(t) for t in part.twist))
        return "\n".join(rows)

    def draw(self, state: int) -> str:
        """A row a set: each position's piece, ``+k`` when twisted k times (? ignored)."""
        parts = self.decode(state)
        width = max(len(s.name) for s in self.definition.sets)
        rows = []
        for s, part in zip(self.definition.sets, parts, strict=True):
            cells = [
                f"{v}+{t}" if t > 0 else str(v) for v, t in zip(part.perm, part.twist, strict=True)
            ]
            cw = max(len(c) for c in cells)
            rows.append(s.name.ljust(width) + "  " + " ".join(c.rjust(cw) for c in cells))
        return "\n".join(rows)

    # -- moves from solved, and the names of a walk's moves -----------------------------
    def apply(self, state: int, turn: Turn) -> int:
        """One move applied to one state (plain Python: no tables needed)."""
        parts = tws.compose(self.definition.sets, self.decode(state), turn.parts)
        return self.encode(_unwild(parts, self.decode(state)))

    def from_moves(self, text: str) -> int:
        """The position a sequence of moves (any power of any move) reaches from solved."""
        state = self.solved
        for word in re.split(r"[\s,]+", text.strip()):
            if not word:
                continue
            turn = self.by_name.get(word)
            if turn is None:
                names = " ".join(t.name for t in self.turns[:12])
                raise BadPosition(
                    f"{word[:40]!r} is not a move of {self.name} (moves: {names} ...)"
                )
            state = self.apply(state, turn)
        return state

    def turn_between(self, a: int, b: int) -> str:
        for turn in self.turns:
            with contextlib.suppress(BadPosition):  # a move into an Illegal position
                if self.apply(a, turn) == b:
                    return turn.name
        raise BadPosition("two positions of the line are not one move apart")

    def notation(self, states: Sequence[int]) -> str:
        return " ".join(self.turn_between(int(a), int(b)) for a, b in itertools.pairwise(states))

    def describe(self) -> dict[str, object]:
        """The manifest's record: ``sets`` and ``moves`` say what a state is (the cell
        fields are :data:`CELLS`' placeholders: docs/DATA.md)."""
        return {
            **super().describe(),
            "family": "twisty",
            "definition": self.definition.name,
            "sets": [_set_doc(c) for c in self.pack.sets],
            "moves": [t.name for t in self.turns],
            "states": self.pack.size,
        }


def _unwild(parts: tuple[Part, ...], before: tuple[Part, ...]) -> tuple[Part, ...]:
    """Wild pieces stay wild after a move (compose adds twists to them)."""
    out = []
    for p, b in zip(parts, before, strict=True):
        wild = {v for v, t in zip(b.perm, b.twist, strict=True) if t == WILD}
        out.append(
            Part(
                p.perm,
                tuple(WILD if v in wild else t for v, t in zip(p.perm, p.twist, strict=True)),
            )
        )
    return tuple(out)


def _set_doc(code: SetCode) -> dict[str, object]:
    return {
        "name": code.piece_set.name,
        "pieces": code.n,
        "orientations": code.o,
        "labels": list(code.labels),
        "counts": list(code.counts),
        "wild": [code.labels[i] for i, w in enumerate(code.wild) if w],
        "arrangements": code.arrangements,
        "orientation_values": code.twists,
        "even_only": code.even,
        "last_orientation_implied": code.implied,
    }


def _inverse_parts(sets, parts: tuple[Part, ...]) -> tuple[Part, ...]:
    out = []
    for s, p in zip(sets, parts, strict=True):
        perm = [0] * s.pieces
        twist = [0] * s.pieces
        for j, src in enumerate(p.perm):
            perm[src] = j
            twist[src] = (-p.twist[j]) % s.twists
        out.append(Part(tuple(perm), tuple(twist)))
    return tuple(out)


def _columns(d: Definition, turns: tuple[Turn, ...]) -> tuple[list[tuple[Part, ...]], np.ndarray]:
    """The moves the tables hold: the turns, then each inverse that is no turn; and
    the column of each turn's inverse (the compiled undo)."""
    columns = [t.parts for t in turns]
    inverse = []
    for t in turns:
        inv = _inverse_parts(d.sets, t.parts)
        if inv not in columns:
            columns.append(inv)
        inverse.append(columns.index(inv))
    return columns, np.array(inverse, np.int64)


def _graph(
    d: Definition, turns: tuple[Turn, ...], inverse: np.ndarray
) -> tuple[Graph, tuple[int, ...]]:
    """Reversible when each move's inverse is a move; bipartite when moreover some sets
    of distinct pieces have a parity sum every move flips (those sets)."""
    if any(int(i) >= len(turns) for i in inverse):
        return Graph.GENERAL, ()
    distinct = [i for i, p in enumerate(d.solved) if len(set(p.perm)) == len(p.perm)]
    odd = [sum(1 << k for k, i in enumerate(distinct) if parity(t.parts[i].perm)) for t in turns]
    chosen = flipped_by_all(odd)
    if chosen is None:
        return Graph.REVERSIBLE, ()
    return Graph.BIPARTITE, tuple(distinct[k] for k in range(len(distinct)) if chosen >> k & 1)


def flipped_by_all(odd: list[int]) -> int | None:
    """Sets (a bit each) whose parities' sum every move flips, or None when no choice of
    sets does: the solution over GF(2) of ``popcount(odd[t] & x)`` odd for every move t
    (``odd[t]``: the sets move t permutes oddly), by Gauss-Jordan elimination: a few
    operations a move and a set, where trying subsets grew as their binomials."""
    pivots: dict[int, tuple[int, int]] = {}  # leading bit: (row, right-hand side)
    for row in odd:
        rhs = 1
        for bit, (other, side) in pivots.items():
            if row >> bit & 1:
                row, rhs = row ^ other, rhs ^ side
        if row == 0:
            if rhs:
                return None  # 0 = 1: no choice works
            continue
        lead = row.bit_length() - 1
        for bit, (other, side) in list(pivots.items()):  # keep each pivot in its row alone
            if other >> lead & 1:
                pivots[bit] = (other ^ row, side ^ rhs)
        pivots[lead] = (row, rhs)
    return sum(1 << bit for bit, (_, side) in pivots.items() if side)
