"""Every executor gives the rows of the reference search: the executor interface's contract."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.build import loop as build
from pipeline.engine import rows as row_rules
from pipeline.engine.buffers import Pool
from pipeline.errors import PuzzleDBError
from pipeline.executors.base import Place
from pipeline.executors.local.executor import LocalExecutor
from pipeline.executors.registry import EXECUTORS, executor_for
from pipeline.executors.sequential import SequentialExecutor
from pipeline.puzzles import registry as puzzles


def _shas(folder: Path) -> list[str]:
    return [f["sha256"] for f in json.loads((folder / "_manifest.json").read_text())["files"]]


@pytest.mark.parametrize("name", [p.name for p in puzzles.defaults()])
def test_sequential_executor_builds_the_files_of_the_local_one(
    data: Path, tmp_path: Path, name: str
) -> None:
    # One child range at a time, no threads: the plain semantics of a level step.
    # Derived tables read the tables they come from, copied here first.
    p = puzzles.get(name)
    for need in p.requires:  # copied: a linked table folder is refused (issue #44)
        shutil.copytree(data / need, tmp_path / need)
    m = build.build(p, tmp_path, executor=SequentialExecutor(ranges=3))
    assert m.total == json.loads((data / name / "_manifest.json").read_text())["total"]
    assert _shas(tmp_path / name) == _shas(data / name)


@pytest.mark.parametrize("name", [n for n in EXECUTORS if n != "spark"])  # spark: test_spark.py
def test_every_executor_of_the_registry_builds_the_same_files(
    data: Path, tmp_path: Path, name: str
) -> None:
    # By name, as --executor gives it: an executor object (never None), entered by the build.
    executor = executor_for(name, "local[*]", tmp_path)
    assert executor.name == name
    m = build.build(puzzles.get("3x3"), tmp_path, executor=executor, work=1 << 20)
    assert m.build["executor"] == name
    assert max(lv.stats.get("buckets", 1) for lv in m.levels) > 1  # cut, so spilled
    assert _shas(tmp_path / "3x3") == _shas(data / "3x3")
    assert not (tmp_path / ".staging" / "3x3").exists()  # its scratch gone with the build


@pytest.mark.parametrize("name", ["3x3", "2x5"])
def test_the_local_executor_s_marks_step_builds_the_files_of_the_sequential_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    # Sliding tiles rank their states: the local executor marks their moves at their
    # ranks instead of sorting them (executors/local/marks.py), from the first level
    # once the packed kernels serve every level. Its files are the plain step's.
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    marked = build.build(puzzles.get(name), tmp_path / "marks", executor=LocalExecutor())
    plain = build.build(puzzles.get(name), tmp_path / "plain", executor=SequentialExecutor(3))
    # The marks step held each level it made: the build kept only the first one.
    assert [lv.depth for lv in marked.levels if lv.stats.get("kept")] == [1]
    assert marked.total == plain.total == {"3x3": 181_440, "2x5": 1_814_400}[name]
    assert _shas(tmp_path / "marks" / name) == _shas(tmp_path / "plain" / name)


def test_an_unknown_executor_is_refused() -> None:
    with pytest.raises(PuzzleDBError, match="unknown executor 'dask'"):
        executor_for("dask", "local[*]", Path("."))


def test_an_executor_removes_its_scratch_even_when_the_build_fails(tmp_path: Path) -> None:
    place = Place(tmp_path / "spill", Pool(0), tmp_path)
    with pytest.raises(RuntimeError), LocalExecutor().working_in(place):
        place.scratch.mkdir()
        (place.scratch / "slot0000.bin").write_bytes(b"moves")
        raise RuntimeError("a level failed")
    assert not place.scratch.exists()
