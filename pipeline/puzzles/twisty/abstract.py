"""Abstractions of a twisty definition: the puzzles its pattern tables are made of.

A :class:`Pattern` says, for each set it names, which pieces stay distinct (by
their position in the solved state); the set's other pieces become one
identical label whose orientation is ``?`` (ignored), and a set it does not
name is left out (removed from the sets, the solved state, every move and
every ``Illegal`` line). :func:`abstract` makes that definition, a
:class:`~pipeline.puzzles.twisty.tws.Definition` like any file's (never
written and read back), and :func:`project` maps a position of the whole
definition to the abstraction's. Every move of the definition is a move (or
no move) of the abstraction, so a position's depth in the abstraction's table
is a lower bound of its distance to solved: a heuristic for the search.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pipeline.errors import BadSpec
from pipeline.puzzles.twisty import tws
from pipeline.puzzles.twisty.tws import WILD, Definition, Illegal, MoveBlock, Part, PieceSet


@dataclass(frozen=True)
class Pattern:
    """A pattern table's label and, for each set it keeps (in the definition's order),
    the positions (from 0) whose solved pieces stay distinct."""

    label: str
    keep: tuple[tuple[str, tuple[int, ...]], ...]

    def positions(self, name: str) -> tuple[int, ...] | None:
        """The positions set ``name`` keeps distinct (None: the set is left out)."""
        return dict(self.keep).get(name)

    def describe(self, d: Definition) -> dict[str, str | list[int]]:
        """The pattern as a manifest records it: each set kept, ``"all"`` or its positions
        from 1 (as the file numbers them)."""
        out: dict[str, str | list[int]] = {}
        for name, kept in self.keep:
            pieces = next(s.pieces for s in d.sets if s.name == name)
            out[name] = "all" if len(kept) == pieces else [j + 1 for j in kept]
        return out

    def text(self, d: Definition) -> str:
        """``CORNERS all; EDGES 1 2 3``: each set kept and its pieces kept distinct."""
        return "; ".join(
            f"{k} {v if isinstance(v, str) else ' '.join(map(str, v))}"
            for k, v in self.describe(d).items()
        )


def check(d: Definition, pattern: Pattern, where: str) -> None:
    """BadSpec (one line) when the pattern names no set, a set the definition has not,
    a position out of range, or a set with no piece kept."""
    names = [s.name for s in d.sets]
    if not pattern.keep:
        raise BadSpec(f"{where}: pattern {pattern.label}: names no set")
    for name, kept in pattern.keep:
        if name not in names:
            raise BadSpec(f"{where}: pattern {pattern.label}: {name[:64]!r} is not a set")
        pieces = d.sets[names.index(name)].pieces
        if not kept or any(not 0 <= j < pieces for j in kept) or len(set(kept)) != len(kept):
            raise BadSpec(
                f"{where}: pattern {pattern.label}: set {name} keeps positions 1..{pieces}, "
                "each at most once, at least one"
            )


def abstract(d: Definition, pattern: Pattern) -> Definition:
    """The definition whose positions are ``d``'s as the pattern sees them."""
    kept = [i for i, s in enumerate(d.sets) if pattern.positions(s.name) is not None]
    relabel = [_relabel(d.sets[i], d.solved[i], pattern.positions(d.sets[i].name)) for i in kept]
    sets = tuple(d.sets[i] for i in kept)
    solved = tuple(_project(d.sets[i], d.solved[i], m) for i, m in zip(kept, relabel, strict=True))
    moves = tuple(MoveBlock(m.name, tuple(m.parts[i] for i in kept)) for m in d.moves)
    rotations = tuple(MoveBlock(m.name, tuple(m.parts[i] for i in kept)) for m in d.rotations)
    illegal = []
    for rule in d.illegal:
        if rule.set in kept:
            k = kept.index(rule.set)
            labels = frozenset(relabel[k][v] for v in rule.labels if v in relabel[k])
            if labels:
                illegal.append(Illegal(k, rule.position, labels))
    turns = tws.turns_of(sets, list(moves))
    made = Definition(d.name, sets, solved, moves, rotations, turns, tuple(illegal), "")
    return replace(made, text=tws.text_of(made))


def _relabel(s: PieceSet, solved: Part, positions: tuple[int, ...] | None) -> dict[int, int]:
    """The new label of each label kept distinct (numbered from 1 in the old order); the
    others take the label after them, the one identical ``?`` piece."""
    assert positions is not None
    if len(positions) == s.pieces:
        return {v: v for v in solved.perm}
    labels = sorted({solved.perm[j] for j in positions})
    return {v: k for k, v in enumerate(labels, 1)}


def _project(s: PieceSet, part: Part, relabel: dict[int, int]) -> Part:
    """A set's labels and twists as the pattern sees them: a piece not kept distinct is
    the identical label, its orientation ``?``."""
    rest = len(relabel) + 1
    perm = tuple(relabel.get(v, rest) for v in part.perm)
    ignored = WILD if s.twists > 1 else 0
    pairs = zip(part.perm, part.twist, strict=True)
    twist = tuple(t if v in relabel else ignored for v, t in pairs)
    return Part(perm, twist)


def project(d: Definition, pattern: Pattern, parts: tuple[Part, ...]) -> tuple[Part, ...]:
    """A position of ``d`` (its parts, labels as the file numbers them) as a position of
    the abstraction."""
    out = []
    for i, s in enumerate(d.sets):
        positions = pattern.positions(s.name)
        if positions is not None:
            out.append(_project(s, parts[i], _relabel(s, d.solved[i], positions)))
    return tuple(out)
