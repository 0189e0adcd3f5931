"""The twsearch (ksolve) definition format, ``.tws``, read strictly into frozen data.

A definition names sets of pieces (``Set NAME pieces orientations``), the
solved state (``Solved`` or ``StartState`` ... ``End``), and moves (``Move
NAME`` ... ``End``: each set's permutation and orientation change; a set left
out does not move). ``MoveSequence NAME m1 m2 ...`` defines a move as the
product of others, ``Illegal SET POSITION LABEL ...`` forbids positions
that hold a label there (Square-1's slices), ``Name`` names the puzzle.
Every other first word is refused with its line (docs/SPECS.md).

The meaning is twsearch's (its ``readksolve.cpp``, commit 0a8bfb0), held in
one convention here: a position gives, for each set, the label of the piece
at each position (``perm``, numbered as the file writes them, from 1) and
its orientation (``twist``; :data:`WILD` for ``?``: orientation ignored); a
move gives the position each position's piece comes from (``perm``, from 0)
and the twist added to the piece that arrives (``twist``). Applying move m
to position s: ``perm[j] = s.perm[m.perm[j]]``, ``twist[j] = s.twist[m.perm[j]]
+ m.twist[j] (mod o)``. A ``Move`` block writes its orientation changes by
the piece's old position (ksolve's way) and is converted; a
``MoveTransformation`` block writes the new convention directly, with
positions from 0, as a ``StartState`` writes labels from 0.

Each move comes with its powers as twsearch counts them (:func:`powers`):
a move of order 4 named F gives the turns F, F2 and F', each one move.
Moves named like whole-puzzle rotations (``x``, ``y2``, ``Fv``) are kept
apart, as twsearch keeps them: they serve in sequences, they are not moves.

The file is untrusted: its size, every count, name and number is bounded,
and anything wrong is one :class:`~pipeline.errors.BadSpec` line naming the
file and the line.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import BadSpec

#: Bounds on an untrusted file (twsearch's own: 255 pieces, 127 orientations).
MAX_BYTES = 1 << 20
MAX_SETS = 64
MAX_PIECES = 255
MAX_TWISTS = 127
MAX_MOVES = 256
MAX_TURNS = 1024
MAX_ORDER = 4096
#: Piece entries (a position's label and twist) the moves with all their powers may hold
#: together while a file is read: 4M, 64 MB (a 7x7x7 cube's moves hold about 24,000).
MAX_KEPT = 1 << 22
MAX_NAME = 64
#: An orientation written ``?`` in a solved state: ignored for that piece.
WILD = -1
KEYWORDS = (
    "Name",
    "Set",
    "Solved",
    "StartState",
    "Move",
    "MoveTransformation",
    "MoveSequence",
    "Illegal",
)
_NAME = re.compile(r"[!-~]{1,64}")  # printable ASCII, no space
_NUMBER = re.compile(r"[0-9]{1,3}")
#: twsearch's whole-puzzle rotations (parsemoves.cpp isrotation): x y z (2 or '), or
#: capitals and _ then v.
_ROTATION = re.compile(r"[xyz][2']?|[A-Z_]+v")


@dataclass(frozen=True)
class PieceSet:
    """``Set NAME pieces orientations``."""

    name: str
    pieces: int
    twists: int


@dataclass(frozen=True)
class Part:
    """One set's rows: labels or source positions (``perm``) and orientations (``twist``)."""

    perm: tuple[int, ...]
    twist: tuple[int, ...]


@dataclass(frozen=True)
class MoveBlock:
    """A move (a ``Move`` block, a ``MoveSequence``, or one of their powers)."""

    name: str
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Turn:
    """One move of the search: ``base`` to the ``power`` (twsearch's signed count: -1 is ')."""

    name: str
    base: str
    power: int
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Illegal:
    """No position holds one of ``labels`` at ``position`` (from 0) of set ``set``."""

    set: int
    position: int
    labels: frozenset[int]


@dataclass(frozen=True)
class Definition:
    """A whole definition file, checked."""

    name: str
    sets: tuple[PieceSet, ...]
    #: Labels from 1 as the file writes them; twists, WILD for ``?``.
    solved: tuple[Part, ...]
    moves: tuple[MoveBlock, ...]
    rotations: tuple[MoveBlock, ...]
    turns: tuple[Turn, ...]
    illegal: tuple[Illegal, ...]
    text: str


class LineProblem(Exception):
    """What is wrong at a line (0: the file as a whole)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def read(path: Path) -> Definition:
    """Parse a definition file (at most :data:`MAX_BYTES`)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise BadSpec(f"{path}: cannot read it ({e.strerror or e})") from None
    return parse_bytes(data, str(path))


