"""The ``[twisty]`` family of a spec: a twsearch definition, whole or in part.

    name = "floppy_lr"
    title = "the floppy cube, two sides"
    [twisty]
    file = "floppy.tws"         # beside this spec; or definition = '''...''' (the text)
    moves = ["L", "R"]          # optional: these moves (with their powers) only
    quarter = true              # optional: each move and its inverse only (twsearch -q)
    [[twisty.pattern]]          # optional, repeated: a pattern table (patterns.py)
    label = "corners"           # the table floppy_lr-pdb-corners
    CORNER = "all"              # a set and the pieces kept distinct: "all", or their
    EDGE = [1, 2]               # positions in the solved state (from 1); a set not
                                # named is left out, the others' pieces are ?

``puzzledb build --spec FILE.tws [NAME]`` takes a definition file itself: the
table is NAME (else the file's name). Either way the spec kept in
``<data>/specs/`` (and recorded in each table's manifest) holds the definition's
text inline (:func:`keep`): a data folder never reads a file outside itself. A
definition too large to tabulate names its pattern tables, or gets them chosen
within the memory budget as it is kept (written into the kept spec).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pipeline.errors import BadSpec
from pipeline.puzzles.spec.base import Problem, Spec
from pipeline.puzzles.twisty import patterns as pdb
from pipeline.puzzles.twisty import tws
from pipeline.puzzles.twisty.abstract import Pattern
from pipeline.puzzles.twisty.board import TwistyPuzzle, states
from pipeline.storage import files
from pipeline.words import figures

#: The tables `build --spec` builds: the definition's.
TABLES = ("",)
KEYS = {"definition": False, "file": False, "moves": False, "quarter": False, "pattern": False}
#: The definition files ``build --spec`` takes as they are.
SUFFIX = ".tws"


def load(spec: Spec) -> TwistyPuzzle:
    t = spec.table
    if "file" in t:
        raise Problem("twisty.file", "a kept spec holds its definition inline (definition = ...)")
    text = t.get("definition")
    if not isinstance(text, str):
        raise Problem("twisty.definition", "missing: the definition's text, or file = its name")
    try:
        d = tws.parse(text, "definition")
    except BadSpec as e:
        raise Problem("twisty.definition", str(e).removeprefix("definition: ")) from None
    moves = _moves(t.get("moves"), d)
    quarter = t.get("quarter", False)
    if not isinstance(quarter, bool):
        raise Problem("twisty.quarter", "true or false")
    chosen = _patterns(t.get("pattern"), d, moves, quarter)
    return TwistyPuzzle(
        d, spec.name, where=spec.where, title=spec.title, moves=moves, quarter=quarter,
        patterns=chosen,
    )  # fmt: skip


def _patterns(
    value: object, d: tws.Definition, moves: list[str] | None, quarter: bool
) -> tuple[Pattern, ...]:
    """The pattern tables a spec names (``[[twisty.pattern]]``), each checked."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value or not all(isinstance(x, dict) for x in value):
        raise Problem("twisty.pattern", "tables [[twisty.pattern]], each a label and its sets")
    out: list[Pattern] = []
    for k, table in enumerate(value):
        made = _pattern(f"twisty.pattern[{k}]", table, d)
        if any(p.label == made.label for p in out):
            raise Problem(f"twisty.pattern[{k}].label", f"two patterns labelled {made.label}")
        states = pdb.size(d, made, moves, quarter)
        if states >= 1 << 64:
            raise Problem(
                f"twisty.pattern[{k}]",
                f"its table would have {figures(states)} states, past 2^64: keep fewer pieces",
            )
        out.append(made)
    return tuple(out)


def _pattern(key: str, table: Mapping[str, object], d: tws.Definition) -> Pattern:
    label = table.get("label")
    if not isinstance(label, str) or not pdb.LABEL.fullmatch(label):
        raise Problem(f"{key}.label", "a-z, 0-9 and _ (up to 32), the table <name>-pdb-<label>")
    names = [s.name for s in d.sets]
    for x in table:
        if x != "label" and x not in names:
            raise Problem(f"{key}.{x}", f"not a set of the definition (sets: {' '.join(names)})")
    keep = []
    for s in d.sets:
        if s.name in table:
            keep.append((s.name, _positions(f"{key}.{s.name}", table[s.name], s.pieces)))
    if not keep:
        raise Problem(key, "names no set: give a set's pieces kept distinct")
    return Pattern(label, tuple(keep))


def _positions(key: str, value: object, pieces: int) -> tuple[int, ...]:
    if value == "all":
        return tuple(range(pieces))
    if (
        not isinstance(value, list)
        or not value
        or len(set(map(str, value))) != len(value)
        or not all(type(x) is int and 1 <= x <= pieces for x in value)
    ):
        raise Problem(key, f'"all", or positions from 1 to {pieces}, each once')
    return tuple(sorted(x - 1 for x in value))


def _moves(value: object, d: tws.Definition) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(m, str) for m in value):
        raise Problem("twisty.moves", "a list of the definition's move names")
    names = [m.name for m in d.moves]
    for m in value:
        if m not in names:
            raise Problem("twisty.moves", f"{m[:64]!r} is not a move of it ({' '.join(names)})")
    return value


def own(path: Path, text: str, name: str, memory: int | None = None) -> Spec:
    """The spec of a definition file the user named, as table ``name``: its kept text
    a TOML spec holding the definition inline (written, never read back). A definition
    too large to tabulate gets its pattern tables chosen within ``memory`` bytes."""
    d = _definition(text, str(path))
    options = _chosen(d, {}, memory, str(path))
    return _spec(name, f"{d.name or path.stem} (twsearch definition)", text, options, str(path))


