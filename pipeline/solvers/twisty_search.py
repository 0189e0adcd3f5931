"""Optimal solutions of twisty puzzles too large to tabulate: IDA* over pattern tables.

The search runs in C (twisty_kernel.c) over the definition's turns (its
moves with their powers: the half-turn metric unless the quarter-turn one was
asked for), pruned by the canonical-sequence machine (twisty_layout.py), its
heuristic the largest value of the pattern tables (twisty_patterns.py), each
read in place (a memory-mapped array: twisty_tables.py). Every solution is
optimal: the tables' depths never exceed a position's distance, and IDA*
raises its bound one step at a time.

The kernel works in slices of nodes (:data:`SLICE_SECONDS` each), so a long
search reports its progress between them and stops on Ctrl-C
(KeyboardInterrupt reaches Python at the end of a slice).

A position must be one of the group's (group.py, or the caller's checks): one
that is not would be searched to :data:`MAX_DEPTH` in vain.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.answers import SearchProgress
from pipeline.errors import BadMethod
from pipeline.puzzles.twisty.pack import multinomial
from pipeline.puzzles.twisty.tws import Definition, Part, Turn
from pipeline.solvers import twisty_c, twisty_patterns, twisty_tables
from pipeline.solvers.twisty_c import CPattern, CPuzzle, CSearch, CSet
from pipeline.solvers.twisty_layout import FlatLayout, canonical, layout
from pipeline.solvers.twisty_patterns import PatternCode, PatternSet
from pipeline.storage.table import Table

#: How the tables are read unless told: depth mod 3 in 2 bits (the smallest arrays, and
#: the fastest search of the three formats on the 3x3x3 cube: docs/BENCHMARKS.md).
DEFAULT_FORMAT = twisty_c.MOD3
#: No search goes deeper (a position of the group is far nearer on any puzzle here).
MAX_DEPTH = 200
#: About how long the kernel works between two looks at progress and Ctrl-C, and the
#: nodes of the first slice.
SLICE_SECONDS = 0.25
FIRST_SLICE = 1 << 16


@dataclass(frozen=True)
class Symmetry:
    """A symmetry of the puzzle as the kernel applies it (every piece distinct, solved
    twists 0): position j's piece goes to ``pos[j]``, label L becomes ``label[L]``,
    twist t becomes ``mul[j] * t + add[j] - add[home of L]`` (mod the set's
    orientations; ``mul`` 1, or o - 1 for a mirror image)."""

    pos: np.ndarray
    label: np.ndarray
    mul: np.ndarray
    add: np.ndarray


def symmetry(lay: FlatLayout, s: Sequence[int]) -> Symmetry:
    """The kernel's form of a symmetry given on the points (group.py): s maps the
    point (position j, twist x) to (pos[j], mul * x + add[j])."""
    d = lay.definition
    pos = np.zeros(lay.npos, np.int16)
    mul = np.ones(lay.npos, np.uint8)
    add = np.zeros(lay.npos, np.uint8)
    label = np.zeros(lay.nlabels, np.uint16)
    homes = _homes(lay)
    solved_perm, _ = lay.arrays(d.solved)
    base = 0
    for i, ps in enumerate(d.sets):
        for j in range(ps.pieces):
            at = lay.first[i] + j
            to, x0 = divmod(s[base + j * ps.twists] - base, ps.twists)
            pos[at] = lay.first[i] + to
            add[at] = x0
            if ps.twists > 1:
                mul[at] = (
                    divmod(s[base + j * ps.twists + 1] - base, ps.twists)[1] - x0
                ) % ps.twists
        base += ps.pieces * ps.twists
    for x in range(lay.nlabels):
        label[x] = solved_perm[pos[homes[x]]]
    return Symmetry(pos, label, mul, add)


@dataclass(frozen=True)
class PatternLookup:
    """A pattern's array: a value a coordinate, as bytes, 4 bits or depth mod 3."""

    code: PatternCode
    array: np.ndarray
    format: int
    #: Looked up on the position's inverse (its distance is the position's; an exact
    #: format only: a turn may change the inverse's pattern depth by more than one).
    inverse: bool = False
    #: Looked up on the position's conjugate by a symmetry (as far from solved).
    conjugate: Symmetry | None = None

    @property
    def view(self) -> int:
        return 1 if self.inverse else 2 if self.conjugate is not None else 0

    def __post_init__(self) -> None:
        if self.inverse and self.format == twisty_c.MOD3:
            raise ValueError(f"pattern {self.code.name}: an inverse look-up needs exact depths")
        per_byte = {twisty_c.BYTE: 1, twisty_c.NIBBLE: 2, twisty_c.MOD3: 4}[self.format]
        if self.array.dtype != np.uint8 or self.array.size != -(-self.code.size // per_byte):
            raise ValueError(f"pattern {self.code.name}: the array does not fit its coordinates")


#: Where a running search is (answers.py: every surface shows it).
Progress = SearchProgress


@dataclass(frozen=True)
class Found:
    """An optimal solution (turn names), with the nodes searched and the time taken."""

    turns: tuple[str, ...]
    nodes: int
    seconds: float

    @property
    def length(self) -> int:
        return len(self.turns)


class TwistySearch:
    """IDA* over one definition's turns with pattern tables (C kernel only)."""

    def __init__(
        self,
        definition: Definition,
        turns: Sequence[Turn],
        tables: Sequence[PatternLookup] = (),
        *,
        canonical_moves: bool = True,
    ) -> None:
        """``canonical_moves`` False searches every turn after every turn (for checks)."""
        lib = twisty_c.library()
        if lib is None:
            raise BadMethod(
                "the twisty search needs a C compiler (see python -m pipeline.solvers.ida_c)"
            )
        self.lib = lib
        self.definition = definition
        self.turns = tuple(turns)
        self.layout: FlatLayout = layout(definition)
        self.tables = tuple(tables)
        self._keep: list[object] = []
        machine = canonical(definition, self.turns) if canonical_moves else None
        self._puzzle = self._c_puzzle(machine)
        self._patterns = (CPattern * max(1, len(self.tables)))(
            *[self._c_pattern(t) for t in self.tables]
        )

    # -- the C structs (their arrays kept alive in self._keep) ----------------------------
    def _addr(self, arr: np.ndarray) -> int:
        self._keep.append(arr)
        return arr.ctypes.data

    def _c_puzzle(self, machine: np.ndarray | None) -> CPuzzle:
        lay = self.layout
        src, add, touched = lay.turn_arrays(self.turns)
        if machine is None:
            machine = np.zeros((1, len(self.turns)), np.int16)
        solved_perm, solved_tw = lay.arrays(self.definition.solved)
        self.solved = (solved_perm, solved_tw)
        illegal = lay.illegal()
        self.home = _homes(lay)
        if any(t.view for t in self.tables) and (self.home < 0).any():
            raise ValueError("inverse look-ups need every piece distinct, no ? orientation")
        return CPuzzle(
            npos=lay.npos, nturns=len(self.turns), maxtouch=touched.shape[1],
            any_wild=int(lay.wild.any()), any_illegal=int(bool(self.definition.illegal)),
            ncanon=len(machine), src=self._addr(src), add=self._addr(add),
            touched=self._addr(touched), order=self._addr(lay.order), wild=self._addr(lay.wild),
            illegal=self._addr(illegal), nlabels=lay.nlabels,
            canon=self._addr(np.ascontiguousarray(machine, np.int16)),
            solved_perm=self._addr(solved_perm), solved_twist=self._addr(solved_tw),
            home=self._addr(self.home),
        )  # fmt: skip

    def _c_pattern(self, t: PatternLookup) -> CPattern:
        sets = (CSet * len(t.code.sets))(*[self._c_set(s) for s in t.code.sets])
        self._keep.append(sets)
        solved = t.code.coordinate(*self.solved)
        sym = t.conjugate
        arrays = {}
        if sym is not None:
            arrays = {f"sym_{f}": self._addr(np.ascontiguousarray(getattr(sym, f)))
                      for f in ("pos", "label", "mul", "add")}  # fmt: skip
        return CPattern(
            nsets=len(t.code.sets), format=t.format, view=t.view, **arrays,
            sets=ctypes.addressof(sets),
            arr=self._addr(t.array), size=t.code.size, solved=solved,
        )  # fmt: skip

    def _c_set(self, s: PatternSet) -> CSet:
        rep = next((x for x, c in enumerate(s.counts) if c > 1), 0)
        return CSet(
            first=s.first, n=s.n, kind=s.kind, k=s.k, o=s.o, even=int(s.even),
            implied=int(s.implied), rep=rep, rep_count=s.counts[rep], q_size=s.q_size,
            size=s.size, total=_fits(_multinomial(s.counts)),
            lab=self._addr(np.array(s.lab, np.uint8)),
            wild=self._addr(np.array(s.wild, np.uint8)),
            counts=self._addr(np.array(s.counts, np.uint64)),
            fall=self._addr(_falling(s.n)), any_wild=int(any(s.wild)),
            counted=self._addr(np.array([not s.wild[x] for x in s.lab], np.uint8)),
        )  # fmt: skip

    # -- positions -------------------------------------------------------------------
    def arrays(self, parts: Sequence[Part]) -> tuple[np.ndarray, np.ndarray]:
        return self.layout.arrays(parts)

    def coordinate(self, table: int, parts: Sequence[Part]) -> int:
        """Pattern ``table``'s coordinate of a position, computed by the kernel."""
        perm, tw = self.arrays(parts)
        pat = ctypes.byref(self._patterns[table])
        return int(self.lib.tw_coordinate(pat, perm.ctypes.data, tw.ctypes.data))

    def heuristic(self, parts: Sequence[Part]) -> int:
        """The bound the search starts from: the largest table value."""
        search, _ = self._search(parts, 0)
        return int(self.lib.tw_heuristic(ctypes.byref(search), search.root_perm, search.root_twist))

    def apply(self, parts: Sequence[Part], names: Sequence[str]) -> tuple[Part, ...]:
        """The position after the turns named (turns of this search)."""
        index = {t.name: i for i, t in enumerate(self.turns)}
        perm, tw = self.arrays(parts)
        for name in names:
            self.lib.tw_apply(ctypes.byref(self._puzzle), index[name], perm.ctypes.data,
                              tw.ctypes.data)  # fmt: skip
        return self.layout.parts(perm, tw)

    # -- the search ------------------------------------------------------------------
    def _search(self, parts: Sequence[Part], max_depth: int) -> tuple[CSearch, dict]:
        """The kernel's stack for a search from ``parts`` (its arrays, kept alive)."""
        n, nt, levels = self.layout.npos, len(self.turns), max_depth + 2
        npat = max(1, len(self.tables))
        perm, tw = self.arrays(parts)
        arrays = {
            "root_perm": perm,
            "root_twist": tw,
            "root_h": np.zeros(npat, np.uint8),
            "kid_perm": np.zeros((levels, nt, n), np.uint16),
            "kid_twist": np.zeros((levels, nt, n), np.uint8),
            "inv_perm": np.zeros((levels, nt, n), np.uint16),
            "inv_twist": np.zeros((levels, nt, n), np.uint8),
            "kid_h": np.zeros((levels, nt, npat), np.uint8),
            "kid_coord": np.zeros((levels, nt), np.uint64),
            **{f: np.zeros((levels, nt), np.int16) for f in ("kid_turn", "kid_canon", "alive")},
            **{f: np.zeros(levels, np.int16) for f in
               ("alive_count", "alive_at", "chosen", "canon", "path")},
        }  # fmt: skip
        search = CSearch(
            pz=ctypes.addressof(self._puzzle), pats=ctypes.addressof(self._patterns),
            npat=len(self.tables), max_depth=max_depth,
            **{f: a.ctypes.data for f, a in arrays.items()},
        )  # fmt: skip
        return search, arrays

    def solve(
        self,
        parts: Sequence[Part],
        on_progress: Callable[[Progress], None] | None = None,
        max_depth: int = MAX_DEPTH,
    ) -> Found | None:
        """An optimal solution of a position of the group (None: none within
        ``max_depth``). ``on_progress`` is called between slices of the search."""
        search, arrays = self._search(parts, max_depth)
        path = arrays["path"]
        clock = time.perf_counter()
        self.lib.tw_start(ctypes.byref(search))
        budget, status = FIRST_SLICE, search.status
        while status == twisty_c.BUSY:
            began = time.perf_counter()
            status = self.lib.tw_run(ctypes.byref(search), budget)
            took = time.perf_counter() - began
            budget = _next_budget(budget, took)
            if on_progress is not None and status == twisty_c.BUSY:
                on_progress(Progress(search.bound, search.nodes, time.perf_counter() - clock))
        seconds = time.perf_counter() - clock
        if status == twisty_c.NONE:
            return None
        names = tuple(self.turns[int(t)].name for t in path[: search.length])
        return Found(names, search.nodes, seconds)


def _homes(lay: FlatLayout) -> np.ndarray:
    """Each label's position when solved (-1 for all when a label repeats or a piece's
    orientation is ``?``: no inverse then)."""
    out = np.full(lay.nlabels, -1, np.int16)
    for i, part in enumerate(lay.definition.solved):
        if len(set(part.perm)) < len(part.perm):
            return np.full(lay.nlabels, -1, np.int16)
        for j, v in enumerate(part.perm):
            out[lay.label_first[i] + lay.labels[i].index(v)] = lay.first[i] + j
    return np.full(lay.nlabels, -1, np.int16) if lay.wild.any() else out


def pattern_table(
    definition: Definition,
    turns: Sequence[Turn],
    pattern_definition: Definition,
    pattern_turns: Sequence[Turn],
    stored: Table,
    fmt: int = DEFAULT_FORMAT,
) -> PatternLookup:
    """A built pattern table (``stored``: its storage.table.Table) as the search reads
    it: its coordinate from the two definitions, its depths mapped (twisty_tables)."""
    lay = layout(definition)
    code = twisty_patterns.pattern(stored.name, lay, turns, pattern_definition, pattern_turns)
    return PatternLookup(code, twisty_tables.load(stored, code, fmt), fmt)


def symmetric(
    lay: FlatLayout, tables: Sequence[PatternLookup], syms: Sequence[Sequence[int]], count: int = 2
) -> list[PatternLookup]:
    """Up to ``count`` more look-ups of each table that keeps some pieces alike, each on
    the position's conjugate by one of the symmetries ``syms`` (group.symmetries):
    the table then bounds the distance by other pieces (those the symmetry takes to
    its distinct ones). Chosen one by one, each the symmetry whose pieces differ
    most from the table's own and those chosen before (the most pieces outside the
    nearest of them). A table of distinct pieces only gains nothing: a conjugate is
    as far from its solved state as the position."""
    out = []
    for table in tables:
        own = _tracked(lay, table.code)
        if own is None:
            continue
        options = []
        for s in syms[1:]:
            sym = symmetry(lay, s)
            options.append((frozenset(x for x in range(lay.nlabels) if sym.label[x] in own), sym))
        chosen = [own]
        for _ in range(min(count, len(options))):
            scores = [min(len(pieces - c) for c in chosen) for pieces, _ in options]
            best = max(range(len(options)), key=scores.__getitem__)
            if scores[best] == 0:
                break
            chosen.append(options[best][0])
            out.append(
                PatternLookup(table.code, table.array, table.format, conjugate=options[best][1])
            )
    return out


def _tracked(lay: FlatLayout, code: PatternCode) -> frozenset[int] | None:
    """The labels (layout numbers) a pattern keeps distinct, None when it keeps every
    piece of its sets so."""
    out: set[int] = set()
    for s in code.sets:
        first = lay.label_first[s.full]
        labels = range(first, first + len(lay.labels[s.full]))
        out |= {x for x in labels if s.counts[s.lab[x]] == 1}
    if all(c == 1 for s in code.sets for c in s.counts):
        return None
    return frozenset(out)


def _next_budget(budget: int, took: float) -> int:
    """Nodes for the next slice, so that one takes about SLICE_SECONDS."""
    if took <= 0:
        return budget * 4
    return int(min(max(budget * SLICE_SECONDS / took, 1 << 12), budget * 4, 1 << 34))


def _multinomial(counts: Sequence[int]) -> int:
    return multinomial(tuple(counts))


def _fits(x: int) -> int:
    """A count the kernel reads as uint64 (0 when it cannot be: not read then)."""
    return x if x < 1 << 64 else 0


def _falling(n: int) -> np.ndarray:
    """``a! / b!`` at ``[a, b]`` for ``b <= a <= n`` (0 elsewhere, and where it passes
    64 bits: the ranks never read those)."""
    out = np.zeros((n + 1, n + 1), np.uint64)
    for a in range(n + 1):
        x = 1
        for b in range(a, -1, -1):
            out[a, b] = _fits(x)
            x *= b if b else 1
    return out
