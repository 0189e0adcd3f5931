"""A data folder's built tables, read once, and again only when the folder changes.

Every answer starts here: which tables are built and sound, which are damaged
(with the one line that says why: query/catalog.py's scan, the catalog's own
reading of a folder), each table's puzzle and its look-up
:class:`~pipeline.storage.table.Table`. The explorer holds one :class:`Folder`
for as long as it serves; each request costs a few ``stat`` calls to learn
whether anything changed (a table built or removed, a manifest rewritten, a
spec kept), and the manifests are read and checked again only then.
"""

from __future__ import annotations

import os
from pathlib import Path

from pipeline import hints
from pipeline.errors import NotBuilt
from pipeline.puzzles import registry, trusted
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.spec.parse import SPECS
from pipeline.query import catalog
from pipeline.storage.format import MANIFEST
from pipeline.storage.manifest import Manifest
from pipeline.storage.table import Table

#: What a folder's state is known by: (name, inode, mtime in ns, size) of the folder,
#: its specs and each table's manifest.
Signature = tuple[tuple[str, int, int, int], ...]


def signature(data: Path) -> Signature:
    """The folder, its specs folder and every ``<table>/_manifest.json``, as ``stat`` sees
    them (without following links): equal signatures, unchanged manifests and specs."""
    out: list[tuple[str, int, int, int]] = []
    try:
        names = sorted(os.listdir(data))
    except OSError:
        return ()
    for name, path in [("", data), (SPECS, data / SPECS)] + [
        (n, data / n / MANIFEST) for n in names if not n.startswith(".")
    ]:
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        out.append((name, st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(out)


class Folder:
    """The tables of one data folder: their checked manifests, puzzles and readers."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self._seen: Signature | None = None
        self._found: dict[str, Manifest] = {}
        self._broken: dict[str, str] = {}
        self._tables: dict[str, Table] = {}
        self._puzzles: dict[str, Puzzle] = {}
        #: How many times the manifests were read (the explorer's bench counts them).
        self.reads = 0

    def refresh(self) -> None:
        """Read the manifests again when the folder changed since they were read."""
        now = signature(self.data)
        if now != self._seen:
            found, self._broken = catalog.scan(self.data)
            self._found = {m.table: m for m in found}
            self._tables, self._puzzles = {}, {}
            self._seen = now
            self.reads += 1

    def forget(self) -> None:
        """Drop what was read (after this process changed the folder)."""
        self._seen = None

    def built(self) -> list[str]:
        """The sound tables, by name."""
        self.refresh()
        return list(self._found)

    def manifests(self) -> list[Manifest]:
        """The sound tables' manifests (checked against the registry's puzzles and files)."""
        self.refresh()
        return list(self._found.values())

    def broken(self) -> dict[str, str]:
        """The damaged tables, each with the one line that says why and how to mend it."""
        self.refresh()
        return dict(self._broken)

    def is_built(self, name: str) -> bool:
        """Whether ``name`` is a sound table here."""
        return name in self.built()

    def has(self, name: str) -> bool:
        """Whether a table ``name`` is here, sound or refused (reading it then answers,
        or says in one line what is wrong with it)."""
        self.refresh()
        return name in self._found or name in self._broken

    def puzzle(self, name: str) -> Puzzle:
        """The puzzle of that name here (UnknownPuzzle names the near misses)."""
        self.refresh()
        if name not in self._puzzles:
            self._puzzles[name] = registry.get(name, self.data)
        return self._puzzles[name]

    def table(self, name: str) -> Table:
        """The table ``name``, opened for look-ups; NotBuilt names the command that
        builds it. A table the scan refused is opened too (verify names each of its
        problems): every read holds its file against the manifest, and a read it
        cannot answer soundly is CorruptTable, saying why and how to rebuild."""
        self.refresh()
        if name in self._tables:
            return self._tables[name]
        self.puzzle(name)
        self.require(name)
        if name not in self._found and name not in self._broken:
            raise NotBuilt(f"{name} is not built yet: run {hints.build(name, self.data)}")
        table = Table(self.data / name)
        trusted.puzzle_of(table.manifest, self.data)
        table.check_sizes()
        self._tables[name] = table
        return table

    def require(self, name: str | None = None) -> None:
        """NotBuilt when the data folder is missing: reading never creates it."""
        if not self.data.is_dir():
            what = "is not a folder" if self.data.exists() else "does not exist"
            raise NotBuilt(
                f"data folder {self.data.absolute()} {what}: nothing is built there "
                f"({hints.where_data()}; or build into it with "
                f"{hints.build(name or '--default', self.data)})"
            )
