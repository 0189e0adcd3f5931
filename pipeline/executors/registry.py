"""Which executor a build runs on (``--engine``): the local one, or Spark (an extra)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pipeline.errors import PuzzleDBError

ENGINES = ("local", "spark")
#: Overrides the Spark executor's threshold (levels smaller run on the driver).
THRESHOLD_ENV = "PUZZLEDB_SPARK_THRESHOLD"
#: Forces the number of child ranges of each Spark level (tests).
RANGES_ENV = "PUZZLEDB_SPARK_RANGES"


def executor_for(engine: str | Any, master: str, data: Path) -> Any:
    """The executor of ``engine`` (None: the local one), Spark started and checked
    (Java, pyspark, the master, the workers seeing ``data``) before anything is built."""
    if not isinstance(engine, str):
        return engine  # an executor object (tests, the API)
    if engine == "local":
        return None
    if engine != "spark":
        raise PuzzleDBError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    from pipeline.executors.spark.executor import THRESHOLD, SparkExecutor

    threshold = _int_env(THRESHOLD_ENV, THRESHOLD)
    ranges = _int_env(RANGES_ENV, 0) or None
    spark = SparkExecutor(master, threshold=threshold, ranges=ranges)
    spark.start(data)
    return spark


def _int_env(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise PuzzleDBError(f"{name}={text!r} is not a whole number")
    return int(text)
