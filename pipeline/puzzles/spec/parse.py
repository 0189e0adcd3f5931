"""Puzzles defined in a file: a TOML spec, checked, kept in ``<data>/specs/``.

A spec names the puzzle and describes its board as data, in one table named
after its family::

    name = "plus"                 # a-z, 0-9, _: no built-in, catalog name or DuckDB keyword
    title = "plus-shaped sliding puzzle"
    [tiles]                       # or [pegs]: see tiles/spec.py, pegs/spec.py
    ...

``puzzledb build --spec FILE`` checks the spec, copies it to
``<data>/specs/<name>.toml`` and builds it; from then on every command finds
the name there (``list``, ``solve``, ``verify``, the name grammar of names.py:
``plus@3``, ``plus~<hash>``), and each table's manifest records the spec's
text, so a table stays readable and rebuildable without the file.

A family that can be defined in a spec declares its table (``Family.spec``:
puzzles/family.py): its keys (required ones marked ``True``), the suffixes of
the tables ``build --spec`` builds, and ``load(spec) -> Puzzle`` raising
:class:`Problem` (spec/base.py); a bad spec is one line naming the file, the
key path and, where known, the line.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

from pipeline import hints
from pipeline.errors import BadSpec, CannotWrite, LeftOut, PuzzleDBError
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.builtin import FAMILIES, REGISTRY
from pipeline.puzzles.family import SpecTable
from pipeline.puzzles.reserved import reserved
from pipeline.puzzles.spec.base import Problem, Spec
from pipeline.storage import files, manifest
from pipeline.words import printable

SPECS = "specs"
#: A spec's name (part of the data contract, docs/SPECS.md): a-z, 0-9 and _, not
#: starting with _; a name a family makes by its rule (a rectangle ``RxC``) is taken.
NAME = re.compile(r"[a-z0-9][a-z0-9_]*")
BAD_NAME = "a name is a-z, 0-9 and _, starting with a letter or a digit"
TOP_KEYS = {"name": True, "title": False}


def families() -> dict[str, SpecTable]:
    """The families a spec may define, by the name of their table."""
    return {f.spec.key: f.spec for f in FAMILIES if f.spec is not None}


#: Specs and their puzzles made in this process, by the spec's text (a spec is read,
#: and a definition parsed, once a process; a puzzle object is made once).
_SPECS: dict[str, Spec] = {}
_PUZZLES: dict[str, Puzzle] = {}
_KEPT = 64
_T = TypeVar("_T")


def _remember(made: dict[str, _T], text: str, value: _T) -> None:
    if len(made) >= _KEPT:
        made.pop(next(iter(made)))
    made[text] = value


def parse(text: str, where: str) -> Spec:
    """The spec in ``text`` (``where`` names the file in messages); BadSpec if it is bad."""
    known = _SPECS.get(text)
    if known is not None:
        return dataclasses.replace(known, where=where)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadSpec(f"{where}: not valid TOML: {e}") from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise BadSpec(f"{where}: not valid TOML: nested too deeply") from None
    try:
        _plain(doc, "")
        spec = _parse(doc, text, where)
    except Problem as e:
        raise _located(e, text, where) from None
    _remember(_SPECS, text, spec)
    return spec


def _plain(doc: object, path: str) -> None:
    """No key or string of the spec holds a character a terminal acts on (an escape
    sequence in a title reached the terminal raw from ``list``): Problem naming it."""
    if not isinstance(doc, dict | list):
        return
    for key, value in doc.items() if isinstance(doc, dict) else enumerate(doc):
        where = f"{path}.{key}" if path else str(key)
        for text in (key, value):
            if isinstance(text, str) and printable(text) != text:
                raise Problem(printable(where), f"holds a control character: {printable(text)!r}")
        _plain(value, where)


def _located(e: Problem, text: str, where: str) -> BadSpec:
    """The one line a problem becomes: the file, the key path and the line when found."""
    line = _line_of(text, e.key)
    at = f" (line {line})" if line else ""
    return BadSpec(f"{where}: {e.key}: {e.message}{at}")


def _parse(doc: dict[str, object], text: str, where: str) -> Spec:
    fams = families()
    fam = [k for k in doc if k in fams]
    if len(fam) != 1:
        raise Problem("(top)", f"give exactly one family table: [{'] or ['.join(fams)}]")
    check_keys(doc, {**TOP_KEYS, fam[0]: True}, "")
    name = doc["name"]
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise Problem("name", BAD_NAME)
    _no_clash(name)
    title = doc.get("title", name)
    if not isinstance(title, str):
        raise Problem("title", "must be a string")
    table = doc[fam[0]]
    if not isinstance(table, dict):
        raise Problem(fam[0], "must be a table")
    spec = Spec(name, title, fam[0], table, text, where)
    check_keys(spec.table, fams[spec.family].keys, spec.family)
    return spec


def _no_clash(name: str) -> None:
    why = reserved(name)
    if why is not None:
        raise Problem("name", f"{why}: choose another name")
    # A spec's name (a-z, 0-9, _) can only be a built-in's or a board a family names by
    # its rule (2x3 ... 4x4): every other name of the grammar holds @, ~ or -.
    if name in REGISTRY:
        raise Problem("name", f"{name!r} is a built-in puzzle: choose another name")
    ruled = [f for f in FAMILIES if f.variants and f.variants.board and f.variants.board(name)]
    if ruled:
        raise Problem("name", f"{name!r} names one of the {ruled[0].noun}: choose another name")


def check_keys(table: Mapping[str, object], keys: Mapping[str, bool], prefix: str) -> None:
    """Every key known, every required key there."""
    dot = prefix + "." if prefix else ""
    for k in table:
        if k not in keys:
            raise Problem(f"{dot}{k}", f"unknown key (known: {', '.join(keys)})")
    for k, required in keys.items():
        if required and k not in table:
            raise Problem(f"{dot}{k}", "missing")


def _line_of(text: str, key: str) -> int | None:
    """The line that sets the innermost named key of a path, found after its tables."""
    lines = text.splitlines()
    at = 0
    found = None
    for part in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", key):
        pattern = re.compile(rf"^\s*(\[\s*{part}\s*\]|{part}\s*=)")
        hit = next((i for i in range(at, len(lines)) if pattern.match(lines[i])), None)
        if hit is None:
            return found
        at, found = hit, hit + 1
    return found


def puzzle(spec: Spec) -> Puzzle:
    """The spec's own puzzle (its family's board under the spec's name), made once a
    process for a text."""
    known = _PUZZLES.get(spec.text)
    if known is not None:
        return known
    try:
        p = families()[spec.family].load(spec)
    except Problem as e:
        raise _located(e, spec.text, spec.where) from None
    p.spec = spec.text
    _remember(_PUZZLES, spec.text, p)
    return p


def read(path: Path, follow: bool = False) -> Spec:
    """The spec in ``path``: a regular file of at most SPEC_LIMIT bytes, never waited
    on; a symlink only with ``follow`` (the command line's, not a data folder's)."""
    return parse(_text(path, follow), str(path))


def _text(path: Path, follow: bool = False) -> str:
    try:
        return files.read_text(path, files.SPEC_LIMIT, follow)
    except (OSError, UnicodeDecodeError) as e:
        raise BadSpec(f"{path}: cannot read the spec: {e}") from None


def add(path: Path, data: Path, name: str | None = None, memory: int | None = None) -> list[str]:
    """Check the spec in ``path`` and copy it to ``<data>/specs/``; return its tables
    (its name; a peg board also ``<name>-winnable``: the family's ``TABLES``).

    ``path`` may also be a family's own file (a ``.tws`` definition: ``Family.spec``'s
    suffix), kept as the TOML spec its family makes of it, named ``name`` or after the
    file. A different spec already kept under the same name is replaced only while no
    table built from it remains (each table records the spec it was built from).
    ``memory`` (bytes) is handed to the family (twisty: the budget its pattern tables
    are chosen within).
    """
    spec = _spec_of_file(path, name, memory)
    puzzle(spec)  # the board itself is checked before anything is written
    target = data / SPECS / f"{spec.name}.toml"
    old = _text(target) if target.exists() else spec.text
    if old != spec.text:
        used = [n for n, text in _recorded(data) if text == old]
        if used:
            raise BadSpec(
                f"{path}: {target} holds another spec named {spec.name}, which tables "
                f"{', '.join(used)} were built from: rename yours, or remove the old one "
                f"with {hints.command(f'remove {spec.name}', data)}"
            )
    try:
        files.replace(files.folder(data, SPECS) / target.name, spec.text)  # never through a link
    except OSError as e:
        raise CannotWrite(f"cannot keep the spec in {target.parent}: {e.strerror or e}") from None
    return [spec.name + suffix for suffix in families()[spec.family].tables]


def _spec_of_file(path: Path, name: str | None, memory: int | None = None) -> Spec:
    """The spec kept for the file the user named: a TOML spec (as its family keeps it),
    or a family's own file made a spec under ``name`` (else the file's name), its text
    the TOML kept in the data folder."""
    own = [f for f in families().values() if f.suffix and path.suffix.lower() == f.suffix]
    if not own and path.suffix.lower() != ".toml":
        raise BadSpec(f"{path}: {_read_by_extension()}")
    text = _text(path, follow=True)
    if not own:
        if name is not None:
            raise BadSpec(f"{path}: a TOML spec is named inside it (name = ...): give no name")
        spec = parse(text, str(path))
        keep = families()[spec.family].keep
        return _made(keep(path, spec, memory)) if keep is not None else spec
    name = name if name is not None else re.sub(r"[^a-z0-9_]", "_", path.stem.lower())
    try:
        if not NAME.fullmatch(name):
            raise Problem("name", BAD_NAME)
        _no_clash(name)
    except Problem as e:
        raise BadSpec(
            f"{path}: table name {name!r}: {e.message} "
            f"(puzzledb build --spec {path.name} NAME names it)"
        ) from None
    made = own[0].own
    assert made is not None, "a family with files of its own reads them"
    return _made(made(path, text, name, memory))


def _made(spec: Spec) -> Spec:
    """A spec a family made (its TOML text written, never read back), known by its text
    from now on: reading the kept file again finds it."""
    _remember(_SPECS, spec.text, spec)
    return spec


def _read_by_extension() -> str:
    """What ``build --spec`` reads a file as, by its extension alone, so that a typo in
    one format is never reported as a line of another."""
    own = " or ".join(f.suffix for f in families().values() if f.suffix)
    return (
        f"a spec file is read by its extension: .toml (a TOML spec) or {own} (a twsearch "
        "definition); ksolve's .def files are in twsearch's format: rename one to .tws"
    )


def _recorded(data: Path) -> list[tuple[str, str]]:
    """(table, spec text) of every built table whose manifest records a spec."""
    out = []
    for m in sorted(data.glob("*/_manifest.json")):
        try:
            text = manifest.read(m.parent).puzzle.get("spec")
        except PuzzleDBError:
            continue
        if isinstance(text, str):
            out.append((m.parent.name, text))
    return out


def kept(data: Path) -> list[Spec]:
    """The specs kept in ``<data>/specs/``, by name. One that cannot be read (a FIFO,
    a link, too large, bad TOML, a bad board) is left out with a warning (LeftOut)
    rather than stop every command that lists the folder; ``remove NAME`` removes it."""
    out = []
    for p in _spec_files(data):
        try:
            out.append(read(p))
        except BadSpec as e:
            warnings.warn(LeftOut(f"{SPECS}/{p.name}", str(e), "the specs"), stacklevel=2)
    return out


def _spec_files(data: Path) -> list[Path]:
    """The ``*.toml`` entries of ``<data>/specs/`` when it is a real folder: a link there
    points out of the data folder, and is neither read nor removed through."""
    folder = data / SPECS
    if not files.is_folder(folder):
        if folder.is_symlink():
            why = f"{folder} is a symbolic link: specs are read only from a real folder"
            warnings.warn(LeftOut(SPECS, why, "the specs"), stacklevel=3)
        return []
    return sorted(folder.glob("*.toml"))


def kept_file(data: Path, name: str) -> str | None:
    """The file name of the spec ``name`` kept in ``<data>/specs/`` (readable or not),
    None when there is none (or ``specs`` is no real folder)."""
    if not NAME.fullmatch(name) or not files.is_folder(data / SPECS):
        return None
    return f"{name}.toml" if os.path.lexists(data / SPECS / f"{name}.toml") else None


def suffixes(data: Path, name: str) -> list[str]:
    """The suffixes of the tables spec ``name`` builds: its family's, or every
    family's when the kept file cannot be read (so ``remove`` takes them all)."""
    try:
        return list(families()[read(data / SPECS / f"{name}.toml").family].tables)
    except BadSpec:
        return sorted({x for fam in families().values() for x in fam.tables})


def board(name: str, data: Path) -> Puzzle | None:
    """The spec named ``name``: from ``<data>/specs/``, else from a manifest recording it."""
    if kept_file(data, name) is not None:  # never through a linked specs folder
        return puzzle(read(data / SPECS / f"{name}.toml"))
    for table, text in _recorded(data):
        spec = parse(text, f"{data / table}/_manifest.json")
        if spec.name == name:
            return puzzle(spec)
    return None
