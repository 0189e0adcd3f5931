"""The group a definition's moves generate: its order, whether a position is in it, and
uniformly random positions.

When every piece is distinct (no label repeats, no ``?``) and no ``Illegal``
line prunes moves, the positions reached from solved are exactly the
elements of the group the moves generate, acting on (position, orientation)
pairs. Its order comes from the Schreier-Sims algorithm (a base and strong
generating set; Holt's textbook form, orbits recomputed at each visit: plain,
and quick enough for the few hundred points a definition has). The build's
verify then checks the table's total against it, and a definition too large
for 64 bits says how many positions it has.

The same chain sifts a position (in the group exactly when it sifts to the
identity) and gives uniformly random elements (a random coset
representative at each level: every element is one such product, once).
Building it is bounded (:data:`MAX_TRIES` Schreier generators and
:data:`MAX_WORK` points moved), so a hostile definition costs seconds at
most; the 3x3x3 cube takes about 14,000 tries and 9 million points.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from pipeline.errors import BadPosition, BadSpec
from pipeline.puzzles.base import parity
from pipeline.puzzles.twisty.tws import WILD, Definition, Part, PieceSet, Turn

Perm = tuple[int, ...]
#: Points (positions times orientations) above which the order is not computed.
MAX_POINTS = 512
#: Schreier generators tried before giving up: the 3x3x3 cube tries 15,442 with
#: every turn as a generator (14,171 with its six moves: 0.4 s), the kilominx
#: 52,757 (4 s); the megaminx would take minutes.
MAX_TRIES = 60_000
#: Points moved (products and sifts, a point a step) before giving up: the
#: 3x3x3 cube takes about 9 million with its six moves.
MAX_WORK = 60_000_000


class _TooLong(Exception):
    """The order takes too long to compute here."""


def points(sets: tuple[PieceSet, ...]) -> int:
    return sum(s.pieces * s.twists for s in sets)


def as_permutation(sets: tuple[PieceSet, ...], parts: tuple[Part, ...]) -> Perm:
    """A move on the points: the piece at its source with orientation x goes to
    position j with orientation ``x + twist[j]``."""
    out: list[int] = [0] * points(sets)
    base = 0
    for s, part in zip(sets, parts, strict=True):
        for j, (src, tw) in enumerate(zip(part.perm, part.twist, strict=True)):
            for x in range(s.twists):
                out[base + src * s.twists + x] = base + j * s.twists + (x + tw) % s.twists
        base += s.pieces * s.twists
    return tuple(out)


def _mul(a: Perm, b: Perm) -> Perm:
    """a, then b."""
    return tuple(b[x] for x in a)


def _inv(a: Perm) -> Perm:
    out = [0] * len(a)
    for x, y in enumerate(a):
        out[y] = x
    return tuple(out)


def order(gens: list[Perm]) -> int:
    """The order of the group the permutations generate (_TooLong past the bounds)."""
    return chain(gens).order()


def chain(gens: list[Perm]) -> _Chain:
    """The complete chain of the group the permutations generate (_TooLong past the
    bounds; no generator: the trivial group on no points)."""
    gens = [g for g in gens if any(x != y for x, y in enumerate(g))]
    out = _Chain(len(gens[0]) if gens else 0)
    for g in gens:
        out.add(g)
    i = len(out.base) - 1
    while i >= 0:
        back = out.level(i)
        i = i - 1 if back is None else back
    return out


class _Chain:
    """A base, strong generators, and each level's orbit (kept until a generator joins)."""

    def __init__(self, n: int) -> None:
        self.ident: Perm = tuple(range(n))
        self.base: list[int] = []
        self.strong: list[Perm] = []
        self.cache: dict[int, tuple[list[Perm], dict[int, Perm]]] = {}
        self.tries = 0
        self.work = 0

    def order(self) -> int:
        total = 1
        for i in range(len(self.base)):
            total *= len(self.reps(i))
        return total

    def contains(self, g: Perm) -> bool:
        """Whether g is an element of the group (it sifts to the identity)."""
        return self.strip(g, 0)[0] == self.ident

    def random(self, rng: random.Random) -> Perm:
        """A uniformly random element: a random representative of each level, multiplied."""
        g = self.ident
        for i in reversed(range(len(self.base))):
            reps = self.reps(i)
            g = _mul(g, reps[rng.choice(sorted(reps))])
        return g

    def charge(self, products: int) -> None:
        self.work += products * len(self.ident)
        if self.work > MAX_WORK:
            raise _TooLong

    def add(self, g: Perm) -> None:
        self.strong.append(g)
        self.cache.clear()
        if all(g[b] == b for b in self.base):
            self.base.append(next(x for x, y in enumerate(g) if x != y))

    def gens(self, i: int) -> list[Perm]:
        return self._level(i)[0]

    def reps(self, i: int) -> dict[int, Perm]:
        return self._level(i)[1]

    def _level(self, i: int) -> tuple[list[Perm], dict[int, Perm]]:
        if i not in self.cache:
            fixed = self.base[:i]
            gens = [s for s in self.strong if all(s[p] == p for p in fixed)]
            reps = _orbit(self.base[i], gens, self.ident)
            self.charge(len(reps) + len(self.strong))
            self.cache[i] = (gens, reps)
        return self.cache[i]

    def strip(self, h: Perm, start: int) -> tuple[Perm, int]:
        """h sifted through the levels from ``start``: (residue, the level it stopped at)."""
        for j in range(start, len(self.base)):
            reps = self.reps(j)
            x = h[self.base[j]]
            if x not in reps:
                return h, j
            self.charge(2)
            h = _mul(h, _inv(reps[x]))
        return h, len(self.base)

    def level(self, i: int) -> int | None:
        """Check level i's Schreier generators; after a new strong generator, the level
        to go back to (None: the level is complete)."""
        gens, reps = self.gens(i), self.reps(i)
        for p, u in reps.items():
            for s in gens:
                self.tries += 1
                if self.tries > MAX_TRIES:
                    raise _TooLong
                self.charge(3)
                h = _mul(_mul(u, s), _inv(reps[s[p]]))
                if h == self.ident:
                    continue
                r, j = self.strip(h, i + 1)
                if r != self.ident:
                    self.add(r)
                    return j
        return None