def parse_bytes(data: bytes, where: str) -> Definition:
    if len(data) > MAX_BYTES:
        raise BadSpec(f"{where}: larger than {MAX_BYTES:,} bytes")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise BadSpec(f"{where}: line {line}: not ASCII text") from None
    return parse(text, where)


def parse(text: str, where: str = "<definition>") -> Definition:
    """A definition from its text; BadSpec (``where: line N: ...``) for anything wrong.
    A text is read once a process (the definition is frozen data)."""
    try:
        return _read(text)
    except LineProblem as p:
        at = f"line {p.line}: " if p.line else ""
        raise BadSpec(f"{where}: {at}{p.message}") from None


@functools.lru_cache(maxsize=32)
def _read(text: str) -> Definition:
    return _Reader(text).definition()


def parse_position(d: Definition, text: str) -> tuple[Part, ...]:
    """A position typed as a state block: optionally ``Scramble NAME`` first (labels from
    1; ``ScrambleState NAME`` or ``StartState NAME``: from 0), then each set's name and
    one or two lines of numbers, optionally ``End``; a set left out is as solved.
    LineProblem (line, message) when it is not one."""
    r = _Reader(text)
    r.sets = list(d.sets)
    if not r.lines:
        raise LineProblem(0, "an empty position")
    first, head = r.lines[0]
    zero_based = head[0] in ("ScrambleState", "StartState")
    if zero_based or head[0] == "Scramble":
        if len(head) > 2:
            raise LineProblem(first, f"{head[0]} takes at most a name")
        r.at = 1
    if r.lines[-1][1] != ["End"]:
        r.lines.append((r.lines[-1][0] + 1, ["End"]))
    parts = r._block(first, "s", zero_based, d.solved)
    if r.at != len(r.lines):
        raise LineProblem(r.lines[r.at][0], "text after End")
    return parts


