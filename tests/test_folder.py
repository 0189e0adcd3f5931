"""A data folder is read once (service/folder.py), and again only when it changes: the
explorer asks it on every request, a few ``stat`` calls each."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pipeline
from pipeline.service.folder import Folder
from tests.conftest import run_cli
from tests.test_serve import get, serving


def test_the_manifests_are_read_once_while_nothing_changes(copy_of) -> None:
    data = copy_of("2x3", "3x3", "triangle15")
    folder = Folder(data)
    for _ in range(50):
        assert folder.built() == ["2x3", "3x3", "triangle15"]
        assert folder.table(folder.puzzle("3x3")).manifest.total == 181440
    assert folder.reads == 1


def test_a_table_built_removed_or_rewritten_elsewhere_is_seen(copy_of, data: Path) -> None:
    folder_path = copy_of("2x3")
    folder = Folder(folder_path)
    assert folder.built() == ["2x3"]
    shutil.copytree(data / "2x4", folder_path / "2x4")  # another process publishes a table
    assert folder.built() == ["2x3", "2x4"] and folder.reads == 2
    m = folder_path / "2x3" / "_manifest.json"
    doc = json.loads(m.read_text())
    doc["total"] = "360"  # rewritten: now refused, with the line that says why
    m.write_text(json.dumps(doc))
    assert folder.built() == ["2x4"] and list(folder.broken()) == ["2x3"]
    shutil.rmtree(folder_path / "2x4")
    assert folder.built() == [] and folder.reads == 4


def test_the_explorer_sees_a_table_built_while_it_serves(copy_of, data: Path) -> None:
    folder = copy_of("2x3")
    with serving(folder) as base:
        for _ in range(3):
            names = [r["puzzle"] for r in json.loads(get(base + "/api/tables")[1])]
            assert names == ["2x3"]
        assert get(base + "/t/2x4")[0] == 404
        r = run_cli("build", "2x4", data=folder)
        assert r.returncode == 0, r.stderr
        names = [r["puzzle"] for r in json.loads(get(base + "/api/tables")[1])]
        assert names == ["2x3", "2x4"]
        status, body = get(base + "/api/position/2x4?s=0%207%202%201%204%203%206%205")
        assert status == 200 and json.loads(body)["depth"] == 36
    assert pipeline.open(folder).depth("2x4", "0 7 2 1 4 3 6 5") == 36
