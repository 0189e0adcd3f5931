"""Every executor gives the rows of the reference search: the executor interface's contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.build import loop as build
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
    for need in p.requires:
        (tmp_path / need).symlink_to(data / need)
    m = build.build(p, tmp_path, executor=SequentialExecutor(ranges=3))
    assert m.total == json.loads((data / name / "_manifest.json").read_text())["total"]
    assert _shas(tmp_path / name) == _shas(data / name)