def lines(text: str) -> list[tuple[int, list[str]]]:
    """(line number, words) of each line that is not blank or a ``#`` comment."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if words and not words[0].startswith("#"):
            out.append((n, words))
    return out


def name_of(word: str, n: int, what: str) -> str:
    if not _NAME.fullmatch(word):
        raise LineProblem(
            n, f"{what} {word[:MAX_NAME]!r} is not a name (1 to 64 printable characters)"
        )
    return word


def number(word: str, n: int, low: int, high: int, what: str) -> int:
    if not _NUMBER.fullmatch(word) or not low <= int(word) <= high:
        raise LineProblem(n, f"{what} {word[:12]!r} is not a number from {low} to {high}")
    return int(word)


def is_rotation(name: str) -> bool:
    return _ROTATION.fullmatch(name) is not None


class _Reader:
    """The file's lines read in order, as twsearch reads them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = lines(text)
        self.at = 0
        self.name = "Unnamed"
        self.sets: list[PieceSet] = []
        self.solved: tuple[Part, ...] | None = None
        self.blocks: list[tuple[int, MoveBlock]] = []
        self.sequences: list[tuple[int, str, list[str]]] = []
        self.illegal: list[tuple[int, list[str]]] = []

    def definition(self) -> Definition:
        while self.at < len(self.lines):
            n, words = self.lines[self.at]
            self.at += 1
            self._keyword(n, words)
        if not self.sets:
            raise LineProblem(0, "no Set line: a definition names its sets of pieces first")
        if self.solved is None:
            raise LineProblem(0, "no Solved (or StartState) block")
        return self._finish(self.solved)

    def _keyword(self, n: int, words: list[str]) -> None:
        key = words[0]
        if key not in KEYWORDS:
            raise LineProblem(
                n, f"unknown keyword {key[:MAX_NAME]!r} (known: {', '.join(KEYWORDS)})"
            )
        if key == "Name":
            self._order(n, key, not self.sets and self.solved is None and self.name == "Unnamed")
            self._count(n, words, 2)
            self.name = name_of(words[1], n, "puzzle name")
        elif key == "Set":
            self._order(n, key, self.solved is None)
            self._set(n, words)
        elif key in ("Solved", "StartState"):
            self._order(n, key, self.solved is None and bool(self.sets))
            self._count(n, words, 1)
            self.solved = self._position(n, key == "StartState")
        else:
            self._order(n, key, self.solved is not None)
            self._after_solved(n, key, words)

    def _after_solved(self, n: int, key: str, words: list[str]) -> None:
        if key == "Illegal":
            if len(words) < 4:
                raise LineProblem(n, "Illegal takes a set, a position and at least one label")
            self.illegal.append((n, words))
            return
        if len(self.blocks) + len(self.sequences) >= MAX_MOVES:
            raise LineProblem(n, f"more than {MAX_MOVES} moves")
        if key == "MoveSequence":
            if len(words) < 3:
                raise LineProblem(n, "MoveSequence takes a name and at least one move")
            self.sequences.append((n, name_of(words[1], n, "move name"), words[2:]))
            return
        self._count(n, words, 2)
        name = name_of(words[1], n, "move name")
        parts = self._block(n, "m", key == "MoveTransformation")
        self.blocks.append((n, MoveBlock(name, parts)))

    @staticmethod
    def _order(n: int, key: str, ok: bool) -> None:
        if not ok:
            raise LineProblem(
                n, f"{key} in the wrong place (the order: Name, Set lines, Solved, then moves)"
            )

    @staticmethod
    def _count(n: int, words: list[str], want: int) -> None:
        if len(words) != want:
            raise LineProblem(n, f"{words[0]} takes {want - 1} word(s), got {len(words) - 1}")

    def _set(self, n: int, words: list[str]) -> None:
        self._count(n, words, 4)
        name = name_of(words[1], n, "set name")
        if name[0].isdigit() or name in ("End", "?"):
            raise LineProblem(
                n, f"set name {name!r}: a set name starts with no digit and is not End"
            )
        if any(s.name == name for s in self.sets):
            raise LineProblem(n, f"set {name} is defined twice")
        if len(self.sets) == MAX_SETS:
            raise LineProblem(n, f"more than {MAX_SETS} sets")
        pieces = number(words[2], n, 1, MAX_PIECES, "the number of pieces")
        twists = number(words[3], n, 1, MAX_TWISTS, "the number of orientations")
        self.sets.append(PieceSet(name, pieces, twists))

    # -- blocks: a set name, then one or two lines of numbers, ..., End ----------
    def _block(
        self, start: int, kind: str, zero_based: bool, default: tuple[Part, ...] | None = None
    ) -> tuple[Part, ...]:
        """A block's parts, one a set (a set not written: ``default``'s, else solved
        (pieces 1..n) or not moved)."""
        rows: dict[int, list[tuple[int, list[str]]]] = {}
        current = None
        while True:
            if self.at == len(self.lines):
                raise LineProblem(start, "the block has no End")
            n, words = self.lines[self.at]
            self.at += 1
            if words[0] == "End":
                self._count(n, words, 1)
                break
            if words[0][0].isdigit() or words[0] == "?":
                if current is None or len(rows[current]) == 3:
                    raise LineProblem(n, "a line of numbers where a set name was expected")
                rows[current].append((n, words))
                continue
            self._count(n, words, 1)
            current = self._set_index(n, words[0])
            if current in rows:
                raise LineProblem(n, f"set {words[0]} is written twice in the block")
            rows[current] = [(n, words)]
        for got in rows.values():
            if len(got) == 1:
                raise LineProblem(got[0][0], f"set {got[0][1][0]} has no numbers")
        return tuple(
            default[i] if default is not None and i not in rows
            else self._part(i, rows.get(i), kind, zero_based)
            for i in range(len(self.sets))
        )  # fmt: skip

    def _set_index(self, n: int, word: str) -> int:
        for i, s in enumerate(self.sets):
            if s.name == word:
                return i
        raise LineProblem(n, f"{word[:MAX_NAME]!r} is not a set (sets: {self._set_names()})")

    def _set_names(self) -> str:
        names = [s.name for s in self.sets]
        return ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")

    def _part(
        self, i: int, rows: list[tuple[int, list[str]]] | None, kind: str, zero_based: bool
    ) -> Part:
        s = self.sets[i]
        if rows is None:
            return Part(
                tuple(range(int(kind != "m"), s.pieces + int(kind != "m"))), (0,) * s.pieces
            )
        for n, words in rows[1:]:
            if len(words) != s.pieces:
                raise LineProblem(
                    n, f"set {s.name} has {s.pieces} pieces, the line has {len(words)}"
                )
        (n, first), *rest = rows[1:]
        low = 0 if zero_based else 1
        perm = tuple(number(w, n, low, MAX_PIECES - 1 + low, "a piece") + 1 - low for w in first)
        twist = self._twists(s, rest[0] if rest else None, kind == "s")
        if kind == "m":
            return _move_part(s, perm, twist, zero_based, n)
        return Part(perm, twist)

    @staticmethod
    def _twists(s: PieceSet, row: tuple[int, list[str]] | None, wild: bool) -> tuple[int, ...]:
        if row is None:
            return (0,) * s.pieces
        n, words = row
        out = []
        for w in words:
            if w == "?" and wild:
                out.append(WILD if s.twists > 1 else 0)
            else:
                out.append(number(w, n, 0, s.twists - 1, f"set {s.name}: an orientation"))
        return tuple(out)

    def _position(self, start: int, zero_based: bool) -> tuple[Part, ...]:
        parts = self._block(start, "s", zero_based)
        for s, part in zip(self.sets, parts, strict=True):
            _check_wild(s, part, start)
        return parts

    def _finish(self, solved: tuple[Part, ...]) -> Definition:
        if not self.blocks and not self.sequences:
            raise LineProblem(0, "no moves: a definition has at least one Move block")
        moves: list[MoveBlock] = []
        rotations: list[MoveBlock] = []
        names: set[str] = set()
        for n, m in self.blocks:
            if m.name in names:
                raise LineProblem(n, f"move {m.name} is defined twice")
            names.add(m.name)
            (rotations if is_rotation(m.name) else moves).append(m)
        moves += _sequences(self.sets, self.sequences, moves, rotations, names)
        turns = turns_of(self.sets, moves)
        illegal = tuple(_illegal(self.sets, solved, n, w) for n, w in self.illegal)
        return Definition(
            self.name, tuple(self.sets), solved, tuple(moves), tuple(rotations), turns,
            illegal, self.text,
        )  # fmt: skip