def _orbit(b: int, gens: list[Perm], ident: Perm) -> dict[int, Perm]:
    """Each point of b's orbit, with a permutation taking b there."""
    reps = {b: ident}
    todo = [b]
    while todo:
        p = todo.pop()
        for s in gens:
            q = s[p]
            if q not in reps:
                reps[q] = _mul(reps[p], s)
                todo.append(q)
    return reps


def reachable(d: Definition, turns: list[tuple[Part, ...]]) -> int | None:
    """The positions reached from solved, when every piece is distinct and no position
    is illegal (else None: a search alone knows)."""
    if d.illegal or points(d.sets) > MAX_POINTS:
        return None
    for part in d.solved:
        if len(set(part.perm)) != len(part.perm) or any(t < 0 for t in part.twist):
            return None
    try:
        return order([as_permutation(d.sets, t) for t in turns])
    except _TooLong:
        return None


# -- positions: why one cannot be reached, and random ones -------------------------------
@functools.lru_cache(maxsize=4)
def group_chain(d: Definition, bases: frozenset[str]) -> _Chain | None:
    """The chain of the group of the base moves named (None past the bounds or the
    points: :data:`MAX_POINTS`)."""
    if points(d.sets) > MAX_POINTS:
        return None
    try:
        return chain([as_permutation(d.sets, m.parts) for m in d.moves if m.name in bases])
    except _TooLong:
        return None


def _chain_of(d: Definition, turns: Sequence[Turn]) -> _Chain | None:
    return group_chain(d, frozenset(t.base for t in turns))


