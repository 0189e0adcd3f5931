"""Forge a staging folder for 3x3, as a folder handed over may hold one: ``progress.json``
with the right hashes, and a level 0 holding "1 2 3 4 5 6 8 7 0" (the other parity).

Run as a script (``python forge_staging.py DATA``), under a cache of its own: the
machine that forged it is not the one that builds (tests/test_trust_second.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from pipeline.engine.core import NO_PARENT, Level
from pipeline.puzzles import registry
from pipeline.storage.format import FORMAT_VERSION, metadata
from pipeline.storage.writer import write_level


def forge(data: Path) -> None:
    p = registry.get("3x3")
    staged = data / ".staging" / "3x3"
    staged.mkdir(parents=True)
    state = p.cells.encode(p.cells.parse_values("1 2 3 4 5 6 8 7 0"))
    level = Level(0, np.array([state], np.uint64), np.array([NO_PARENT], np.uint64))
    entries = write_level(staged, level, {**metadata("3x3", "x"), "puzzledb.depth": "0"})
    doc = {
        "format_version": FORMAT_VERSION,
        "table": "3x3",
        "puzzle": json.loads(json.dumps(p.describe())),
        "started": "2026-01-01T00:00:00+00:00",
        "levels": [{"depth": 0, "positions": 1, "seconds": 0.0}],
        "files": entries,
        "seconds": 0.0,
        "paths": False,
    }
    (staged / "progress.json").write_text(json.dumps(doc))


if __name__ == "__main__":
    forge(Path(sys.argv[1]))