def _move_part(
    s: PieceSet, perm: tuple[int, ...], twist: tuple[int, ...], new: bool, n: int
) -> Part:
    """A move's rows in this module's convention: sources from 0, the twist the arriving
    piece gets (a ``Move`` block writes it at the piece's old position)."""
    if sorted(perm) != list(range(1, s.pieces + 1)):
        low = 0 if new else 1
        raise LineProblem(
            n, f"set {s.name}: not a permutation (each of {low}..{s.pieces - 1 + low} once)"
        )
    src = tuple(p - 1 for p in perm)
    return Part(src, twist if new else tuple(twist[k] for k in src))


def _check_wild(s: PieceSet, part: Part, n: int) -> None:
    """Identical pieces are all ``?`` or none (twsearch's rule)."""
    for label in set(part.perm):
        kinds = {part.twist[j] == WILD for j, p in enumerate(part.perm) if p == label}
        if len(kinds) > 1:
            raise LineProblem(
                n, f"set {s.name}: pieces labelled {label} mix ? and set orientations"
            )


def compose(sets: tuple[PieceSet, ...] | list[PieceSet], a: tuple[Part, ...], b: tuple[Part, ...]):
    """Move a then move b, as one move (twsearch's ``mul``)."""
    out = []
    for s, x, y in zip(sets, a, b, strict=True):
        perm = tuple(x.perm[k] for k in y.perm)
        twist = tuple((x.twist[k] + t) % s.twists for k, t in zip(y.perm, y.twist, strict=True))
        out.append(Part(perm, twist))
    return tuple(out)


def identity(sets: tuple[PieceSet, ...] | list[PieceSet]) -> tuple[Part, ...]:
    return tuple(Part(tuple(range(s.pieces)), (0,) * s.pieces) for s in sets)


def powers(sets: tuple[PieceSet, ...] | list[PieceSet], move: MoveBlock) -> list[Turn]:
    """A move's powers m, m^2, ... up to its order, named as twsearch names them:
    power k is ``k - order`` when that is nearer 0, ``name`` for 1, ``name'`` for -1,
    ``name2'`` for -2 (twsearch's ``expandonemove``)."""
    one = identity(sets)
    got = [move.parts]
    pieces = sum(s.pieces for s in sets)
    while True:
        nxt = compose(sets, got[-1], move.parts)
        if nxt == one:
            break
        if len(got) == MAX_ORDER:
            raise LineProblem(0, f"move {move.name} has an order over {MAX_ORDER}")
        if (len(got) + 1) * pieces > MAX_KEPT:
            raise LineProblem(0, _too_many(f"move {move.name}'s powers"))
        got.append(nxt)
    order = len(got) + 1
    out = []
    for k, parts in enumerate(got, 1):
        tw = k - order if order - k < k else k
        name = move.name + ("" if abs(tw) == 1 else str(abs(tw))) + ("'" if tw < 0 else "")
        out.append(Turn(name, move.name, tw, parts))
    return out


