"""Build progress for people: a bar per table on a terminal, quiet in logs."""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType
from typing import Any

from pipeline import puzzles
from pipeline.build import LevelDone


class BuildProgress:
    """Shows depth, positions, rate and (when the total is known) time left."""

    def __init__(self, names: list[str], data: Path | None = None) -> None:
        self.names = names
        self.data = data  # where names of specs and typed roots resolve
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> BuildProgress:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.fields[name]:<9}"),
                BarColumn(),
                TextColumn("depth {task.fields[depth]:>3}"),
                TextColumn("{task.completed:>14,.0f} positions"),
                TextColumn("{task.fields[rate]:>12}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self._progress.__enter__()
        return self

    def level(self, name: str, done: LevelDone) -> None:
        if self._progress is None:
            print(line(name, done, self.data), file=sys.stderr, flush=True)
            return
        if name not in self._tasks:
            total = puzzles.get(name, self.data).expected_total
            self._tasks[name] = self._progress.add_task(
                name, total=total, name=name, depth=0, rate=""
            )
        rate = done.total / done.seconds if done.seconds > 0 else 0.0
        self._progress.update(
            self._tasks[name],
            completed=done.total,
            depth=done.depth,
            rate=f"{rate / 1e6:.2f} M/s",
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)


def line(name: str, done: LevelDone, data: Path | None = None) -> str:
    """One log line a level: positions, rate, buckets and (total known) time left."""
    rate = done.total / done.seconds if done.seconds > 0 else 0.0
    level_rate = done.positions / done.level_seconds if done.level_seconds > 0 else 0.0
    text = (
        f"{name} depth {done.depth}: {done.positions:,} positions "
        f"({level_rate / 1e6:.2f} M/s"
        + (f", {done.buckets} buckets" if done.buckets > 1 else "")
        + f"), {done.total:,} done, {rate / 1e6:.2f} M/s overall"
    )
    expected = puzzles.get(name, data).expected_total
    if expected and rate > 0:
        left = max(0, expected - done.total) / rate
        text += f", {100 * done.total / expected:.1f}%, about {left:.0f} s left"
    return text
