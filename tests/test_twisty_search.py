"""The twisty search (solvers/twisty_*.py): pattern coordinates, the canonical machine,
optimal solutions, position checks, progress and stopping.

The references here are written apart from the code they check: a pattern's
coordinate from pack.py's ranks and the rule written out below; pattern
depths by a breadth-first search over whole positions in numpy; distances by
a bidirectional breadth-first search (a ball around solved, met by a search
from the position). The 3x3x3 cube's canonical sequences are counted against
the published figures (18, 243, 3,240, 43,254 in half turns; 12, 114,
1,068, 10,011 in quarter turns).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from pipeline.errors import BadPosition
from pipeline.puzzles.twisty import group, tws
from pipeline.puzzles.twisty.board import TwistyPuzzle, select
from pipeline.puzzles.twisty.pack import set_code
from pipeline.puzzles.twisty.tws import WILD, Definition, Part, Turn
from pipeline.solvers import twisty_c, twisty_layout, twisty_search, twisty_tables
from pipeline.solvers.twisty_patterns import pattern
from pipeline.solvers.twisty_search import PatternLookup, TwistySearch
from pipeline.storage.table import Table as StoredTable
from tests.conftest import build_local

DEFS = Path(__file__).parent / "data" / "twisty"
pytestmark = pytest.mark.skipif(twisty_c.library() is None, reason="no C compiler")


def read(name: str) -> Definition:
    return tws.read(DEFS / f"{name}.tws")


# -- definitions and their abstractions --------------------------------------------------
#: Two labels repeated and an even set (every move a 3-cycle): the multiset and the
#: halved ranks.
SHAPES = """Name Shapes
Set P 6 2
Set T 5 3
Solved
P
1 1 2 2 3 4
0 0 0 0 0 0
T
1 2 3 4 5
0 0 0 0 0
End
MoveTransformation X
P
1 2 0 3 4 5
1 0 1 0 0 0
T
1 2 0 3 4
1 1 1 0 0
End
MoveTransformation Y
P
0 1 2 4 5 3
0 0 0 1 1 0
T
0 1 3 4 2
0 0 2 1 0
End
MoveTransformation Z
P
0 3 2 1 4 5
0 1 0 1 0 0
T
0 2 4 3 1
0 0 0 0 0
End
"""


def abstraction(d: Definition, keep: dict[str, set[int] | None]) -> Definition:
    """The definition with, in each set named, the pieces of the positions given kept
    distinct (None: all) and the others one label with ``?`` orientation; other sets
    left out."""
    sets = [i for i, s in enumerate(d.sets) if s.name in keep]
    solved = []
    for i in sets:
        part, kept = d.solved[i], keep[d.sets[i].name]
        js = range(len(part.perm)) if kept is None else sorted(kept)
        labels = sorted({part.perm[j] for j in js})
        other = len(labels) + 1
        perm = tuple(labels.index(v) + 1 if v in labels else other for v in part.perm)
        twist = tuple(
            t if v in labels else WILD for v, t in zip(part.perm, part.twist, strict=True)
        )
        solved.append(Part(perm, twist))
    moves = [tws.MoveBlock(m.name, tuple(m.parts[i] for i in sets)) for m in d.moves]
    piece_sets = tuple(d.sets[i] for i in sets)
    turns = tuple(t for m in moves for t in tws.powers(piece_sets, m))
    name = f"{d.name}-{'-'.join(sorted(keep))}"
    return Definition(name, piece_sets, tuple(solved), tuple(moves), (), turns, (), "")


def quarter_turns(d: Definition) -> list[Turn]:
    return select(d, None, True, "test")


def all_turns(d: Definition) -> list[Turn]:
    return select(d, None, False, "test")


# -- the coordinate rule, written out --------------------------------------------------
def reference_coordinates(
    full: Definition, pat: Definition, pat_turns: Sequence[Turn], perm: np.ndarray,
    tw: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """The pattern coordinates of whole positions (rows of layout arrays): ranks by
    pack.py; ``q`` the twists of the positions holding a piece whose orientation
    counts, position 1 first, the last left out when no piece is ``?`` and every move
    keeps the sum."""
    lay = twisty_layout.layout(full)
    out = np.zeros(len(perm), np.uint64)
    for i, (ps, solved) in enumerate(zip(pat.sets, pat.solved, strict=True)):
        f = [s.name for s in full.sets].index(ps.name)
        code = set_code(pat, i, tuple(pat_turns))
        to_pat = np.zeros(lay.nlabels, np.int64)
        for v, p in zip(full.solved[f].perm, solved.perm, strict=True):
            to_pat[lay.label_first[f] + lay.labels[f].index(v)] = code.labels.index(p)
        at = slice(lay.first[f], lay.first[f] + ps.pieces)
        seq = to_pat[perm[:, at]]
        twists = tw[:, at].astype(np.int64)
        counted = ~np.asarray(code.wild)[seq]
        digits = counted.sum(axis=1)[0] - (1 if code.implied else 0) if ps.twists > 1 else 0
        q = np.zeros(len(perm), np.uint64)
        for j in range(ps.pieces):
            ok = counted[:, j] & (np.cumsum(counted, axis=1)[:, j] <= digits)
            q = np.where(ok, q * np.uint64(ps.twists) + twists[:, j].astype(np.uint64), q)
        size = code.arrangements * ps.twists ** int(digits)
        out = out * np.uint64(size) + code.rank_many(seq) * np.uint64(ps.twists**digits) + q
    return out


# -- whole positions in numpy: moves, a breadth-first search ----------------------------
class Rows:
    """Whole positions as rows of the layout's arrays, moved in numpy."""

    def __init__(self, d: Definition, turns: Sequence[Turn]) -> None:
        self.lay = twisty_layout.layout(d)
        self.src, self.add, _ = self.lay.turn_arrays(turns)
        self.order = self.lay.order.astype(np.int64)

    def moved(self, perm: np.ndarray, tw: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray]:
        p = perm[:, self.src[t]]
        w = (tw[:, self.src[t]].astype(np.int64) + self.add[t]) % self.order
        w[self.lay.wild[p] == 1] = 0
        return p, w.astype(np.uint8)

    def children(self, perm: np.ndarray, tw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        kids = [self.moved(perm, tw, t) for t in range(len(self.src))]
        return np.concatenate([k[0] for k in kids]), np.concatenate([k[1] for k in kids])

    @staticmethod
    def keys(perm: np.ndarray, tw: np.ndarray) -> np.ndarray:
        raw = np.concatenate([np.ascontiguousarray(perm).view(np.uint8), tw], axis=1)
        return raw.view(np.dtype((np.void, raw.shape[1])))[:, 0]

    def layers(self, perm: np.ndarray, tw: np.ndarray, depth: int) -> list[np.ndarray]:
        """The keys of the positions at each distance 0..depth from the rows given."""
        seen = np.unique(self.keys(perm, tw))
        out = [seen]
        for _ in range(depth):
            perm, tw = self.children(perm, tw)
            keys = self.keys(perm, tw)
            keys, first = np.unique(keys, return_index=True)
            new = ~np.isin(keys, seen)
            perm, tw = perm[first[new]], tw[first[new]]
            out.append(keys[new])
            seen = np.union1d(seen, keys[new])
        return out


def distance(rows: Rows, ball: list[np.ndarray], parts: Sequence[Part], most: int) -> int | None:
    """The distance to solved if at most ``most`` (None: farther): the position's layers
    met with the ball of layers around solved (the turns are closed under inverses)."""
    perm, tw = rows.lay.arrays(parts)
    mine = rows.layers(perm[None, :], tw[None, :], most - (len(ball) - 1))
    best = None
    for i, layer in enumerate(mine):
        for j, other in enumerate(ball):
            if np.isin(layer, other).any() and (best is None or i + j < best):
                best = i + j
    return best


@functools.cache
def pattern_depths(full: Definition, turns: tuple[Turn, ...], pat: Definition) -> np.ndarray:
    """A pattern's depth at each coordinate, by a breadth-first search over whole
    positions (one kept for each coordinate reached), coordinates by the reference."""
    rows = Rows(full, turns)
    pat_turns = all_turns(pat) if len(turns) == len(all_turns(full)) else quarter_turns(pat)
    code = pattern("p", rows.lay, turns, pat, pat_turns)
    perm, tw = rows.lay.arrays(full.solved)
    perm, tw = perm[None, :], tw[None, :]
    out = np.full(code.size, 255, np.uint8)
    out[reference_coordinates(full, pat, pat_turns, perm, tw).astype(np.intp)] = 0
    depth = 0
    while len(perm):
        perm, tw = rows.children(perm, tw)
        c = reference_coordinates(full, pat, pat_turns, perm, tw).astype(np.intp)
        c, first = np.unique(c, return_index=True)
        new = out[c] == 255
        depth += 1
        out[c[new]] = depth
        perm, tw = perm[first[new]], tw[first[new]]
    return out


def search_with(
    full: Definition, turns: Sequence[Turn], pats: Sequence[Definition], fmt: int,
    **options: object,
) -> TwistySearch:  # fmt: skip
    lay = twisty_layout.layout(full)
    quarter = len(turns) != len(all_turns(full))
    tables = []
    for i, pat in enumerate(pats):
        code = pattern(f"p{i}", lay, turns, pat, quarter_turns(pat) if quarter else all_turns(pat))
        depths = pattern_depths(full, tuple(turns), pat)
        tables.append(PatternLookup(code, twisty_tables.pack(depths, fmt), fmt))
    return TwistySearch(full, turns, tables, **options)  # type: ignore[arg-type]


def scramble(search: TwistySearch, rng: random.Random, length: int) -> tuple[list[str], tuple]:
    """A random sequence of canonical turns, and the position it makes."""
    machine = twisty_layout.canonical(search.definition, search.turns)
    state, names = 0, []
    while len(names) < length:
        t = rng.randrange(len(search.turns))
        if machine[state, t] >= 0:
            state = int(machine[state, t])
            names.append(search.turns[t].name)
    return names, search.apply(search.definition.solved, names)


# -- the coordinates -------------------------------------------------------------------
SHAPES_DEF = tws.parse(SHAPES)
CASES = [
    ("pocket", None, {"CORNER": None}),
    ("pocket", None, {"CORNER": {0, 3, 5}}),
    ("mixed", None, {"A": None, "B": {1}}),
    ("mixed", None, {"C": None, "A": {0, 2}}),
    ("shapes", SHAPES_DEF, {"P": None, "T": None}),
    ("shapes", SHAPES_DEF, {"T": None}),
    ("shapes", SHAPES_DEF, {"P": {4}}),
]


@pytest.mark.parametrize(("name", "given", "keep"), CASES)
def test_the_kernel_computes_the_coordinate_the_rule_gives(
    name: str, given: Definition | None, keep: dict[str, set[int] | None]
) -> None:
    full = given or read(name)
    turns = all_turns(full)
    pat = abstraction(full, keep)
    code = pattern("p", twisty_layout.layout(full), turns, pat, all_turns(pat))
    search = TwistySearch(
        full, turns, [PatternLookup(code, np.zeros(code.size, np.uint8), twisty_c.BYTE)]
    )
    rng = random.Random(len(name) + len(keep))
    positions = [scramble(search, rng, rng.randrange(25))[1] for _ in range(200)]
    arrays = [search.arrays(p) for p in positions]
    perm = np.stack([a[0] for a in arrays])
    tw = np.stack([a[1] for a in arrays])
    want = reference_coordinates(full, pat, all_turns(pat), perm, tw)
    got = [search.coordinate(0, p) for p in positions]
    assert got == [int(x) for x in want]
    assert got == [code.coordinate(*a) for a in arrays]
    assert max(got) < code.size and len(set(got)) >= min(20, code.size // 2)


def test_sets_without_a_wild_piece_are_packed_as_their_tables_are() -> None:
    """Without ``?`` the pattern's coordinate is pack.py's state of its puzzle (what the
    engine writes in a table's state column)."""
    full = SHAPES_DEF
    puzzle = TwistyPuzzle(full, "shapes")
    code = pattern("p", twisty_layout.layout(full), puzzle.turns, full, puzzle.turns)
    assert code.size == puzzle.pack.size == 180 * 2**5 * 60 * 3**4
    assert [s.kind for s in code.sets] == [twisty_c.MULTISET, twisty_c.DISTINCT]
    assert code.sets[1].even
    search = TwistySearch(
        full, puzzle.turns, [PatternLookup(code, np.zeros(code.size, np.uint8), 0)]
    )
    rng = random.Random(3)
    for _ in range(100):
        _, parts = scramble(search, rng, 12)
        assert search.coordinate(0, parts) == puzzle.encode(parts)


def test_a_pattern_must_have_the_searchs_moves() -> None:
    full = read("pocket")
    pat = abstraction(full, {"CORNER": None})
    lay = twisty_layout.layout(full)
    with pytest.raises(Exception, match="no move doing what U2 does"):
        pattern("p", lay, all_turns(full), pat, quarter_turns(pat))
    pattern("p", lay, quarter_turns(full), pat, all_turns(pat))  # fewer turns: a bound still


# -- the canonical machine --------------------------------------------------------------
@pytest.mark.parametrize(
    ("quarter", "counts"),
    [(False, [18, 243, 3240, 43254]), (True, [12, 114, 1068, 10011])],
)
def test_canonical_sequences_of_the_cube_are_counted_as_published(
    quarter: bool, counts: list[int]
) -> None:
    d = read("cube2")  # the whole 2x2x2 turns as the 3x3x3's faces do (opposites commute)
    turns = select(d, None, quarter, "test")
    machine = twisty_layout.canonical(d, turns)
    now = {0: 1}
    got = []
    for _ in counts:
        nxt: dict[int, int] = {}
        for state, n in now.items():
            for t in range(len(turns)):
                if machine[state, t] >= 0:
                    nxt[int(machine[state, t])] = nxt.get(int(machine[state, t]), 0) + n
        now = nxt
        got.append(sum(now.values()))
    assert got == counts


# -- optimal solutions -------------------------------------------------------------------
POCKET_PATTERNS = ({"CORNER": {0, 1, 2, 3}}, {"CORNER": {4, 5, 6}}, {"CORNER": {0, 4}})


@pytest.fixture(scope="module")
def pocket_ball() -> tuple[Rows, list[np.ndarray]]:
    full = read("pocket")
    rows = Rows(full, all_turns(full))
    perm, tw = rows.lay.arrays(full.solved)
    return rows, rows.layers(perm[None, :], tw[None, :], 5)


@pytest.mark.parametrize("fmt", [twisty_c.BYTE, twisty_c.NIBBLE, twisty_c.MOD3])
def test_pocket_solutions_are_optimal(fmt: int, pocket_ball: tuple[Rows, list[np.ndarray]]) -> None:
    full = read("pocket")
    pats = [abstraction(full, keep) for keep in POCKET_PATTERNS]
    search = search_with(full, all_turns(full), pats, fmt)
    rows, ball = pocket_ball
    rng = random.Random(fmt)
    for length in [*range(1, 10), 9, 9, 12, 14, 16]:
        names, parts = scramble(search, rng, length)
        sol = search.solve(parts)
        assert sol is not None and sol.length <= length
        assert search.apply(parts, sol.turns) == full.solved
        if length <= 9:
            assert sol.length == distance(rows, ball, parts, 9), names
        assert search.heuristic(parts) <= sol.length


def test_the_canonical_machine_loses_no_optimal_solution() -> None:
    """Against a search that tries every turn after every turn, in both metrics."""
    full = read("pocket")
    for turns in (all_turns(full), quarter_turns(full)):
        pats = [abstraction(full, keep) for keep in POCKET_PATTERNS[:2]]
        pruned = search_with(full, turns, pats, twisty_c.NIBBLE)
        plain = search_with(full, turns, pats, twisty_c.NIBBLE, canonical_moves=False)
        rng = random.Random(len(turns))
        fewer = 0
        for _ in range(12):
            _, parts = scramble(pruned, rng, rng.randrange(4, 12))
            a, b = pruned.solve(parts), plain.solve(parts)
            assert a is not None and b is not None and a.length == b.length
            fewer += a.nodes < b.nodes
        assert fewer >= 10


def test_a_definition_with_identical_pieces_and_an_even_set() -> None:
    """Shapes: two repeated labels in one set, an even set beside it; a pattern each."""
    full = SHAPES_DEF
    pats = [abstraction(full, {"P": None}), abstraction(full, {"T": None})]
    search = search_with(full, all_turns(full), pats, twisty_c.MOD3)
    rows = Rows(full, all_turns(full))
    perm, tw = rows.lay.arrays(full.solved)
    ball = rows.layers(perm[None, :], tw[None, :], 4)
    rng = random.Random(9)
    for length in range(1, 9):
        _, parts = scramble(search, rng, length)
        sol = search.solve(parts)
        assert sol is not None and sol.length == distance(rows, ball, parts, 8)
        assert search.apply(parts, sol.turns) == full.solved


def test_look_ups_on_the_inverse_and_on_conjugates() -> None:
    """A table looked up on the position's inverse, or on its conjugate by a symmetry
    (here a whole-cube turn of the 2x2x2 cube, an element of its group): the kernel's
    positions are group.py's, and the lengths stay optimal."""
    full = read("cube2")
    turns = all_turns(full)
    lay = twisty_layout.layout(full)
    pat = abstraction(full, {"CORNER": {0, 1, 2, 3}})
    code = pattern("p", lay, turns, pat, all_turns(pat))
    depths = pattern_depths(full, tuple(turns), pat)
    by = {t.name: group.as_permutation(full.sets, t.parts) for t in turns}
    rotation = group._mul(by["U"], by["D'"])
    sym = twisty_search.symmetry(lay, rotation)
    plain = PatternLookup(code, twisty_tables.pack(depths, twisty_c.NIBBLE), twisty_c.NIBBLE)
    views = [
        plain,
        PatternLookup(code, plain.array, twisty_c.NIBBLE, inverse=True),
        PatternLookup(
            code, twisty_tables.pack(depths, twisty_c.MOD3), twisty_c.MOD3, conjugate=sym
        ),
    ]
    search = TwistySearch(full, turns, views)
    alone = [TwistySearch(full, turns, [v]) for v in views]
    rng = random.Random(6)
    for _ in range(30):
        _, parts = scramble(search, rng, rng.randrange(1, 9))
        g = group.element(full, parts)
        seen = [parts, group.position(full, group._inv(g))]
        seen.append(group.position(full, group._mul(group._mul(group._inv(rotation), g), rotation)))
        for one, position in zip(alone, seen, strict=True):
            assert one.heuristic(parts) == depths[code.coordinate(*lay.arrays(position))]
    for length in (6, 8, 9, 10):
        _, parts = scramble(search, rng, length)
        a, b = search.solve(parts), alone[0].solve(parts)
        assert a is not None and b is not None and a.length == b.length
        assert search.apply(parts, a.turns) == full.solved


def test_the_symmetries_of_a_definition() -> None:
    """The 2x2x2 cube with every face turning has the cube's 48 (rotations and mirror
    images); the pocket cube held by a corner the 6 about that corner's diagonal;
    identical pieces make no group to conjugate in."""
    for name, count in (("cube2", 48), ("pocket", 6), ("toplayer", 1)):
        d = read(name)
        turns = all_turns(d)
        found = group.symmetries(d, turns)
        assert len(found) == count and found[0] == tuple(range(group.points(d.sets)))
        moves = {group.as_permutation(d.sets, t.parts) for t in turns}
        for s in found:
            for m in moves:
                assert group._mul(group._mul(group._inv(s), m), s) in moves


def test_symmetric_look_ups_keep_the_lengths_optimal(
    pocket_ball: tuple[Rows, list[np.ndarray]],
) -> None:
    full = read("pocket")
    turns = all_turns(full)
    base = search_with(full, turns, [abstraction(full, POCKET_PATTERNS[0])], twisty_c.MOD3)
    lay = twisty_layout.layout(full)
    more = twisty_search.symmetric(lay, base.tables, group.symmetries(full, turns), 2)
    assert len(more) == 2 and all(t.conjugate is not None for t in more)
    search = TwistySearch(full, turns, [*base.tables, *more])
    rows, ball = pocket_ball
    rng = random.Random(8)
    fewer = 0
    for length in (7, 8, 9, 9, 9):
        _, parts = scramble(search, rng, length)
        a, b = search.solve(parts), base.solve(parts)
        assert a is not None and b is not None
        assert a.length == b.length == distance(rows, ball, parts, 9)
        fewer += a.nodes < b.nodes
    assert fewer >= 4


# -- the arrays derived from a built table -----------------------------------------------
def test_the_depth_arrays_of_a_built_table(tmp_path: Path) -> None:
    full = read("mixed")
    puzzle = TwistyPuzzle(full, "mixed")
    build_local(puzzle, tmp_path)
    stored = StoredTable(tmp_path / "mixed")
    code = pattern("mixed", twisty_layout.layout(full), puzzle.turns, full, puzzle.turns)
    exact = pattern_depths(full, tuple(puzzle.turns), full)
    for fmt in (twisty_c.BYTE, twisty_c.NIBBLE, twisty_c.MOD3):
        arr = twisty_tables.load(stored, code, fmt)
        assert isinstance(arr, np.memmap)  # kept and mapped, read in place
        assert np.array_equal(arr, twisty_tables.pack(exact, fmt))
        again = twisty_tables.load(stored, code, fmt)
        assert isinstance(again, np.memmap) and np.array_equal(again, arr)
    assert (tmp_path / "mixed" / "_depths-mod3.npy").stat().st_size < code.size // 3
    table = twisty_search.pattern_table(full, puzzle.turns, full, puzzle.turns, stored)
    search = TwistySearch(full, puzzle.turns, [table])
    rng = random.Random(5)
    for _ in range(20):
        _, parts = scramble(search, rng, 10)
        sol = search.solve(parts)
        depth = int(exact[code.coordinate(*search.arrays(parts))])
        assert sol is not None and sol.length == depth == search.heuristic(parts)


# -- positions: checks, random ones, distances ----------------------------------------------
def test_positions_no_move_reaches_say_why() -> None:
    d = read("cube2")
    turns = all_turns(d)
    (c,) = d.solved
    twisted = (Part(c.perm, (1, *c.twist[1:])),)
    swapped = (Part((2, 1, *c.perm[2:]), c.twist),)
    assert "orientations sum to 1 (mod 3)" in str(group.why_not(d, turns, twisted))
    assert group.why_not(d, turns, swapped) is None  # a face turn is odd on the corners
    pocket = read("pocket")
    (p,) = pocket.solved
    assert group.why_not(pocket, all_turns(pocket), (Part(p.perm, (2, 1, *p.twist[2:])),)) is None
    wrong = (Part((1, 1, *p.perm[2:]), p.twist),)
    assert "not the solved state's" in str(group.why_not(pocket, all_turns(pocket), wrong))


def test_parities_across_sets() -> None:
    """Every move of ``two`` swaps a pair in each set: one set's odd arrangement alone
    is unreachable, both odd together are reachable."""
    two = tws.parse(
        "Set A 3 1\nSet B 3 1\nSolved\nA\n1 2 3\nB\n1 2 3\nEnd\n"
        "MoveTransformation X\nA\n1 0 2\nB\n0 2 1\nEnd\n"
        "MoveTransformation Y\nA\n0 2 1\nB\n1 0 2\nEnd\n"
    )
    turns = all_turns(two)
    a, b = two.solved
    odd_a = (Part((2, 1, 3), a.twist), b)
    both = (Part((2, 1, 3), a.twist), Part((1, 3, 2), b.twist))
    why = group.why_not(two, turns, odd_a)
    assert why is not None and "sets A, B" in why and "odd arrangement" in why
    assert group.why_not(two, turns, both) is None


def test_random_positions_are_the_groups_and_spread() -> None:
    pocket = read("pocket")
    turns = all_turns(pocket)
    rng = random.Random(1)
    got = [group.random_position(pocket, turns, rng) for _ in range(1400)]
    assert all(group.why_not(pocket, turns, p) is None for p in got)
    first = np.bincount([p[0].perm[0] for p in got], minlength=8)[1:]
    assert first.min() > 140 and first.max() < 260  # 200 expected for each of 7 corners
    twist = np.bincount([p[0].twist[0] for p in got], minlength=3)
    assert twist.min() > 400  # 467 expected for each of 3


def test_the_distance_between_two_positions() -> None:
    full = read("pocket")
    pats = [abstraction(full, keep) for keep in POCKET_PATTERNS]
    search = search_with(full, all_turns(full), pats, twisty_c.MOD3)
    rng = random.Random(4)
    _, a = scramble(search, rng, 8)
    b = search.apply(a, ["R", "U2", "F'"])
    sol = search.solve(group.between(full, a, b))
    assert sol is not None and sol.length == 3
    assert search.apply(a, sol.turns) == b
    assert group.between(full, a, a) == full.solved
    with pytest.raises(BadPosition, match="distinct pieces"):
        group.between(read("toplayer"), read("toplayer").solved, read("toplayer").solved)


# -- progress and stopping --------------------------------------------------------------
def test_a_long_search_reports_progress_and_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    full = read("pocket")
    search = TwistySearch(full, all_turns(full))  # no tables: a plain iterative deepening
    rng = random.Random(2)
    _, parts = scramble(search, rng, 8)
    want = search.solve(parts)
    monkeypatch.setattr(twisty_search, "FIRST_SLICE", 2000)
    monkeypatch.setattr(twisty_search, "SLICE_SECONDS", 0.0)
    seen: list[twisty_search.Progress] = []

    def stop(p: twisty_search.Progress) -> None:
        seen.append(p)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        search.solve(parts, on_progress=stop)
    assert [p.nodes for p in seen] == sorted(p.nodes for p in seen) and seen[0].nodes >= 2000
    assert all(1 <= p.bound <= 8 for p in seen)
    again = search.solve(parts)  # the search object is whole after a stop
    assert again is not None and want is not None and again.turns == want.turns
    assert search.solve(parts, max_depth=want.length - 1) is None
