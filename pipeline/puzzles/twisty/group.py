"""How many positions a definition reaches, when group theory says so without a search.

When every piece is distinct (no label repeats, no ``?``) and no ``Illegal``
line prunes moves, the positions reached from solved are exactly the
elements of the group the moves generate, acting on (position, orientation)
pairs. Its order comes from the Schreier-Sims algorithm (a base and strong
generating set; Holt's textbook form, orbits recomputed at each visit: plain,
and quick enough for the few hundred points a definition has). The build's
verify then checks the table's total against it, and a definition too large
for 64 bits says how many positions it has.
"""

from __future__ import annotations

from pipeline.puzzles.twisty.tws import Definition, Part, PieceSet

Perm = tuple[int, ...]
#: Points (positions times orientations) above which the order is not computed.
MAX_POINTS = 512
#: Schreier generators tried before giving up: the 3x3x3 cube tries 15,442 (1 s),
#: the kilominx 52,757 (4 s); the megaminx would take minutes.
MAX_TRIES = 60_000


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
    """The order of the group the permutations generate."""
    gens = [g for g in gens if any(x != y for x, y in enumerate(g))]
    if not gens:
        return 1
    chain = _Chain(len(gens[0]))
    for g in gens:
        chain.add(g)
    i = len(chain.base) - 1
    while i >= 0:
        back = chain.level(i)
        i = i - 1 if back is None else back
    total = 1
    for i in range(len(chain.base)):
        total *= len(chain.reps(i))
    return total


class _Chain:
    """A base, strong generators, and each level's orbit (kept until a generator joins)."""

    def __init__(self, n: int) -> None:
        self.ident: Perm = tuple(range(n))
        self.base: list[int] = []
        self.strong: list[Perm] = []
        self.cache: dict[int, tuple[list[Perm], dict[int, Perm]]] = {}
        self.tries = 0

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
            self.cache[i] = (gens, _orbit(self.base[i], gens, self.ident))
        return self.cache[i]

    def strip(self, h: Perm, start: int) -> tuple[Perm, int]:
        """h sifted through the levels from ``start``: (residue, the level it stopped at)."""
        for j in range(start, len(self.base)):
            reps = self.reps(j)
            x = h[self.base[j]]
            if x not in reps:
                return h, j
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
