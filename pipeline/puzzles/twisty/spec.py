"""The ``[twisty]`` family of a spec: a twsearch definition, whole or in part.

    name = "floppy_lr"
    title = "the floppy cube, two sides"
    [twisty]
    file = "floppy.tws"         # beside this spec; or definition = '''...''' (the text)
    moves = ["L", "R"]          # optional: these moves (with their powers) only
    quarter = true              # optional: each move and its inverse only (twsearch -q)

``puzzledb build --spec FILE.tws [NAME]`` takes a definition file itself: the
table is NAME (else the file's name). Either way the spec kept in
``<data>/specs/`` (and recorded in each table's manifest) holds the definition's
text inline (:func:`keep`): a data folder never reads a file outside itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.errors import BadSpec
from pipeline.puzzles.spec.base import Problem, Spec
from pipeline.puzzles.twisty import tws
from pipeline.puzzles.twisty.board import TwistyPuzzle
from pipeline.storage import files

#: The tables `build --spec` builds: the definition's.
TABLES = ("",)
KEYS = {"definition": False, "file": False, "moves": False, "quarter": False}
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
    return TwistyPuzzle(
        d, spec.name, where=spec.where, title=spec.title, moves=moves, quarter=quarter
    )


def _moves(value: Any, d: tws.Definition) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(m, str) for m in value):
        raise Problem("twisty.moves", "a list of the definition's move names")
    names = [m.name for m in d.moves]
    for m in value:
        if m not in names:
            raise Problem("twisty.moves", f"{m[:64]!r} is not a move of it ({' '.join(names)})")
    return value


def own(path: Path, text: str, name: str) -> Spec:
    """The spec of a definition file the user named, as table ``name``: its kept text
    a TOML spec holding the definition inline (written, never read back)."""
    d = _definition(text, str(path))
    return _spec(name, f"{d.name or path.stem} (twsearch definition)", text, {}, str(path))


def keep(path: Path, spec: Spec) -> Spec:
    """The spec kept for a TOML spec naming its definition by ``file`` (a ``.tws`` file
    in the spec's own folder), the definition read from there and held inline; a spec
    already inline is kept as written."""
    t = spec.table
    if "file" not in t:
        return spec
    if "definition" in t:
        raise BadSpec(f"{path}: twisty: give file or definition, not both")
    source = _beside(path, t["file"])
    try:
        raw = files.read_bytes(source, tws.MAX_BYTES, follow=True)
    except OSError as e:
        raise BadSpec(f"{path}: twisty.file: cannot read {source}: {e.strerror or e}") from None
    definition = _ascii(raw, str(source))
    options = {k: t[k] for k in ("moves", "quarter") if k in t}
    return _spec(spec.name, spec.title, definition, options, str(path))


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


def _spec(name: str, title: str, definition: str, options: dict[str, Any], where: str) -> Spec:
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


def _toml(name: str, title: str, body: str, options: dict[str, Any]) -> str:
    """A spec's TOML text, the definition a multi-line string (tests/test_spec.py holds
    that it reads back as written)."""
    lines = [
        "# Kept by puzzledb build --spec: the twsearch definition is held whole below.",
        f"name = {_string(name)}",
        f"title = {_string(title)}",
        "",
        "[twisty]",
    ]
    if "moves" in options:
        lines.append("moves = [" + ", ".join(_string(str(m)) for m in options["moves"]) + "]")
    if "quarter" in options:
        lines.append(f"quarter = {'true' if options['quarter'] is True else 'false'}")
    lines.append(f'definition = """\n{_escape(body)}"""')
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