def random_position(d: Definition, turns: Sequence[Turn], rng: random.Random) -> tuple[Part, ...]:
    """A uniformly random position reachable from solved: solved moved by a uniformly
    random element of the group (each position is reached by as many elements).
    BadSpec when the group is past the bounds, or Illegal lines prune moves."""
    if d.illegal:
        raise BadSpec(f"{d.name}: its Illegal lines make positions no group describes")
    c = _chain_of(d, turns)
    if c is None:
        raise BadSpec(f"{d.name}: its group is too large to compute here")
    return position(d, c.random(rng))


def position(d: Definition, g: Perm) -> tuple[Part, ...]:
    """The solved state moved by the group element g (on the points)."""
    out, base = [], 0
    for s, solved in zip(d.sets, d.solved, strict=True):
        perm, twist = [0] * s.pieces, [0] * s.pieces
        for src in range(s.pieces):
            j, tw = divmod(g[base + src * s.twists] - base, s.twists)
            perm[j] = solved.perm[src]
            t = solved.twist[src]
            twist[j] = WILD if t == WILD else (t + tw) % s.twists
        out.append(Part(tuple(perm), tuple(twist)))
        base += s.pieces * s.twists
    return tuple(out)


def element(d: Definition, parts: Sequence[Part]) -> Perm:
    """The element g that moves the solved state to the position (every piece
    distinct, no ``?``; the pieces the solved state's: _wrong_pieces first)."""
    g: list[int] = [0] * points(d.sets)
    base = 0
    for s, part, solved in zip(d.sets, parts, d.solved, strict=True):
        home = {v: j for j, v in enumerate(solved.perm)}
        for j, (v, t) in enumerate(zip(part.perm, part.twist, strict=True)):
            src = home[v]
            delta = (t - solved.twist[src]) % s.twists
            for x in range(s.twists):
                g[base + src * s.twists + x] = base + j * s.twists + (x + delta) % s.twists
        base += s.pieces * s.twists
    return tuple(g)


def distinct(d: Definition) -> bool:
    """Whether every piece is distinct and counts its orientation (positions are then
    group elements: :func:`element`)."""
    return not any(len(set(p.perm)) != len(p.perm) or WILD in p.twist for p in d.solved)


def between(d: Definition, a: Sequence[Part], b: Sequence[Part]) -> tuple[Part, ...]:
    """The position whose distance to solved is the distance from ``a`` to ``b``: with
    g_a, g_b their elements, the moves m with g_a m = g_b solve solved * g_b^-1 g_a.
    Every piece distinct (BadPosition otherwise: identical pieces make no group)."""
    if not distinct(d):
        raise BadPosition(f"{d.name}: a distance between positions needs distinct pieces")
    return position(d, _mul(_inv(element(d, b)), element(d, a)))


def why_not(d: Definition, turns: Sequence[Turn], parts: Sequence[Part]) -> str | None:
    """Why no sequence of the turns reaches the position from solved, in one line; None
    when it is reached, or when nothing here can tell (identical pieces or ``?``
    pass the checks of pieces, orientation sums and parities, then are searched)."""
    for check in (_wrong_pieces, _wrong_sum, _wrong_parity, _not_member):
        why = check(d, turns, parts)
        if why is not None:
            return why
    return None


def _wrong_pieces(d: Definition, turns: Sequence[Turn], parts: Sequence[Part]) -> str | None:
    for s, part, solved in zip(d.sets, parts, d.solved, strict=True):
        if sorted(part.perm) != sorted(solved.perm):
            return f"set {s.name}: the pieces are not the solved state's (each label as many times)"
    return None


def _wrong_sum(d: Definition, turns: Sequence[Turn], parts: Sequence[Part]) -> str | None:
    for i, (s, part, solved) in enumerate(zip(d.sets, parts, d.solved, strict=True)):
        if s.twists == 1 or WILD in solved.twist:
            continue
        if any(sum(t.parts[i].twist) % s.twists for t in turns):
            continue
        got, want = sum(part.twist) % s.twists, sum(solved.twist) % s.twists
        if got != want:
            return (
                f"set {s.name}: the orientations sum to {got} (mod {s.twists}), and every "
                f"move keeps the sum at {want}: a piece is twisted in place"
            )
    return None


