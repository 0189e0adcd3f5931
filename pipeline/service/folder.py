"""A data folder's built tables, read once, and again only when the folder changes.

Every answer starts here: a name's puzzle, which tables are built and sound,
which are damaged (with the one line that says why: puzzles/trusted.py's scan),
each table's look-up :class:`~pipeline.storage.table.Table`. The explorer holds one :class:`Folder`
for as long as it serves; each request costs a few ``stat`` calls to learn
whether anything changed (a table built or removed, a manifest rewritten, a
spec kept), and the manifests are read and checked again only then.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pipeline import hints
from pipeline.errors import NotBuilt
from pipeline.puzzles import trusted
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.builtin import GROUPS
from pipeline.puzzles.registry import Registry
from pipeline.puzzles.spec.parse import SPECS
from pipeline.puzzles.trusted import Checked, Scan
from pipeline.storage import integrity
from pipeline.storage.format import MANIFEST
from pipeline.storage.manifest import Manifest
from pipeline.storage.table import Table

#: What a folder's state is known by: (name, inode, mtime in ns, size) of the folder,
#: its specs and each table's manifest.
Signature = tuple[tuple[str, int, int, int], ...]
#: What the level files of the sound tables are known by: (table, file, stamp) each.
Stamps = tuple[tuple[str, str, tuple[int, ...]], ...]


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
    """One data folder: the puzzles it knows and its tables, read once a snapshot.

    The one resolver: a name becomes its puzzle here (:meth:`puzzle`, through the
    folder's :class:`~pipeline.puzzles.registry.Registry`), once until the folder
    changes; everything below the API takes the puzzle objects it hands out. The
    tables' manifests are read and checked against those puzzles once a snapshot too
    (:meth:`tables`: what the DuckDB catalog is made from).
    """

    def __init__(self, data: Path) -> None:
        self.data = data
        self._registry = Registry(data)
        self._seen: Signature | None = None
        #: Each table checked so far this snapshot: sound, or the line saying why not.
        self._checked: dict[str, Checked | str | None] = {}
        self._scan: Scan | None = None
        self._tables: dict[str, Table] = {}
        #: How many times the folder was seen changed (the explorer's bench counts them).
        self.reads = 0

    def refresh(self) -> None:
        """Forget what was read when the folder changed since (its tables are then
        checked again, each when first asked for)."""
        now = signature(self.data)
        if now != self._seen:
            self._registry.forget()
            self._checked, self._scan, self._tables = {}, None, {}
            self._seen = now
            self.reads += 1

    def _table(self, name: str) -> Checked | str | None:
        """Table ``name`` checked (once a snapshot): sound, damaged (why), or not there."""
        self.refresh()
        if name not in self._checked:
            self._checked[name] = trusted.table(self.data, name, self._registry.puzzle)
        return self._checked[name]

    def forget(self) -> None:
        """Drop what was read (after this process changed the folder)."""
        self._seen = None

    # -- names --------------------------------------------------------------------
    def puzzle(self, name: str) -> Puzzle:
        """The puzzle of that name here (UnknownPuzzle names the near misses); a table
        written in an older format version reads with the puzzle as it wrote it
        (``Puzzle.for_format``: its checked table's)."""
        self.refresh()
        p = self._registry.puzzle(name)
        if p.for_format(1) is p:  # the same in every version: no manifest read
            return p
        checked = self._table(name)
        return checked.puzzle if isinstance(checked, Checked) else p

    def puzzles(self, names: Iterable[str]) -> list[Puzzle]:
        """The puzzles of ``names``, group names (``4x4-pdb``) replaced by their tables."""
        self.refresh()
        return self._registry.puzzles(names)

    def with_requirements(self, chosen: list[Puzzle]) -> list[Puzzle]:
        """``chosen`` in build order, each derived table after the tables it is made from."""
        self.refresh()
        return self._registry.with_requirements(chosen)

    def listed(self) -> list[Puzzle]:
        """Every puzzle known here: built-ins, the specs kept here, every built table."""
        self.refresh()
        return self._registry.listed()

    # -- tables -------------------------------------------------------------------
    def tables(self) -> Scan:
        """The sound tables (checked against their puzzles and footers) and the damaged
        ones with the line that says why (puzzles/trusted.py)."""
        self.refresh()
        if self._scan is None:
            self._scan = trusted.split({n: self._table(n) for n in trusted.table_names(self.data)})
        return self._scan

    def built(self) -> list[str]:
        """The sound tables, by name."""
        return list(self.tables()[0])

    def manifests(self) -> list[Manifest]:
        """The sound tables' manifests (checked against the registry's puzzles and files)."""
        return [t.manifest for t in self.tables()[0].values()]

    def broken(self) -> dict[str, str]:
        """The damaged tables, each with the one line that says why and how to mend it."""
        return dict(self.tables()[1])

    def is_built(self, name: str) -> bool:
        """Whether ``name`` is a sound table here."""
        return isinstance(self._table(name), Checked)

    def has(self, name: str) -> bool:
        """Whether a table ``name`` is here, sound or refused (reading it then answers,
        or says in one line what is wrong with it)."""
        return self._table(name) is not None

    def file_stamps(self) -> Stamps:
        """Each level file of the sound tables as ``stat`` sees it now (a file replaced or
        rewritten changes its stamp: integrity.stamp), for a reader that checked them
        once to know it must check again (the DuckDB catalog reads them by name)."""
        out: list[tuple[str, str, tuple[int, ...]]] = []
        for name, t in self.tables()[0].items():
            for entry in t.manifest.files:
                try:
                    st = os.stat(self.data / name / entry.name, follow_symlinks=False)
                except OSError:
                    out.append((name, entry.name, ()))
                    continue
                out.append((name, entry.name, tuple(integrity.stamp(st))))
        return tuple(out)

    def table(self, p: Puzzle) -> Table:
        """The table of puzzle ``p``, opened for look-ups; NotBuilt names the command that
        builds it. A table the scan refused is opened too (verify names each of its
        problems): every read holds its file against the manifest, and a read it
        cannot answer soundly is CorruptTable, saying why and how to rebuild."""
        checked = self._table(p.name)
        if p.name in self._tables:
            return self._tables[p.name]
        self.require(p.name)
        if checked is None:
            raise NotBuilt(self.not_built(p))
        if isinstance(checked, Checked):
            table = Table(self.data / p.name, checked.manifest)
        else:
            table = Table(self.data / p.name)
            named = trusted.puzzle_named(table.manifest, self.data, self._registry.puzzle)
            trusted.check(table.manifest, named, self.data)
        table.check_sizes()
        self._tables[p.name] = table
        return table

    def not_built(self, p: Puzzle) -> str:
        """The line for ``p``'s table not built here: the command that builds it, or for
        a table too large for the disk, ``solve`` with its pattern tables."""
        searched = p.search_tables()
        if searched:
            return (
                f"{p.name} is solved by search, not tabulated: it has no table of its own; "
                f"`solve` searches over its pattern tables {', '.join(searched)}, each a "
                "table that answers as any other"
            )
        patterns = f"{p.name}-pdb" if f"{p.name}-pdb" in GROUPS else None
        return hints.not_built(p.name, self.data, p.expected_total, patterns)

    def require(self, name: str | None = None) -> None:
        """NotBuilt when the data folder is missing: reading never creates it."""
        if not self.data.is_dir():
            what = "is not a folder" if self.data.exists() else "does not exist"
            raise NotBuilt(
                f"data folder {self.data.absolute()} {what}: nothing is built there "
                f"({hints.where_data()}; or build into it with "
                f"{hints.build(name or '--default', self.data)})"
            )
