"""The level step on Apache Spark: rows identical to the local build, faults, bad input,
and Spark as a reader of our tables. One real SparkSession (``local[2,4]``: tasks
retry) for the whole run; every level goes through Spark (threshold 0) in a few
forced child ranges, so levels really shuffle."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

import pipeline
from pipeline.executors.spark.executor import SparkExecutor
from pipeline.executors.spark.session import session

pytestmark = pytest.mark.spark

MASTER = "local[2,4]"
#: triangle15-moves has zero-cost moves: each level closed in rounds, each a Spark job.
#: (2x3 left out: 3x3 is the same kind, and each build is about 10 s of `make test`.)
SPARK_PUZZLES = ["oshidori", "hex6", "3x3", "triangle15", "triangle15-moves"]


@pytest.fixture(scope="session")
def spark() -> Any:
    """The test run's one SparkSession (stopped at the end)."""
    s = session(MASTER, {"spark.default.parallelism": "2", "spark.ui.enabled": "false"})
    yield s
    s.stop()


def _rows(folder: Path) -> dict[str, np.ndarray]:
    """Every row of a table, files in manifest order (state order within each depth)."""
    files = json.loads((folder / "_manifest.json").read_text())["files"]
    tables = [pq.read_table(folder / f["name"]) for f in files]
    out = {}
    for col in ("state", "depth", "parent"):
        parts = [t.column(col).to_numpy(zero_copy_only=False) for t in tables]
        out[col] = np.concatenate(parts)
    return out


def _same_rows(a: Path, b: Path) -> None:
    ra, rb = _rows(a), _rows(b)
    for col in ra:
        assert np.array_equal(ra[col], rb[col], equal_nan=True), col


@pytest.mark.parametrize("name", SPARK_PUZZLES)
def test_spark_builds_the_rows_of_the_local_build(
    spark: Any, data: Path, tmp_path: Path, name: str
) -> None:
    db = pipeline.open(tmp_path)
    ranges = 3
    engine = SparkExecutor(MASTER, threshold=0, ranges=ranges)
    (m,) = db.build([name], engine=engine)
    local = json.loads((data / name / "_manifest.json").read_text())
    assert m.total == local["total"] and m.histogram() == [
        (lv["depth"], lv["positions"]) for lv in local["levels"]
    ]
    assert m.build["executor"] == "spark"
    assert all(lv.stats.get("spark") for lv in m.levels[1:])
    # Really shuffled: some level came out of more than one range.
    assert max(lv.stats.get("buckets", 0) for lv in m.levels) == ranges
    if name == "triangle15-moves":  # levels closed in several rounds, each through Spark
        assert max(t["rounds"] for t in engine.timings) >= 4
    _same_rows(tmp_path / name, data / name)
    assert db.verify(name).ok


def test_levels_below_the_threshold_go_to_the_local_executor_it_holds(
    spark: Any, data: Path, tmp_path: Path
) -> None:
    # One build, both kinds of level: the loop never asks which (executors/base.py).
    ex = SparkExecutor(MASTER, threshold=2_000, ranges=2)
    (m,) = pipeline.open(tmp_path).build(["3x3"], engine=ex)
    on_spark = [lv.depth for lv in m.levels if lv.stats.get("spark")]
    assert on_spark and len(on_spark) < len(m.levels) - 1
    assert len(ex.timings) == len(on_spark)
    _same_rows(tmp_path / "3x3", data / "3x3")
    assert not (tmp_path / ".staging" / "3x3").exists()  # both executors' scratch gone


def test_a_worker_killed_mid_reduce_is_retried(spark: Any, data: Path, tmp_path: Path) -> None:
    crash = tmp_path / "crashed"
    ex = SparkExecutor(MASTER, threshold=0, ranges=3, crash_once=crash)
    pipeline.open(tmp_path / "d").build(["2x4"], engine=ex)
    assert crash.exists()  # a Python worker did exit before it returned range 0
    _same_rows(tmp_path / "d" / "2x4", data / "2x4")


def _cli(*args: str, env: dict[str, str] | None = None, **kw: Any) -> Any:
    cmd = [sys.executable, "-m", "pipeline.cli", *args]
    return subprocess.Popen(
        cmd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **kw,
    )


def test_the_driver_killed_at_a_level_resumes(data: Path, tmp_path: Path) -> None:
    env = {"PUZZLEDB_SPARK_THRESHOLD": "0", "PUZZLEDB_SPARK_RANGES": "2"}
    # 2x3 (22 levels): every level on Spark, as 3x3's 32 are in the test above.
    args = ("build", "2x3", "--engine", "spark", "--master", "local[2]", "--data", str(tmp_path))
    progress = tmp_path / ".staging" / "2x3" / "progress.json"
    first = _cli(*args, env=env)
    done: list[dict[str, Any]] = []
    deadline = time.monotonic() + 240
    while len(done) < 8 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
        with contextlib.suppress(OSError, ValueError):
            done = json.loads(progress.read_text())["levels"]
    os.killpg(first.pid, signal.SIGKILL)  # the driver and its JVM
    first.wait()
    assert 8 <= len(done) < 22, "killed mid-build"
    second = _cli(*args, env=env)
    _, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    # Spark's start-up lines ("Setting default log level ...") and its log are silent.
    assert "log level" not in err and "spark: " not in err, err
    m = json.loads((tmp_path / "2x3" / "_manifest.json").read_text())
    # The levels finished before the kill were kept, not made again.
    assert [lv["seconds"] for lv in m["levels"][: len(done)]] == [lv["seconds"] for lv in done]
    _same_rows(tmp_path / "2x3", data / "2x3")


