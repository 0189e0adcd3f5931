"""Progress bars for people: a bar per table on a terminal, a few true lines in logs.

Without a terminal (a log, CI, a pipe) nothing is printed for a build that
finishes within :data:`INTERVAL` seconds: the command's own line per table
says what was built. A longer build prints one line every :data:`INTERVAL`
seconds, with the time left only once enough of a table with a known total
is done for the estimate to mean something (breadth-first levels grow and
shrink, so the first levels' rate says little).
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING

from pipeline.answers import SearchProgress
from pipeline.build.loop import LevelDone
from pipeline.words import plural, rate, seconds

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

#: Seconds between two log lines of one table's build (no terminal).
INTERVAL = 10.0
#: Seconds a search runs before its progress is shown.
SEARCH_QUIET = 2.0
#: Share of a table's known total done before a time-left estimate is shown.
ESTIMATE_FROM = 0.1
#: Seconds a build runs before a time-left estimate is shown: its first seconds hold
#: one-off costs (compiling the kernels on a fresh clone) that one level's pace
#: cannot tell apart.
ESTIMATE_AFTER = 30.0


class _Bars:
    """Closes the rich bars, where a terminal has them."""

    _progress: Progress | None = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)


class BuildBars(_Bars):
    """Shows depth, positions, rate and (when the total is known) time left."""

    def __init__(self) -> None:
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._logged: dict[str, float] = {}

    def __enter__(self) -> BuildBars:
        if sys.stderr.isatty():
            self._progress = _bars()
            self._progress.__enter__()
        return self

    def level(self, name: str, done: LevelDone) -> None:
        """A line every INTERVAL seconds, and one for each level Spark made (marked)."""
        if self._progress is None:
            if done.made_by or done.seconds - self._logged.get(name, 0.0) >= INTERVAL:
                self._logged[name] = done.seconds
                print(line(name, done), file=sys.stderr, flush=True)
            return
        if done.made_by:
            self._progress.console.print(line(name, done), highlight=False)
        if name not in self._tasks:
            self._tasks[name] = self._progress.add_task(
                name, total=done.total_expected, name=name, depth=0, rate="", count=""
            )
        self._progress.update(
            self._tasks[name],
            completed=done.total,
            depth=done.depth,
            count=plural(done.total, "position"),
            rate=rate(done.total / done.seconds) if done.seconds > 0 else "",
        )


def _bars() -> Progress:
    """rich's progress bars on stderr (imported only on a terminal)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.fields[name]:<9}"),
        BarColumn(),
        TextColumn("depth {task.fields[depth]:>3}"),
        TextColumn("{task.fields[count]:>24}"),
        TextColumn("{task.fields[rate]:>10}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )


def line(name: str, done: LevelDone) -> str:
    """One log line: where the build is, its rate, and (when it means something) time left."""
    made = done.total - done.resumed  # in this run's seconds
    overall = made / done.seconds if done.seconds > 0 and made > 0 else 0.0
    text = (
        f"{name}: depth {done.depth} done ({plural(done.positions, 'position')}"
        + (f", {done.buckets} buckets" if done.buckets > 1 else "")
        + (f", on {done.made_by.capitalize()}" if done.made_by else "")
        + f"), {plural(done.total, 'position')} so far"
        + (f", {made:,} since the build resumed," if done.resumed else "")
        + f" in {seconds(done.seconds)}"
        + (f" ({rate(overall)})" if overall > 0 else "")
    )
    expected, about = done.total_expected, "about " if done.estimated else ""
    if expected:
        share = min(1.0, done.total / expected)
        text += f", {100 * share:.0f}% of {about}{expected:,}"
        if ESTIMATE_FROM <= share < 1 and overall > 0 and done.seconds >= ESTIMATE_AFTER:
            text += f", about {seconds(_left(done, expected - done.total, done.layered))} left"
    return text


def _left(done: LevelDone, remaining: int, layered: bool) -> float:
    """Seconds the ``remaining`` positions will take, from the last level's step.

    A reversible graph's step costs about the same for each state it expands
    (its moves, and the two levels before to check): the positions left, and
    the last level, are still to be expanded. A layered one's (peg boards)
    follows what it makes: the slower of the build's pace and the last level's.
    Replayed on measured levels from a fifth built to 90%, these say 0.90 to
    1.11 of the time 4x4-pdb-8 had left, 0.78 to 0.99 of the French board's
    (tests/test_user_output.py), where the build's pace alone said 0.55 to
    0.71 and 0.71 to 0.81.
    """
    pace = done.seconds / max(1, done.total - done.resumed)
    if done.level_seconds <= 0 or done.positions <= 0:
        return remaining * pace
    if not layered and done.expanded > 0:
        return (remaining + done.positions) * done.level_seconds / done.expanded
    return remaining * max(pace, done.level_seconds / done.positions)


class VerifyBars(_Bars):
    """Verify's progress, level by level: a bar on a terminal, else a line every
    :data:`INTERVAL` seconds (a large table takes minutes)."""

    def __init__(self, name: str, histogram: list[tuple[int, int]]) -> None:
        self.name = name
        self.sizes = dict(histogram)
        self.total = sum(self.sizes.values())
        self.done = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._start = time.monotonic()
        self._logged = 0.0

    def __enter__(self) -> VerifyBars:
        if sys.stderr.isatty():
            self._progress = _bars()
            self._progress.__enter__()
            self._task = self._progress.add_task(
                "verify", total=self.total, name=self.name, depth=0, rate="", count=""
            )
        return self

    def level(self, depth: int) -> None:
        self.done += self.sizes.get(depth, 0)
        spent = time.monotonic() - self._start
        if self._progress is not None and self._task is not None:
            count = f"{plural(self.done, 'position')} checked"
            self._progress.update(self._task, completed=self.done, depth=depth, count=count)
        elif spent - self._logged >= INTERVAL:
            self._logged = spent
            print(
                f"{self.name}: verified to depth {depth} ({self.done:,} of {self.total:,} "
                f"positions) in {seconds(spent)}",
                file=sys.stderr,
                flush=True,
            )


class SearchLine:
    """A long search's progress: the bound (depth) it has reached, nodes, time; on a
    terminal one line kept up to date, else a line every :data:`INTERVAL` seconds.
    A search of less than :data:`SEARCH_QUIET` seconds prints nothing."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.last: SearchProgress | None = None
        self._logged = 0.0
        self._shown = False

    def __call__(self, p: SearchProgress) -> None:
        self.last = p
        if p.seconds < SEARCH_QUIET:
            return
        if sys.stderr.isatty():
            print(f"\r{self.text(p)}\x1b[K", end="", file=sys.stderr, flush=True)
            self._shown = True
        elif p.seconds - self._logged >= INTERVAL:
            self._logged = p.seconds
            print(self.text(p), file=sys.stderr, flush=True)

    def text(self, p: SearchProgress) -> str:
        return (
            f"{self.name}: searching depth {p.bound}, {plural(p.nodes, 'node')} "
            f"in {seconds(p.seconds)} ({rate(p.nodes / max(p.seconds, 1e-9))})"
        )

    def close(self) -> None:
        """End the terminal's line, if one was drawn."""
        if self._shown:
            print(file=sys.stderr, flush=True)
            self._shown = False

    def stopped(self) -> str:
        """The line for a search stopped by Ctrl-C: how far it had gone."""
        if self.last is None:
            return f"{self.name}: search stopped"
        p = self.last
        return (
            f"{self.name}: search stopped at depth {p.bound} after "
            f"{plural(p.nodes, 'node')} and {seconds(p.seconds)}: no solution is shorter "
            f"than {p.bound} moves"
        )
