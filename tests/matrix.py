"""The matrix of table kinds that tests/test_matrix.py asks through every surface.

Generated from the registry, so that a kind added there is in the matrix without
editing a test: one table for each puzzle class and graph kind of the built-in
tables (its smallest; built to its first levels when it is large), each name
suffix a family declares (``Variants.examples``), a table from a typed root for
each family that has them, the build options (``--max-depth``, ``--paths``), and
every table of the example specs (TOML, and a family's own files: ``.tws``).
"""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import pipeline
from pipeline.puzzles import names
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.builtin import BUILTIN, FAMILIES

#: Positions a kind's table may have to be built whole here; a larger one is built
#: to depth PARTIAL (the surfaces must answer on a partial table too).
SMALL = 1_500_000
PARTIAL = 5
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "specs"
#: A puzzle solved by search (a definition past 64 bits: no table of its own), kept by
#: this spec, and its pattern tables (175,560 positions each: seconds to build), which
#: are ordinary kinds.
SEARCHED = Path(__file__).resolve().parent / "data" / "twisty" / "crossed.toml"
SEARCHED_NAME = "crossed"
SEARCHED_TABLES = ("crossed-pdb-cross", "crossed-pdb-b", "crossed-pdb-a")


@dataclass(frozen=True)
class Kind:
    """One table of the matrix and how it is built."""

    table: str
    why: str
    max_depth: int | None = None
    paths: bool = False
    #: Built from this typed position of board ``base`` (the table is ``<base>~<hash>``).
    root: str | None = None
    base: str | None = None

    def __str__(self) -> str:
        return self.table


def size(p: Puzzle) -> int:
    """What the table may hold: its known total, else its estimate, else the state space."""
    return p.expected_total or p.estimated_total or len(p.cells.symbols) ** p.cells.count


def tabulated() -> list[Puzzle]:
    """The built-in puzzles that have a table of their own (not ``cube3``: it is solved
    by search over its pattern tables, which are tables)."""
    return [p for p in BUILTIN if not p.search_tables()]


def _registry_kinds() -> list[Kind]:
    """The smallest built-in table of each puzzle class and graph kind."""
    groups: dict[tuple[type, str], list[Puzzle]] = {}
    for p in tabulated():
        groups.setdefault((type(p), str(p.graph)), []).append(p)
    out = []
    for (cls, graph), found in groups.items():
        p = min(found, key=lambda q: (size(q), q.name))
        deep = None if size(p) <= SMALL else PARTIAL
        out.append(Kind(p.name, f"{cls.__name__}, {graph}", max_depth=deep))
    return out


def _smallest_board(family_classes: tuple[type, ...]) -> Puzzle:
    plain = [p for p in BUILTIN if type(p) in family_classes]
    return min(plain, key=lambda q: (size(q), q.name))


def _rooted_kinds() -> list[Kind]:
    """A table from a typed root for each family that makes them: its smallest board
    from the position three moves from its root."""
    out = []
    for f in FAMILIES:
        if f.variants is None or f.variants.rooted is None:
            continue
        board = _smallest_board(f.classes)
        state = board.roots()[0]
        for _ in range(3):
            state = int(board.expand(np.array([state], np.uint64))[1][-1])
        text = board.text(state)
        made = names.rooted(board, text)
        out.append(Kind(made.name, f"{f.name}, typed root", root=text, base=board.name))
    return out


def kinds() -> list[Kind]:
    """Every kind of table, each once (the first reason kept)."""
    found = [
        *_registry_kinds(),
        *(Kind(n, f"{f.name}, name suffix") for f in FAMILIES for n in _examples(f)),
        *_rooted_kinds(),
        Kind("2x4", "a partial table (--max-depth)", max_depth=12),
        Kind("hex6", "path counts (--paths)", paths=True),
        *(Kind(t, f"spec {s.name}") for s in _spec_files() for t in _spec(s)),
        *(Kind(t, f"a pattern table of {SEARCHED_NAME} (solved by search)")
          for t in SEARCHED_TABLES),
    ]  # fmt: skip
    seen: dict[str, Kind] = {}
    for k in found:
        seen.setdefault(k.table, k)
    return list(seen.values())


def _examples(f: object) -> tuple[str, ...]:
    variants = getattr(f, "variants", None)
    return variants.examples if variants is not None else ()


def _spec_files() -> list[Path]:
    """The example specs: TOML files, and the files of a family's own (``.tws``)."""
    from pipeline.puzzles.spec import parse

    own = {f.suffix for f in parse.families().values() if f.suffix}
    return sorted(p for p in EXAMPLES.iterdir() if p.suffix in {".toml", *own})


def _spec(path: Path) -> list[str]:
    from pipeline.puzzles.spec import parse

    if path.suffix != ".toml":  # a family's own file: the table is named after it
        return [path.stem]
    spec = parse.read(path, follow=True)
    return [spec.name + suffix for suffix in parse.families()[spec.family].tables]


def build(folder: Path) -> None:
    """Every kind's table into ``folder``, then the catalog and the report."""
    db = pipeline.open(folder)
    for s in [*_spec_files(), SEARCHED]:
        db.add_spec(s)
    for k in kinds():
        if k.root is not None:
            db.build([k.base], root=k.root)
        else:
            db.build([k.table], max_depth=k.max_depth, paths=k.paths)


@dataclass(frozen=True)
class Ran:
    """What a command printed and how it exited."""

    code: int
    out: str
    err: str


def cli(*args: str, data: Path) -> Ran:
    """The ``puzzledb`` command run in this process (its real ``main``: a user error is
    one line and exit 1; anything else escapes as the traceback it would print)."""
    from pipeline.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    argv, sys.argv = sys.argv, ["puzzledb", *args, "--data", str(data)]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    finally:
        sys.argv = argv
    return Ran(code, out.getvalue(), err.getvalue())