def test_the_build_says_when_spark_starts_and_which_levels_it_made(
    data: Path, tmp_path: Path
) -> None:
    """One line before the JVM's silence; a line for each level Spark made, marked, and
    exactly those the manifest records as Spark's (the smaller ones ran on the driver)."""
    env = {"PUZZLEDB_SPARK_THRESHOLD": "10000", "PUZZLEDB_SPARK_RANGES": "2"}
    args = ("build", "3x3", "--executor", "spark", "--master", "local[2]", "--data", str(tmp_path))
    p = _cli(*args, env=env)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    lines = err.splitlines()
    assert lines[0] == "puzzledb: starting Spark (local[2]): about 30 s the first time", err
    assert sum("starting Spark" in ln for ln in lines) == 1
    marked = [int(ln.split()[2]) for ln in lines if ", on Spark)" in ln]
    m = json.loads((tmp_path / "3x3" / "_manifest.json").read_text())
    on_spark = [lv["depth"] for lv in m["levels"] if lv.get("spark")]  # the level stats
    assert marked == on_spark and 0 < len(on_spark) < 31
    assert "3x3: depth 20 done (16,993 positions, 2 buckets, on Spark)" in err
    _same_rows(tmp_path / "3x3", data / "3x3")


def _fails(args: list[str], env: dict[str, str], needle: str) -> None:
    p = _cli(*args, env=env)
    _, err = p.communicate(timeout=120)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert p.returncode == 1, err
    assert len(lines) == 1 and needle in lines[0], err


def test_bad_input_is_one_line_and_touches_nothing_built(data: Path, tmp_path: Path) -> None:
    import shutil

    shutil.copytree(data / "hex6", tmp_path / "hex6")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in (tmp_path / "hex6").iterdir())
    build = ["build", "hex6", "--force", "--engine", "spark", "--data", str(tmp_path)]
    _fails(build, {"JAVA_HOME": str(tmp_path / "nojava")}, "has no bin/java")
    started = time.monotonic()
    _fails([*build, "--master", "spark://127.0.0.1:9"], {}, "does not answer")
    assert time.monotonic() - started < 30
    _fails([*build[:-2], "--engine", "dask", "--data", str(tmp_path)], {}, "unknown executor")
    # No pyspark: the same command in a Python that cannot import it.
    code = "import sys; sys.modules['pyspark'] = None; from pipeline.cli.app import main; main()"
    p = subprocess.run(
        [sys.executable, "-c", code, *build], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 1 and "pip install 'puzzledb[spark]'" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    after = sorted((p.name, p.stat().st_mtime_ns) for p in (tmp_path / "hex6").iterdir())
    assert after == before


def test_spark_reads_a_table_and_its_histogram_is_the_manifests(spark: Any, data: Path) -> None:
    from pyspark.sql import functions as F

    folder = data / "hex6"
    df = spark.read.parquet(str(folder / "*.parquet"))
    types = dict(df.dtypes)
    assert types == {"state": "decimal(20,0)", "depth": "smallint", "parent": "decimal(20,0)"}
    got = df.groupBy("depth").agg(F.count("*").alias("n")).orderBy("depth").collect()
    m = json.loads((folder / "_manifest.json").read_text())
    assert [(r["depth"], r["n"]) for r in got] == [
        (lv["depth"], lv["positions"]) for lv in m["levels"]
    ]
    # BIGINT casts are exact below 2**63: the largest state survives the cast.
    top = df.select(F.max(F.col("state").cast("bigint")).alias("s")).collect()[0]["s"]
    assert top == max(f["max_state"] for f in m["files"])


@pytest.mark.parametrize("k", [3, 12])
def test_a_map_splits_moves_into_their_child_ranges(data: Path, k: int) -> None:
    """Few ranges are picked by comparisons, many by one sort: the same moves either way,
    each in the range of its child."""
    from pipeline.executors.spark import tasks
    from pipeline.storage import manifest
    from pipeline.storage.reader import LevelFiles

    m = manifest.read(data / "3x3")
    level = LevelFiles(data / "3x3", 20, m.files_at(20)).read()
    for rows in (tasks.rows_for("3x3", str(data)), tasks.rows_for("oshidori", str(data))):
        moves = rows.make(level.states, level.parents if rows.want[0] else None, None)
        cuts = rows.cuts(moves, k)
        inner = np.array([rows.key_bound(c) for c in cuts[1:-1]], np.uint64)
        got = tasks.split(rows, moves.copy(), inner)
        assert len(got) == len(cuts) - 1 == k and sum(map(len, got)) == len(moves)
        for r, part in enumerate(got):
            children = rows.children(rows.lead(part)) if len(part) else part
            assert ((children >= cuts[r]) & (children < cuts[r + 1])).all()
        # the other way (sorted and cut, or picked) gives each range the same moves
        other = 0 if len(inner) > tasks.MASK_RANGES else -1
        saved, tasks.MASK_RANGES = tasks.MASK_RANGES, 1 << 20 if other == 0 else -1
        try:
            again = tasks.split(rows, moves.copy(), inner)
        finally:
            tasks.MASK_RANGES = saved
        for a, b in zip(got, again, strict=True):
            assert np.array_equal(_canonical(a), _canonical(b))


def _canonical(moves: np.ndarray) -> np.ndarray:
    """Moves in one order (rows of several columns sorted by every column)."""
    return np.sort(moves) if moves.ndim == 1 else moves[np.lexsort(moves.T[::-1])]