def turns_of(
    sets: tuple[PieceSet, ...] | list[PieceSet], moves: list[MoveBlock]
) -> tuple[Turn, ...]:
    """Every move with its powers (:func:`powers`), names checked to be unique."""
    out: list[Turn] = []
    seen: set[str] = set()
    for m in moves:
        for t in powers(sets, m):
            if t.name in seen:
                raise LineProblem(0, f"two moves are named {t.name} (a move and another's power)")
            seen.add(t.name)
            out.append(t)
            if len(out) > MAX_TURNS:
                raise LineProblem(0, f"more than {MAX_TURNS} moves with their powers")
    return tuple(out)


def _sequences(
    sets: list[PieceSet],
    pending: list[tuple[int, str, list[str]]],
    moves: list[MoveBlock],
    rotations: list[MoveBlock],
    names: set[str],
) -> list[MoveBlock]:
    """The MoveSequence moves, each the product of moves, powers or rotations named
    before or after it (resolved in rounds, as twsearch does)."""
    known: dict[str, tuple[Part, ...]] = {}
    pieces = sum(s.pieces for s in sets)

    def keep(made: list[Turn]) -> None:
        known.update({t.name: t.parts for t in made})
        if len(known) * pieces > MAX_KEPT:
            raise LineProblem(0, _too_many("the moves with their powers"))

    for m in moves + rotations:
        keep(powers(sets, m))
    out: list[MoveBlock] = []
    while pending:
        left = []
        for n, name, words in pending:
            if name in names:
                raise LineProblem(n, f"move {name} is defined twice")
            if all(w in known for w in words):
                parts = identity(sets)
                for w in words:
                    parts = compose(sets, parts, known[w])
                move = MoveBlock(name, parts)
                (rotations if is_rotation(name) else out).append(move)
                keep(powers(sets, move))
                names.add(name)
            else:
                left.append((n, name, words))
        if len(left) == len(pending):
            n, name, words = left[0]
            bad = next(w for w in words if w not in known)
            raise LineProblem(n, f"MoveSequence {name}: {bad[:MAX_NAME]!r} is no move")
        pending = left
    return out


def _too_many(what: str) -> str:
    return (
        f"{what} hold more than {MAX_KEPT:,} piece positions (pieces times moves and "
        "powers): a definition this large is refused"
    )


def _illegal(sets: list[PieceSet], solved: tuple[Part, ...], n: int, words: list[str]) -> Illegal:
    i = next((k for k, s in enumerate(sets) if s.name == words[1]), None)
    if i is None:
        raise LineProblem(n, f"Illegal: {words[1][:MAX_NAME]!r} is not a set")
    s = sets[i]
    position = number(words[2], n, 1, s.pieces, f"Illegal: a position of {s.name}")
    labels = sorted(set(solved[i].perm))
    if labels != list(range(1, len(labels) + 1)):
        raise LineProblem(n, f"Illegal: the labels of set {s.name} skip a number")
    bad = [number(w, n, 1, len(labels), f"Illegal: a label of {s.name}") for w in words[3:]]
    if solved[i].perm[position - 1] in bad:
        raise LineProblem(
            n, f"Illegal: the solved state holds a label it forbids at {s.name} {position}"
        )
    return Illegal(i, position - 1, frozenset(bad))


def text_of(d: Definition) -> str:
    """A definition written in the format (``Move`` blocks, twists at the old position):
    :func:`parse` reads it back to ``d`` (its text aside)."""
    out = [f"Name {d.name}", ""]
    out += [f"Set {s.name} {s.pieces} {s.twists}" for s in d.sets]
    out += ["", "Solved"]
    for s, part in zip(d.sets, d.solved, strict=True):
        out += [s.name, " ".join(map(str, part.perm))]
        if s.twists > 1:
            out.append(" ".join("?" if t == WILD else str(t) for t in part.twist))
    out.append("End")
    for m in (*d.moves, *d.rotations):
        out += ["", f"Move {m.name}"]
        for s, part in zip(d.sets, m.parts, strict=True):
            if part.perm == tuple(range(s.pieces)) and not any(part.twist):
                continue
            old = [0] * s.pieces  # a Move block writes the twist at the piece's old position
            for j, src in enumerate(part.perm):
                old[src] = part.twist[j]
            out += [s.name, " ".join(str(src + 1) for src in part.perm)]
            if s.twists > 1:
                out.append(" ".join(map(str, old)))
        out.append("End")
    for rule in d.illegal:
        labels = " ".join(map(str, sorted(rule.labels)))
        out.append(f"Illegal {d.sets[rule.set].name} {rule.position + 1} {labels}")
    return "\n".join(out) + "\n"
