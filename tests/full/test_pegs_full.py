"""The English board, outside CI: `make test-full`.

Checks the engine's first levels against independent searches, pins every
level's size from an independent bucketed count (tools/english33_count.py)
whose figures reproduce the published ones (the total 187,636,299 and the five
one-peg positions at depth 31), and builds the whole board through the
pipeline's bucketed engine, then verifies it (minutes and about 1 GB of
disk). --english33-depth sets how deep the engine's levels are checked (12).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import pipeline
from pipeline.engine import reference
from pipeline.puzzles import registry as puzzles
from tests.test_pegs import python_english_levels

pytestmark = pytest.mark.full

#: Positions after 0..31 jumps from the start, by tools/english33_count.py.
ENGLISH33_LEVELS = [
    *(1, 4, 12, 60, 296, 1338, 5648, 21842, 77559, 249690, 717788, 1834379),
    *(4138302, 8171208, 14020166, 20773236, 26482824, 28994876, 27286330, 22106348),
    *(15425572, 9274496, 4792664, 2120101, 800152, 255544, 68236, 14727, 2529, 334, 32, 5),
]
#: Of them, the positions that can still end with one peg in the centre: by the
#: duality in tools/english33_count.py, and the same from WinnablePuzzle with the
#: engine reading those levels (1,841,556 at the widest, depths 15 and 16).
ENGLISH33_WINNABLE = 13_428_122


def test_the_level_sizes_add_up_to_the_published_figures() -> None:
    assert len(ENGLISH33_LEVELS) == 32  # depths 0..31
    assert sum(ENGLISH33_LEVELS) == 187_636_299
    assert ENGLISH33_LEVELS[31] == 5


def test_engine_matches_a_plain_set_search() -> None:
    p = puzzles.get("english33")
    engine = [len(lv) for lv in itertools.islice(reference.search(p.roots(), p.expand, p.graph), 9)]
    assert engine == python_english_levels(8) == ENGLISH33_LEVELS[:9]


def test_engine_first_levels(english33_depth: int) -> None:
    # How deep: --english33-depth (levels 0..12, the default, peak at about 0.8 GB).
    p = puzzles.get("english33")
    levels = itertools.islice(reference.search(p.roots(), p.expand, p.graph), english33_depth + 1)
    assert [len(lv) for lv in levels] == ENGLISH33_LEVELS[: english33_depth + 1]


def test_english33_in_full(tmp_path: Path) -> None:
    db = pipeline.open(tmp_path)
    db.build(["english33-winnable"])  # builds english33 first
    assert [n for _, n in db.histogram("english33").rows()] == ENGLISH33_LEVELS
    last = db.longest("english33")["position"].to_list()
    holes = sorted(text.replace(" ", "").index("x") for text in last)
    assert holes == [1, 13, 16, 19, 31]
    assert db.verify("english33").ok
    assert (
        db.connection().execute('SELECT count(*) FROM "english33-winnable"').fetchone()[0]
        == ENGLISH33_WINNABLE
    )
    assert db.verify("english33-winnable").ok


def test_english33_game_counts(tmp_path: Path) -> None:
    # George Bell's counts for the central game (recreational-mathematics pages on
    # peg solitaire): 40,861,647,040,079,968 jump sequences win; 577,116,156,815,
    # 309,849,672 games in all, each ending in a position with no jump. The second
    # passes 2^64: DuckDB sums the DECIMAL(38,0) column exactly.
    db = pipeline.open(tmp_path)
    db.build(["english33"], paths=True)
    query = (Path(__file__).parent.parent / "queries" / "peg_games.sql").read_text()
    goal = "." * 16 + "x" + "." * 16
    wins, dead, positions = db.query(query, {"puzzle": "english33", "goal": goal}).row(0)
    assert int(wins) == 40_861_647_040_079_968
    assert int(dead) == 577_116_156_815_309_849_672 > 2**64
    assert positions == 162_352
    assert db.verify("english33").ok
