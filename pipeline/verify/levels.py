"""What the level-by-level checks (window.py, stream.py) start from."""

from __future__ import annotations

import numpy as np

from pipeline.engine.core import unique
from pipeline.puzzles.base import Puzzle
from pipeline.storage.table import Table
from pipeline.verify.report import Report


class LevelChecks:
    """The puzzle and the table checked, the report the checks fill (``bad`` adds a
    problem), the manifest's counts they hold the levels to, and the puzzle's roots."""

    def __init__(self, puzzle: Puzzle, table: Table, report: Report) -> None:
        self.puzzle = puzzle
        self.table = table
        self.report = report
        self.bad = report.problems.append
        self.expected = dict(table.manifest.histogram())  # the claim verify checks
        self.roots = unique(np.asarray(puzzle.roots(), dtype=np.uint64))