def keep(path: Path, spec: Spec, memory: int | None = None) -> Spec:
    """The spec kept for a TOML spec naming its definition by ``file`` (a ``.tws`` file
    in the spec's own folder), the definition read from there and held inline; a spec
    already inline is kept as written. A definition too large to tabulate whose spec
    names no pattern tables gets them chosen within ``memory`` bytes (patterns.py),
    written in."""
    try:
        return _kept(path, spec, memory)
    except Problem as e:
        raise BadSpec(f"{path}: {e.key}: {e.message}") from None


def _kept(path: Path, spec: Spec, memory: int | None) -> Spec:
    t = spec.table
    if "file" not in t:
        text = t.get("definition")
        if "pattern" in t or not isinstance(text, str):
            return spec
        d = _definition(text, str(path))
        options: dict[str, object] = {k: t[k] for k in ("moves", "quarter") if k in t}
        chosen = _chosen(d, options, memory, str(path))
        if "pattern" not in chosen:
            return spec
        return _spec(spec.name, spec.title, text, chosen, str(path))
    if "definition" in t:
        raise BadSpec(f"{path}: twisty: give file or definition, not both")
    source = _beside(path, t["file"])
    try:
        raw = files.read_bytes(source, tws.MAX_BYTES, follow=True)
    except OSError as e:
        raise BadSpec(f"{path}: twisty.file: cannot read {source}: {e.strerror or e}") from None
    definition = _ascii(raw, str(source))
    d = _definition(definition, str(source))
    options = {k: t[k] for k in ("moves", "quarter", "pattern") if k in t}
    if "pattern" in options:  # kept as checked: each set's pieces as pattern.describe says
        moves, quarter = _moves(options.get("moves"), d), options.get("quarter", False) is True
        options["pattern"] = _written(d, _patterns(options["pattern"], d, moves, quarter))
    chosen = _chosen(d, options, memory, str(path))
    return _spec(spec.name, spec.title, definition, chosen, str(path))


def _chosen(
    d: tws.Definition, options: dict[str, object], memory: int | None, where: str
) -> dict[str, object]:
    """The options with pattern tables chosen within ``memory`` bytes when the definition
    is too large to tabulate and the spec names none."""
    if "pattern" in options:
        return options
    moves, quarter = _moves(options.get("moves"), d), options.get("quarter", False) is True
    if states(d, moves, quarter) < 1 << 64:  # tabulated: no pattern needed
        return options
    budget = pdb.DEFAULT_MEMORY if memory is None else memory
    return {**options, "pattern": _written(d, pdb.choose(d, moves, quarter, budget, where))}


def _written(d: tws.Definition, chosen: tuple[Pattern, ...]) -> list[dict[str, str | list[int]]]:
    """Patterns as a spec's tables hold them: a label, each set kept ``"all"`` or its
    positions from 1."""
    return [{"label": p.label, **p.describe(d)} for p in chosen]


def _beside(path: Path, name: object) -> Path:
    """The file ``name`` in the spec's own folder: a plain file name ending .tws (no
    folder, no ``..``), never a path elsewhere."""
    if (
        not isinstance(name, str)
        or not name.endswith(SUFFIX)
        or name in ("", ".", "..")
        or "/" in name
        or "\\" in name
        or "\0" in name
    ):
        raise BadSpec(
            f"{path}: twisty.file: the name of a {SUFFIX} file in the spec's own folder "
            f"(no folder in it), not {str(name)[:64]!r}"
        )
    return path.parent / name


def _ascii(raw: bytes, where: str) -> str:
    tws.parse_bytes(raw, where)  # size, ASCII and the format, one line if wrong
    return raw.decode("ascii")


def _definition(text: str, where: str) -> tws.Definition:
    if not text.isascii():
        raise BadSpec(f"{where}: not ASCII text")
    return tws.parse(text, where)


def _spec(
    name: str, title: str, definition: str, options: Mapping[str, object], where: str
) -> Spec:
    """The spec of a definition: its table, and its text the TOML kept for it (the
    definition a multi-line string)."""
    body = definition.replace("\r\n", "\n")
    return Spec(
        name,
        title,
        "twisty",
        {**options, "definition": body},
        _toml(name, title, body, options),
        where,
    )


def _toml(name: str, title: str, body: str, options: Mapping[str, object]) -> str:
    """A spec's TOML text, the definition a multi-line string (tests/test_spec.py holds
    that it reads back as written). ``options``: the moves as checked (a list of
    names), the patterns as :func:`_written` gives them."""
    lines = [
        "# Kept by puzzledb build --spec: the twsearch definition is held whole below.",
        f"name = {_string(name)}",
        f"title = {_string(title)}",
        "",
        "[twisty]",
    ]
    moves = options.get("moves")
    if isinstance(moves, list):
        lines.append("moves = [" + ", ".join(_string(str(m)) for m in moves) + "]")
    if "quarter" in options:
        lines.append(f"quarter = {'true' if options['quarter'] is True else 'false'}")
    lines.append(f'definition = """\n{_escape(body)}"""')
    tables = options.get("pattern")
    for table in tables if isinstance(tables, list) else ():
        lines += ["", "[[twisty.pattern]]"]
        for key, value in table.items():
            lines.append(f"{_string(key)} = {_string(value) if isinstance(value, str) else value}")
    return "\n".join(lines) + "\n"


def _string(text: str) -> str:
    return '"' + _escape(text.replace("\n", " ")) + '"'


def _escape(text: str) -> str:
    """A TOML basic string's body: backslash and quote escaped, control characters
    other than newline and tab as ``\\uXXXX`` (parse.py then refuses them: one line)."""
    out = []
    for c in text:
        if c in '\\"':
            out.append("\\" + c)
        elif (ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    return "".join(out)
