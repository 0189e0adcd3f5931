"""puzzledb: breadth-first state-space databases of puzzles, in Parquet, queried with DuckDB.

Start with :func:`open`: ``db = pipeline.open("data"); db.solve("3x3", "8 6 7 2 5 4 3 0 1")``.
"""

from pipeline.engine.kernel_cache import use_versioned_cache

use_versioned_cache()  # before numba is imported: kernel_cache.py says why

from pipeline.api import Database, Solution, open  # noqa: E402
from pipeline.errors import PuzzleDBError  # noqa: E402

__all__ = ["Database", "PuzzleDBError", "Solution", "open"]
