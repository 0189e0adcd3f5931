"""3x4 (239,500,800 positions) through Spark on a two-executor local cluster:
`make test-spark-full` (not in `make test`: about 2.6 GB of disk and many minutes;
--spark-master picks the master, local-cluster[2,1,4096] by default).

The same board is built with the local executor in the same run, for the
rows (compared level by level) and the time beside it; the times are printed
and written to bench-results/spark-full.txt.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.storage.reader import LevelFiles

pytestmark = [pytest.mark.full, pytest.mark.spark]


def _timed(folder: Path, engine: object) -> tuple[pipeline.Database, float]:
    db = pipeline.open(folder)
    clock = time.perf_counter()
    db.build(["3x4"], engine=engine)
    return db, time.perf_counter() - clock


def test_3x4_on_a_local_cluster(tmp_path: Path, spark_master: str) -> None:
    from pipeline.executors.spark.executor import SparkExecutor

    spark = SparkExecutor(spark_master)
    clock = time.perf_counter()
    spark.start(tmp_path / "spark")
    started = time.perf_counter() - clock
    try:
        sdb, spark_s = _timed(tmp_path / "spark", spark)
    finally:
        spark._spark.stop()  # the local cluster, before the long checks (and no noise at exit)
    ldb, local_s = _timed(tmp_path / "local", "local")
    m, lm = sdb.table("3x4").manifest, ldb.table("3x4").manifest
    assert (m.total, m.max_depth, m.max_depth_positions) == (239_500_800, 53, 18)
    assert m.histogram() == lm.histogram()
    for lv in m.levels:  # the rows, level by level (Spark cuts the files differently)
        a = LevelFiles(sdb.data / "3x4", lv.depth, m.files_at(lv.depth)).read()
        b = LevelFiles(ldb.data / "3x4", lv.depth, lm.files_at(lv.depth)).read()
        assert np.array_equal(a.states, b.states) and np.array_equal(a.parents, b.parents)
    clock = time.perf_counter()
    assert sdb.verify("3x4").ok
    verify_s = time.perf_counter() - clock
    load = os.getloadavg()
    line = (
        f"3x4: Spark on {spark_master} {spark_s:.0f} s ({m.build['seconds']:.0f} s of levels, "
        f"session start {started:.0f} s), local executor {local_s:.0f} s "
        f"({lm.build['seconds']:.0f} s of levels): {spark_s / local_s:.1f}x; "
        f"verify {verify_s:.0f} s; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(line)
    Path("bench-results").mkdir(exist_ok=True)
    Path("bench-results/spark-full.txt").write_text(
        line + "\n" + "\n".join(str(t) for t in spark.timings) + "\n"
    )
