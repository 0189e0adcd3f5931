"""The executor interface: one level step, however it is computed.

The build loop (pipeline/build/loop.py) enters an executor for the length of
one build (``with executor.working_in(place) as ex``: ``__enter__`` starts what the
executor needs, ``__exit__`` removes its scratch) and hands it one
:class:`LevelJob` a level: the frontier, the finished levels the graph checks
new states against, the puzzle's moves, the memory the step may use and the
table the level goes to. The executor makes the next level and either hands
it to the sink in runs sorted by state, each run above the last, with the
smallest parent of every child (the rows of
:func:`pipeline.engine.reference.search`, whatever the executor), or writes
the level's files itself and hands their entries to ``job.table.parts``.
How it cuts the child states into ranges, where the work runs and what it
spills is its own affair; a level it cannot make it hands to another
executor it holds (pipeline/executors/spark/ hands small levels to the local
one). Adding an executor: sequential.py shows how.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Self

from pipeline.engine.buffers import Pool
from pipeline.engine.core import Sink
from pipeline.engine.level import LevelSource
from pipeline.engine.rows import MoveRules
from pipeline.storage.reader import LevelFiles

#: A level file's entry as storage/writer.write_part returns it: the fields of the
#: manifest's FileEntry (name, depth, rows, bytes, sha256, state range), and a
#: family's own (a symmetric table's orbits).
Entry = dict[str, Any]  # Any: the writer's entries hold str, int and None values


@dataclass(frozen=True)
class Place:
    """Where one build's level steps work: a scratch folder of the executor's own
    (removed when the build ends), the buffers the build lends from one level to
    the next (engine/buffers.py), and the data folder (a cluster's workers must see it)."""

    scratch: Path
    pool: Pool
    data: Path


@dataclass(frozen=True)
class Destination:
    """The table a level goes to, for an executor that writes the level's files itself."""

    puzzle: str
    data: Path
    staging: Path
    #: The files' key-value metadata (storage/format.py).
    metadata: dict[str, str]
    #: Whether an executor may write the files: not with path counts (the build keeps
    #: their raw copy) nor columns of the puzzle's own (class_size), which only the
    #: build's writer adds.
    writable: bool
    #: The frontier and the excluded levels as files, once every pending write is done.
    on_disk: Callable[[], tuple[LevelFiles, list[LevelFiles]]]
    #: Takes the entries of the level's files (storage/manifest.py), in state order.
    parts: Callable[[list[Entry]], None]


@dataclass(frozen=True)
class LevelJob:
    """Everything one level step needs."""

    frontier: LevelSource
    excluded: Sequence[LevelSource]
    rules: MoveRules
    #: Bytes the step may use, and bytes of levels the caller holds meanwhile.
    work: int
    held: int = 0
    #: A forced number of child ranges (tests), else the executor plans them.
    buckets: int | None = None
    #: The table being built (None: the rows go to the sink, e.g. a closed level's rounds).
    table: Destination | None = None


@dataclass
class StepStats:
    """What one level step did and where its time went (None: not reported)."""

    pairs: int | None = 0
    buckets: int | None = 1
    expand: float = 0.0
    dedup: float = 0.0
    #: Whether the executor holds the new level for its next step, so that the build
    #: need not keep it in memory (the local executor's dense engine: the next
    #: frontier is then only named).
    holds: bool = False
    #: How the level was made, in flags the executor names, recorded with the level's
    #: stats as they are (the dense engine's: ``dense``, and ``backward`` for the
    #: bitmaps).
    flags: dict[str, bool] = field(default_factory=dict)


class Executor(Protocol):
    """Computes one level at a time, for one build at a time."""

    #: Its name in the registry (registry.py) and in the manifest's ``build``.
    name: str

    def working_in(self, place: Place) -> Self:
        """Work in ``place`` during the next build; returns the executor, to enter."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...

    def run_level(self, job: LevelJob, sink: Sink) -> StepStats:
        """Make the level after ``job.frontier``: rows to ``sink``, or files to the table."""
        ...


class Lifecycle:
    """The lifecycle most executors need: the build's place kept, its scratch
    folder removed when the build ends (inherit it: sequential.py)."""

    place: Place | None = None

    @classmethod
    def configured(cls, master: str, data: Path) -> Self:
        """The executor a name in the registry gives, ready to build in ``data``
        (``master``: where a cluster executor sends its work)."""
        return cls()

    def working_in(self, place: Place) -> Self:
        self.place = place
        return self

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.place is not None:
            shutil.rmtree(self.place.scratch, ignore_errors=True)