def _wrong_parity(d: Definition, turns: Sequence[Turn], parts: Sequence[Part]) -> str | None:
    """The arrangements' parities (sets of distinct pieces) must be a sum of the
    moves' parities: else some sets together are in an arrangement no move makes."""
    sets = [i for i, p in enumerate(d.solved) if len(set(p.perm)) == len(p.perm)]
    if not sets:
        return None
    rows = [[parity(t.parts[i].perm) for i in sets] for t in turns]
    home = [{v: j for j, v in enumerate(d.solved[i].perm)} for i in sets]
    have = [parity([h[v] for v in parts[i].perm]) for i, h in zip(sets, home, strict=True)]
    witness = _outside_span(rows, have)
    if witness is None:
        return None
    names = [d.sets[i].name for i, w in zip(sets, witness, strict=True) if w]
    what = f"set {names[0]}: its pieces are" if len(names) == 1 else (
        f"sets {', '.join(names)}: their pieces are together")  # fmt: skip
    return f"{what} in an odd arrangement, and every move keeps it even: two pieces are swapped"


def _outside_span(rows: list[list[int]], x: list[int]) -> list[int] | None:
    """A vector w with w.row = 0 for every row and w.x = 1 (mod 2), if x is not a sum of
    rows; None when it is."""
    basis: list[list[int]] = []  # reduced: each row's pivot is 0 in every other row
    for r in rows:
        for b in basis:
            if r[b.index(1)]:
                r = _xor(r, b)
        if any(r):
            p = r.index(1)
            basis = [_xor(b, r) if b[p] else b for b in basis] + [r]
    for w in _complement(basis, len(x)):
        if sum(a * b for a, b in zip(w, x, strict=True)) % 2:
            return w
    return None


def _xor(a: list[int], b: list[int]) -> list[int]:
    return [u ^ v for u, v in zip(a, b, strict=True)]


def _complement(basis: list[list[int]], k: int) -> list[list[int]]:
    """A basis of the vectors orthogonal to every vector of ``basis`` (reduced: each
    has a pivot no other has)."""
    pivots = [b.index(1) for b in basis]
    out = []
    for f in range(k):
        if f in pivots:
            continue
        w = [0] * k
        w[f] = 1
        for b, p in zip(basis, pivots, strict=True):
            w[p] = b[f]
        out.append(w)
    return out


def _not_member(d: Definition, turns: Sequence[Turn], parts: Sequence[Part]) -> str | None:
    """Sift the position (distinct pieces, no ``?``, no Illegal lines: else None)."""
    if d.illegal or not distinct(d):
        return None
    c = _chain_of(d, turns)
    if c is None or c.contains(element(d, parts)):
        return None
    return "no sequence of moves reaches it (it passes the checks of orientation sums and parities)"


# -- symmetries: point permutations whose conjugation maps every move to a move ------------
#: Partial assignments the search for symmetries may try (the 3x3x3 cube takes a few
#: thousand); past it a definition is said to have none but the identity.
MAX_SYMMETRY_STEPS = 200_000


def symmetries(d: Definition, turns: Sequence[Turn]) -> list[Perm]:
    """The symmetries of the puzzle, one for each distinct conjugation: permutations s of
    the points that keep each position's orientations in cyclic order (or reverse
    it: a mirror image) and map every move to a turn, ``s^-1 m s``. Conjugating a
    position by s keeps its distance to solved (turns go to turns), so a pattern
    table looked up on the conjugate gives a bound too. The identity first; only it
    when pieces repeat or are ``?``, or the search passes its bounds."""
    ident = tuple(range(points(d.sets)))
    if not distinct(d) or points(d.sets) > MAX_POINTS or d.illegal:
        return [ident]
    finder = _Symmetries(d, turns)
    try:
        finder.search()
    except _TooLong:
        return [ident]
    seen: dict[tuple[int, ...], Perm] = {}
    for s in sorted(finder.found, key=lambda s: s != ident):
        action = tuple(finder.turn_of[_mul(_mul(_inv(s), b), s)] for b in finder.bases)
        seen.setdefault(action, s)
    return list(seen.values())


