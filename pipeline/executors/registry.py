"""The executors by name (``--executor``): which executor a build runs on.

Adding an executor is its module and one line in :data:`EXECUTORS`
(sequential.py says how).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pipeline.errors import PuzzleDBError
from pipeline.executors.base import Executor
from pipeline.executors.local.executor import LocalExecutor
from pipeline.executors.sequential import SequentialExecutor
from pipeline.executors.spark.executor import SparkExecutor

#: Each executor's maker by name: ``configured(master, data)`` (base.Lifecycle).
EXECUTORS: dict[str, Callable[[str, Path], Executor]] = {
    "local": LocalExecutor.configured,
    "sequential": SequentialExecutor.configured,
    "spark": SparkExecutor.configured,
}


def executor_for(executor: str | Executor, master: str, data: Path) -> Executor:
    """The executor named ``executor``, ready before anything is built (Spark: Java,
    pyspark, the master, the workers seeing ``data``, checked); an executor object
    is returned as it is (tests, the API)."""
    if not isinstance(executor, str):
        return executor
    if executor not in EXECUTORS:
        raise PuzzleDBError(f"unknown executor {executor!r}: choose one of {', '.join(EXECUTORS)}")
    return EXECUTORS[executor](master, data)
