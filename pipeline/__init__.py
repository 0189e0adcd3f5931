"""puzzledb: breadth-first state-space databases of puzzles, in Parquet, queried with DuckDB.

Start with :func:`open`: ``db = pipeline.open("data"); db.solve("3x3", "8 6 7 2 5 4 3 0 1")``.
"""

import os as _os
import sys as _sys

from pipeline.engine.kernel_cache import use_versioned_cache

use_versioned_cache()  # before numba is imported: kernel_cache.py says why
if "numpy" not in _sys.modules:
    # numpy's OpenBLAS starts a thread a core that spins for its first work
    # (docs/BENCHMARKS.md has its cost); puzzledb calls no BLAS routine.
    # One thread, unless the environment says otherwise (or numpy came first).
    _os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pipeline.answers import Solution  # noqa: E402
from pipeline.api import Database, open  # noqa: E402
from pipeline.errors import PuzzleDBError  # noqa: E402

__all__ = ["Database", "PuzzleDBError", "Solution", "open"]
