"""Property (#44): a manifest's figures are a claim held against the files, never an answer.

Every number a read takes from a manifest (the total, the deepest depth and its
count, each level's depth and count, each file's depth, rows, bytes and state
range, partial_depth, the format version, a -sym level's orbit_positions) is
changed by one, swapped with its neighbour's, given as a string, as true, or
made huge, one at a time and a few at once, or a file entry is listed again at
a new depth. Each read through the API (histogram, longest, the summary, a solve,
a count in SQL) then answers as on the clean folder or raises a PuzzleDBError
naming the table, and the tables left alone answer as before.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.errors import PuzzleDBError
from tests.conftest import examples

TABLES = ("2x3", "triangle15", "english33-sym")
SOLVE = {"2x3": "4 5 0 1 2 3", "triangle15": "x x x x x x x x x x x x . x x"}


@pytest.fixture(scope="module")
def folders(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("figures")
    clean = root / "clean"
    for t in TABLES[:2]:
        shutil.copytree(data / t, clean / t)
    pipeline.open(clean).build(["english33-sym"], max_depth=5)
    texts = {t: (clean / t / "_manifest.json").read_text() for t in TABLES}
    yield {"root": root, "clean": clean, "texts": texts, "answers": _answers(clean)}


def _answers(folder: Path) -> dict[str, Any]:
    db = pipeline.open(folder)
    reads: dict[str, Any] = {
        "summary": lambda: sorted(db.summary().rows()),
        **{f"histogram {t}": lambda t=t: db.histogram(t).rows() for t in TABLES},
        **{f"longest {t}": lambda t=t: sorted(db.longest(t).rows()) for t in TABLES[:2]},
        **{f"solve {t}": lambda t=t: db.solve(t, SOLVE[t]).states for t in SOLVE},
        **{
            f"count {t}": lambda t=t: db.query(f'SELECT count(*) FROM "{t}"').rows() for t in TABLES
        },
    }
    out: dict[str, Any] = {}
    for what, read in reads.items():
        try:
            out[what] = read()
        except PuzzleDBError as e:
            out[what] = type(e)
        except duckdb.Error as e:  # a damaged table's view: its line, rebuild command and all
            assert "--force" in str(e), str(e)
            out[what] = type(e)
    return out


def _numbers(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The path of every number a read takes from the manifest."""
    out: list[tuple[Any, ...]] = [
        (k,) for k in ("total", "max_depth", "max_depth_positions", "format_version")
    ]
    for i, lv in enumerate(doc["levels"]):
        out += [("levels", i, k) for k in ("depth", "positions", "orbit_positions") if k in lv]
    for i, _ in enumerate(doc["files"]):
        out += [("files", i, k) for k in ("depth", "rows", "bytes", "min_state", "max_state")]
    return out


CHANGES = ["+1", "-1", "swap", "str", "true", "huge", "again"]


def _change(doc: dict[str, Any], path: tuple[Any, ...], how: str) -> None:
    *up, key = path
    where: Any = doc
    for k in up:
        where = where[k]
    value = where[key]
    if how == "again" and up[:1] == ["files"]:  # the entry listed again, at a new depth
        doc["files"].append({**where, "name": "d099-000.parquet", "depth": 99})
    elif how == "swap" and up and isinstance(up[-1], int):
        siblings = doc[up[0]]
        other = siblings[(up[-1] + 1) % len(siblings)]
        if key in other:
            where[key], other[key] = other[key], value
    elif isinstance(value, int):
        where[key] = {
            "+1": value + 1, "-1": value - 1, "str": str(value), "true": True,
            "huge": value + (1 << 40), "again": value, "swap": value,
        }[how]  # fmt: skip


@pytest.mark.slow
@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_changed_figure_is_refused_or_changes_nothing(folders: dict[str, Any], data: Any) -> None:
    table = data.draw(st.sampled_from(TABLES))
    doc = json.loads(folders["texts"][table])
    paths = data.draw(st.lists(st.sampled_from(_numbers(doc)), min_size=1, max_size=3))
    for path in paths:
        _change(doc, path, data.draw(st.sampled_from(CHANGES)))
    folder = folders["root"] / "attacked"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(folders["clean"], folder)
    (folder / table / "_manifest.json").write_text(json.dumps(doc))
    got = _answers(folder)
    for what, clean in folders["answers"].items():
        if what == "summary":  # the doctored table's row as it was, or left out
            rows = got[what]
            assert rows == clean or rows == [r for r in clean if r[0] != table], (paths, rows)
        elif what.endswith(f" {table}"):
            assert got[what] == clean or isinstance(got[what], type), (what, paths, got[what])
        else:
            assert got[what] == clean, (what, paths)