class _Symmetries:
    """The search: the images of the base moves chosen one by one, the permutation
    followed from a point's image along the generators (s(g(p)) = g'(s(p)), g' the
    image of g), each orbit's first point tried at each free image."""

    def __init__(self, d: Definition, turns: Sequence[Turn]) -> None:
        self.turns = [as_permutation(d.sets, t.parts) for t in turns]
        self.turn_of = {t: i for i, t in enumerate(self.turns)}
        bases = {t.base for t in turns}
        self.bases = [as_permutation(d.sets, m.parts) for m in d.moves if m.name in bases]
        self.twist = _twist_by_one(d.sets)
        self.gens = [*self.bases, self.twist]
        self.n = len(self.twist)
        self.orbits = _orbits(self.gens, self.n)
        self.found: list[Perm] = []
        self.steps = 0

    def search(self) -> None:
        back = _inv(self.twist)
        for ends in {self.twist: None, back: None}:  # a mirror image reverses orientations
            first = self.orbits[0][0]
            for y in self.orbits[0]:
                s, sinv = [-1] * self.n, [-1] * self.n
                s[first], sinv[y] = y, first
                self.choose(0, s, sinv, [None] * len(self.bases) + [ends])

    def choose(self, k: int, s: list[int], sinv: list[int], images: list[Perm | None]) -> None:
        self.steps += 1
        if self.steps > MAX_SYMMETRY_STEPS:
            raise _TooLong
        if not self.follow(s, sinv, images):
            return
        if k < len(self.bases):
            for t in self.turns:
                self.choose(k + 1, list(s), list(sinv), [*images[:k], t, *images[k + 1 :]])
            return
        orbit = next((o for o in self.orbits if s[o[0]] < 0), None)
        if orbit is None:
            self.keep(tuple(s))
            return
        for y in range(self.n):
            if sinv[y] < 0:
                s2, sinv2 = list(s), list(sinv)
                s2[orbit[0]], sinv2[y] = y, orbit[0]
                self.choose(k, s2, sinv2, images)

    def follow(self, s: list[int], sinv: list[int], images: list[Perm | None]) -> bool:
        """Extend s along the generators whose images are chosen; False on a clash."""
        todo = [q for q in range(self.n) if s[q] >= 0]
        while todo:
            q = todo.pop()
            for g, h in zip(self.gens, images, strict=True):
                if h is None:
                    continue
                a, b = g[q], h[s[q]]
                if s[a] < 0 and sinv[b] < 0:
                    s[a], sinv[b] = b, a
                    todo.append(a)
                elif s[a] != b:
                    return False
        return True

    def keep(self, s: Perm) -> None:
        if all(_mul(_mul(_inv(s), b), s) in self.turn_of for b in self.bases):
            self.found.append(s)


def _twist_by_one(sets: tuple[PieceSet, ...]) -> Perm:
    """Every piece twisted once where it is (the points' orientation cycles)."""
    out, base = [], 0
    for s in sets:
        for j in range(s.pieces):
            out += [base + j * s.twists + (x + 1) % s.twists for x in range(s.twists)]
        base += s.pieces * s.twists
    return tuple(out)


def _orbits(gens: list[Perm], n: int) -> list[list[int]]:
    seen: set[int] = set()
    out = []
    for p in range(n):
        if p not in seen:
            orbit = list(_orbit(p, gens, tuple(range(n))))
            seen.update(orbit)
            out.append(orbit)
    return out
