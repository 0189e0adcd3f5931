"""Verify of layered tables one level at a time (pipeline/verify/stream.py): the
same findings as the windowed checks of pipeline/verify/checks.py, on good and on
damaged tables, with levels read in several chunks on two threads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.engine.core import NO_PARENT, absent
from pipeline.puzzles import registry as puzzles
from pipeline.storage import writer
from pipeline.verify import checks as verify_mod
from pipeline.verify import moves as verify_moves
from pipeline.verify import stream as verify_stream
from tests.test_store import _copy, _plant


def test_absent_sorted_agrees_with_a_binary_search() -> None:
    rng = np.random.default_rng(7)
    for n, m in ((0, 5), (5, 0), (1, 1), (1000, 50), (50, 1000), (20_000, 20_000)):
        held = np.unique(rng.integers(0, 3 * max(m, 1), m, dtype=np.uint64))
        values = rng.integers(0, 3 * max(m, 1) + 5, n, dtype=np.uint64)
        miss = absent(values, held)
        count, one = verify_stream.absent_count(values.copy(), held)
        assert count == int(miss.sum())
        assert (one is None) == (count == 0)
        if one is not None:
            assert one in set(values[miss].tolist())
    top = np.array([2**64 - 1], np.uint64)
    assert verify_stream.absent_count(top, top) == (0, None)
    assert verify_stream.absent_count(top, np.array([0, 2**63], np.uint64)) == (1, 2**64 - 1)


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """english33 to depth 10: 717,788 rows at depth 10, three row groups."""
    folder = tmp_path_factory.mktemp("english10")
    pipeline.open(folder).build(["english33"], max_depth=10)
    return folder


def _windowed(db: pipeline.Database, name: str, monkeypatch: pytest.MonkeyPatch):
    with monkeypatch.context() as m:
        m.setattr(verify_mod, "streams", lambda puzzle, table: False)
        return db.verify(name)


def test_streamed_and_windowed_agree_on_a_good_table(
    english: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verify_stream, "CHUNK", 1)  # a row group a chunk
    db = pipeline.open(english)
    assert verify_mod.streams(puzzles.get("english33"), db.table("english33"))
    levels: list[int] = []
    streamed = db.verify("english33", on_level=levels.append)
    assert streamed.ok, streamed.problems
    assert levels == list(range(11))
    assert streamed.positions == db.table("english33").manifest.total
    windowed = _windowed(db, "english33", monkeypatch)
    assert windowed.ok
    assert (streamed.positions, streamed.levels, streamed.checks) == (
        windowed.positions,
        windowed.levels,
        windowed.checks,
    )


def _damage(tmp_path: Path, english: Path, depth: int, change) -> pipeline.Database:
    _copy(english, tmp_path, "english33")
    _plant(tmp_path, "english33", depth, change)
    return pipeline.open(tmp_path)


def _level(level, states, parents):
    return type(level)(level.depth, states, parents)


DAMAGES = {
    # a parent flipped in one hole: not one jump away
    "parent": (7, lambda lv: _level(lv, lv.states, _flip(lv.parents, 3)), "not one legal move up"),
    # a position dropped: the moves into it lead nowhere
    "dropped": (6, lambda lv: _level(lv, lv.states[1:], lv.parents[1:]), "moves lead more than"),
    # a row repeated
    "repeat": (
        5,
        lambda lv: _level(lv, np.repeat(lv.states, 2)[1:-1], np.repeat(lv.parents, 2)[1:-1]),
        "not strictly increasing",
    ),
    # a row without a parent below the roots
    "orphan": (8, lambda lv: _level(lv, lv.states, _set(lv.parents, 9, NO_PARENT)), "without a"),
    # a row with a parent among the roots (a position after one jump, at depth 0)
    "rooted": (0, lambda lv: _with_child_of_root(lv), "0: 1 parents are not one legal move up"),
}


def _with_child_of_root(level):
    child = puzzles.get("english33").expand(level.states)[1][:1]
    states = np.concatenate([level.states, child])
    parents = np.concatenate([level.parents, level.states[:1]])
    order = np.argsort(states)
    return _level(level, states[order], parents[order])


def _flip(parents: np.ndarray, i: int) -> np.ndarray:
    out = parents.copy()
    out[i] ^= np.uint64(1 << 16)
    return out


def _set(parents: np.ndarray, i: int, value) -> np.ndarray:
    out = parents.copy()
    out[i] = value
    return out


@pytest.mark.parametrize("damage", DAMAGES)
def test_streamed_and_windowed_find_the_same_damage(
    english: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    monkeypatch.setattr(verify_stream, "CHUNK", 1)
    depth, change, words = DAMAGES[damage]
    db = _damage(tmp_path, english, depth, change)
    streamed = db.verify("english33")
    windowed = _windowed(db, "english33", monkeypatch)
    assert not streamed.ok and any(words in p for p in streamed.problems), streamed.problems

    # The same problems; a closure's example may be another of the moves that miss.
    def gist(problems: list[str]) -> list[str]:
        return sorted(p.split(", e.g. to ")[0] for p in problems)

    assert gist(streamed.problems) == gist(windowed.problems)


def test_a_wrong_root_is_found(english: Path, tmp_path: Path) -> None:
    db = _damage(tmp_path, english, 0, lambda lv: _level(lv, lv.states ^ np.uint64(1), lv.parents))
    report = db.verify("english33")
    assert any("not exactly the puzzle's roots" in p for p in report.problems)
    assert any("depth 1: 4 parents are not one legal move up" in p for p in report.problems)


@pytest.mark.parametrize("name", ["english33", "french37", "triangle15"])
def test_one_jump_agrees_with_expanding_the_parent(name: str) -> None:
    p = puzzles.get(name)
    rng = np.random.default_rng(3)
    holes = p.board.count
    parents = rng.integers(0, 1 << holes, 20_000, dtype=np.uint64)
    src, kids = p.expand(parents)
    assert len(kids) > 50_000
    # every real jump, the same jump reversed, and children swapped between parents
    pairs = [
        (parents[src], kids),
        (kids, parents[src]),
        (parents[src], np.roll(kids, 1)),
        (parents, parents ^ rng.integers(0, 1 << holes, len(parents), dtype=np.uint64)),
    ]
    for a, b in pairs:
        assert np.array_equal(p.is_move(a, b), verify_moves.one_move(p.expand, a, b))
    assert p.is_move(parents[src], kids).all()
    assert not p.is_move(kids, parents[src]).any()


def test_a_wrong_depth_column_is_found(
    english: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQL reads the depth column, not the manifest: one row off is a problem."""
    fill = writer._scratch.depths

    def one_off(n: int, depth: int) -> np.ndarray:
        out = fill(n, depth).copy()
        out[4] = depth + 1
        return out

    with monkeypatch.context() as m:
        m.setattr(writer._scratch, "depths", one_off)
        db = _damage(tmp_path, english, 6, lambda lv: lv)
    at7 = db.table("english33").manifest.histogram()[7][1]
    assert db.query("SELECT count(*) FROM english33 WHERE depth = 7").item() == at7 + 1
    line = "depth 6: 1 rows of d006-000.parquet say another depth in the depth column (e.g. 7)"
    assert db.verify("english33").problems == [line]
    assert _windowed(db, "english33", monkeypatch).problems == [line]
