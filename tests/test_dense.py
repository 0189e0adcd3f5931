"""The dense engine (engine/dense.py): its rule, and its two strategies on one puzzle.

The rule picks the marks for at most four moves a state and the bitmaps for
more, each where the space has its kernels. A twisty search of four moves has
both (its state is its own rank): built by either strategy, by the sorting
path and by the reference executor, it gives the same files, each level the
count of our own breadth-first search.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from pipeline.build import loop, resident
from pipeline.engine import dense
from pipeline.engine.bitmaps import Bitmaps
from pipeline.engine.budget import rss
from pipeline.engine.marks import Marks
from pipeline.executors.local import executor as local
from pipeline.executors.sequential import SequentialExecutor
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.twisty import moves as twisty_moves
from pipeline.puzzles.twisty import tables
from pipeline.storage import format as storage_format
from pipeline.storage import writer
from tests.conftest import build_local, distances_from
from tests.test_twisty import TWSEARCH, puzzle

#: The pocket cube in quarter turns of two faces: U, U', R, R'.
TWO_FACES = {"moves": ["U", "R"], "quarter": True}


def test_the_rule_picks_the_marks_for_four_moves_and_the_bitmaps_for_more() -> None:
    tiles = puzzles.get("3x4").kernels.space  # type: ignore[union-attr]
    two = puzzle("pocket", **TWO_FACES).kernels.space  # type: ignore[union-attr]
    nine = puzzle("pocket").kernels.space  # type: ignore[union-attr]
    assert (tiles.moves, two.moves, nine.moves) == (4, 4, 9)
    assert dense.strategy(tiles) is Marks and tiles.bitmaps is None
    assert dense.strategy(two) is Marks and two.bitmaps is not None  # both: the moves decide
    assert dense.strategy(nine) is Bitmaps and nine.marks is None  # 9 moves: no two-bit tags
    assert int(nine.bitmaps.args[12]) == 729  # its blocks: the last orientation digit
    assert dense.strategy(dataclasses.replace(two, moves=5)) is Bitmaps
    assert dense.strategy(dataclasses.replace(two, marks=None)) is Bitmaps
    assert dense.strategy(dataclasses.replace(two, size=1 << 30)) is Bitmaps  # keys pass 32 bits
    assert dense.strategy(dataclasses.replace(tiles, moves=5)) is None
    # Kept for the build: the marks 5/8 of a byte a rank; the bitmaps three bits and a byte.
    assert dense.memory(tiles) == (479_001_600 // 2 + 479_001_600 // 8, Marks.SHARE)
    assert dense.memory(nine) == (3 * 57_409 * 8 + 3_674_160, Bitmaps.SHARE)


def _shas(folder: Path) -> list[str]:
    return [f["sha256"] for f in json.loads((folder / "_manifest.json").read_text())["files"]]


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> int:
    """Level files of 1,024 rows: the bitmaps' runs are then whole parts, which the
    build hands to the writers as they are (build/resident.py Output)."""
    for module in (storage_format, writer, resident, loop, local):
        monkeypatch.setattr(module, "FILE_ROWS", 1024)
    return 1024


def test_both_strategies_the_sort_and_the_reference_write_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_parts: int
) -> None:
    p = puzzle("pocket", **TWO_FACES)
    by_marks = build_local(p, tmp_path / "marks")
    with monkeypatch.context() as mp:
        mp.setattr(dense, "TAGS", 0)  # no move fits the marks' tags: the bitmaps
        by_bitmaps = build_local(p, tmp_path / "bitmaps")
    with monkeypatch.context() as mp:
        mp.setattr(dense, "strategy", lambda space: None)  # no strategy: sorted
        by_sort = build_local(p, tmp_path / "sorted")
    reference = loop.build(p, tmp_path / "reference", executor=SequentialExecutor(ranges=3))
    # Each depth as our own breadth-first search counts it (29,160 positions).
    moves = lambda s: p.expand(np.array([s], np.uint64))[1].tolist()  # noqa: E731
    depths = Counter(distances_from(p.solved, moves).values())
    want = [depths[d] for d in range(len(depths))]
    assert sum(want) == 29_160
    for m in (by_marks, by_bitmaps, by_sort, reference):
        assert [lv.positions for lv in m.levels] == want
    shas = _shas(tmp_path / "marks" / p.name)
    assert len(shas) > len(want)  # levels of several parts
    for other in ("bitmaps", "sorted", "reference"):
        assert _shas(tmp_path / other / p.name) == shas, other
    # How each level was made: the marks say dense; the bitmaps which way they went.
    assert all(lv.stats.get("dense") and "backward" not in lv.stats for lv in by_marks.levels[1:])
    # Forward only: the 3,674,160 ranks hold 29,160 positions, never fewer left than a
    # frontier (the rings of test_twisty.py fill theirs and end backwards).
    assert [lv.stats["backward"] for lv in by_bitmaps.levels[1:]] == [False] * (len(want) - 1)
    assert not any(lv.stats.get("dense") for lv in by_sort.levels)
    # The engine held each level it made: the build kept none but the first.
    assert [lv.depth for lv in by_bitmaps.levels if lv.stats.get("kept")] == [1]


@pytest.mark.parametrize(
    ("name", "computed"),
    [
        ("gate", False),  # moves blocked (Illegal lines)
        ("pocket", False),  # none blocked
        ("gate", True),  # its sets computed (tables.py), moves blocked
        ("mixed", True),  # its sets computed, none blocked
    ],
)
def test_the_bitmaps_forward_or_backward_at_every_level_write_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, computed: bool
) -> None:
    # Each way alone makes every level (the build goes forward, then backward once few
    # ranks are left): each state's smallest parent either way, moves blocked or not,
    # in blocks or (a set computed) each state alone.
    if computed:
        monkeypatch.setattr(tables, "MAX_ENTRIES", 0)
        monkeypatch.setattr(tables, "MAX_ARRANGED", 0)
        assert {t.kind for t in puzzle(name).tables.sets} == {tables.COMPUTED}
    files = {}
    for way in (False, True):
        with monkeypatch.context() as mp:
            mp.setattr(Bitmaps, "backward", lambda self, frontier, way=way: way)
            m = build_local(puzzle(name), tmp_path / str(way))
        assert {lv.stats["backward"] for lv in m.levels[1:]} == {way}
        assert [lv.positions for lv in m.levels] == TWSEARCH[name]
        files[way] = _shas(tmp_path / str(way) / name)
    assert files[False] == files[True]


def test_a_budget_that_affords_the_bitmaps_builds_by_them_with_little_work_left(
    tmp_path: Path,
) -> None:
    # About 150 MB of work: the bitmaps (5 MB for the pocket cube) are taken from it, and
    # the parts in flight of its widest levels (a budget's estimate: 226 MB for 1.9
    # million rows) leave less than a sorting step needs; the levels go by the bitmaps,
    # which need no more, as they did when the build ran them itself.
    memory = rss() + (406 << 20)  # a reserve of 256 MB, and the work
    m = build_local(puzzle("pocket"), tmp_path, memory=memory)
    assert [lv.positions for lv in m.levels] == TWSEARCH["pocket"]
    assert all(lv.stats.get("dense") for lv in m.levels[1:])


def test_path_counts_go_by_the_sort_and_a_partial_build_by_the_engine(tmp_path: Path) -> None:
    p = puzzle("mixed")
    counted = build_local(p, tmp_path / "paths", paths=True)
    assert counted.has_paths and not any(lv.stats.get("dense") for lv in counted.levels)
    assert [lv.positions for lv in counted.levels] == TWSEARCH["mixed"]
    part = build_local(p, tmp_path / "part", max_depth=4)
    assert part.partial_depth == 4
    assert [lv.positions for lv in part.levels] == TWSEARCH["mixed"][:5]
    assert all(lv.stats.get("dense") for lv in part.levels[1:])
    build_local(p, tmp_path / "whole")
    assert _shas(tmp_path / "part" / p.name) == _shas(tmp_path / "whole" / p.name)[:5]


@pytest.mark.parametrize(
    ("name", "entries", "block"),
    [
        ("mixed", twisty_moves.LOW_ENTRIES, 288),  # its last two sets' coordinates
        ("rings", twisty_moves.LOW_ENTRIES, 3_150),  # every set: the whole space
        ("mixed", 1, 1),  # a block of one state
    ],
)
def test_the_bitmaps_blocks_of_every_kind_write_the_sorting_paths_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, entries: int, block: int
) -> None:
    # A twisty state's moves summed once a block of states (puzzles/twisty/moves.py):
    # the same rows whatever the block. (The pocket cube's blocks are its last
    # orientation digit, 729 states: test_twisty.py holds its rows to the built-in
    # pocket table's.)
    monkeypatch.setattr(twisty_moves, "LOW_ENTRIES", entries)
    p = puzzle(name)
    assert int(p.kernels.space.bitmaps.args[12]) == block  # type: ignore[union-attr]
    m = build_local(p, tmp_path / "blocks")
    with monkeypatch.context() as mp:
        mp.setattr(dense, "strategy", lambda space: None)
        build_local(puzzle(name), tmp_path / "sorted")
    assert [lv.positions for lv in m.levels] == TWSEARCH[name]
    assert _shas(tmp_path / "blocks" / name) == _shas(tmp_path / "sorted" / name)
