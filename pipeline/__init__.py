"""puzzledb: breadth-first state-space databases of puzzles, in Parquet, queried with DuckDB.

Start with :func:`open`: ``db = pipeline.open("data"); db.solve("3x3", "8 6 7 2 5 4 3 0 1")``.
"""

from pipeline.api import Database, Solution, open
from pipeline.errors import PuzzleDBError

__all__ = ["Database", "PuzzleDBError", "Solution", "open"]
