"""Path counts, knight's tours and the magic triangle (issue 5), through queries."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import pipeline
from pipeline.puzzles import registry as puzzles

QUERIES = Path(__file__).resolve().parent.parent / "queries"


@pytest.fixture(scope="module")
def pdb(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Database:
    """Tables built with the paths column."""
    db = pipeline.open(tmp_path_factory.mktemp("paths"))
    db.build(["2x3", "2x4", "3x3", "2x5", "knight14", "magic9"], paths=True)
    return db


def brute_force_paths(name: str) -> dict[str, int]:
    """Shortest-path counts from the goal by a plain Python BFS over typed boards."""
    p = puzzles.get(name)
    start = tuple(p.cells.values(p.roots()[0]))
    depth = {start: 0}
    count = {start: 1}
    frontier = [start]
    while frontier:
        nxt = []
        for board in frontier:
            b = board.index(0)
            for j in p.adjacency[b]:
                child = list(board)
                child[b], child[j] = child[j], 0
                c = tuple(child)
                if c not in depth:
                    depth[c] = depth[board] + 1
                    count[c] = 0
                    nxt.append(c)
                if depth[c] == depth[board] + 1:
                    count[c] += count[board]
        frontier = nxt
    return {" ".join(map(str, k)): v for k, v in count.items()}


def test_paths_equal_a_brute_force_count_on_2x3(pdb: pipeline.Database) -> None:
    got = dict(
        pdb.connection()
        .execute("SELECT board('2x3', state), paths::UBIGINT FROM \"2x3\"")
        .fetchall()
    )
    expected = brute_force_paths("2x3")
    assert len(got) == len(expected) == 360
    assert got == expected
    assert max(expected.values()) > 1  # a figure that could be wrong


def test_longest_positions_have_their_published_numbers_of_solutions(
    pdb: pipeline.Database,
) -> None:
    def longest(name: str, depth: int) -> dict[str, int]:
        rows = (
            pdb.connection()
            .execute(f"SELECT board('{name}', state), paths FROM \"{name}\" WHERE depth = {depth}")
            .fetchall()
        )
        return {b: int(n) for b, n in rows}

    assert longest("2x4", 36) == {"0 7 2 1 4 3 6 5": 24}
    assert longest("3x3", 31) == {"8 6 7 2 5 4 3 0 1": 40, "6 4 7 8 5 0 3 2 1": 40}
    assert longest("2x5", 55) == {"0 9 3 7 1 5 4 8 2 6": 52, "0 5 3 2 1 9 4 8 7 6": 8}


def test_paths_column_is_exact_decimal_in_every_reader(pdb: pipeline.Database) -> None:
    import polars as pl
    import pyarrow.dataset as ds

    folder = pdb.data / "2x5"
    assert (
        pdb.connection().execute('SELECT typeof(paths) FROM "2x5" LIMIT 1').fetchone()[0]
        == "DECIMAL(38,0)"
    )
    total = pdb.connection().execute('SELECT sum(paths) FROM "2x5"').fetchone()[0]
    lf = pl.scan_parquet(str(folder / "*.parquet")).select(pl.col("paths").sum()).collect()
    assert int(lf.item()) == int(total)
    assert str(ds.dataset(folder).schema.field("paths").type) == "decimal128(38, 0)"


def test_verify_checks_path_counts(pdb: pipeline.Database) -> None:
    for name in ("2x5", "knight14", "magic9"):
        report = pdb.verify(name)
        assert report.ok, report.problems
        assert "path counts equal the sums over every move from the level above" in report.checks


def test_knight14_adjacency_is_the_published_one() -> None:
    published = {
        0: {5, 6}, 1: {2, 7}, 2: {1, 9}, 3: {7, 8, 10}, 4: {6, 9, 11}, 5: {0, 10},
        6: {0, 4, 10, 12}, 7: {1, 3, 9, 13}, 8: {3, 13}, 9: {2, 4, 7}, 10: {3, 5, 6},
        11: {4, 12}, 12: {6, 11}, 13: {7, 8},
    }  # fmt: skip
    adjacency = puzzles.get("knight14").adjacency
    assert {i: set(a) for i, a in enumerate(adjacency)} == published


def test_knight14_has_one_closed_tour_both_ways(pdb: pipeline.Database) -> None:
    tours = [
        r[0]
        for r in pdb.connection().execute((QUERIES / "knight_tours.sql").read_text()).fetchall()
    ]
    tour = "0 6 12 11 4 9 2 1 7 13 8 3 10 5 0"
    assert sorted(tours) == sorted([tour, " ".join(reversed(tour.split()))])
    directed = (
        pdb.connection()
        .execute(
            "SELECT sum(paths) FROM knight14 WHERE depth = 13 "
            "AND list_position(cells('knight14', state), 2) - 1 IN (5, 6)"
        )
        .fetchone()[0]
    )
    assert directed == 2


def test_magic9_solutions(pdb: pipeline.Database) -> None:
    rows = pdb.connection().execute((QUERIES / "magic_solutions.sql").read_text()).fetchall()
    by_sum = Counter(s for s, _ in rows)
    assert dict(by_sum) == {17: 2, 19: 4, 20: 6, 21: 4, 23: 2}
    assert sorted(p for s, p in rows if s == 20) == [
        "1 6 8 5 2 4 9 3 7",
        "2 4 9 5 1 6 8 3 7",
        "2 6 7 5 3 4 8 1 9",
        "3 4 8 5 2 6 7 1 9",
        "4 2 9 5 1 8 6 3 7",
        "4 3 8 5 2 7 6 1 9",
    ]


def test_a_table_without_paths_is_rebuilt_with_them(tmp_path: Path) -> None:
    db = pipeline.open(tmp_path)
    db.build(["2x3"])
    assert "paths" not in db.table("2x3").manifest.columns
    db.build(["2x3"], paths=True)
    assert db.table("2x3").has_paths
    assert db.connection().execute('SELECT max(paths) FROM "2x3"').fetchone()[0] > 1


# The triangle's jumps as PUZZLES.md prints them: from: (over, to) ...
TRIANGLE_JUMPS = """0:(1,3)(2,5) 1:(3,6)(4,8) 2:(4,7)(5,9) 3:(1,0)(4,5)(6,10)(7,12) 4:(7,11)(8,13)
5:(2,0)(4,3)(8,12)(9,14) 6:(3,1)(7,8) 7:(4,2)(8,9) 8:(4,1)(7,6) 9:(5,2)(8,7)
10:(6,3)(11,12) 11:(7,4)(12,13) 12:(7,3)(8,5)(11,10)(13,14) 13:(8,4)(12,11)
14:(9,5)(13,12)"""


def brute_force_games(start_empty: int, goal_hole: int) -> tuple[int, int]:
    """(wins, dead-end games) of the triangle by a memoised depth-first count."""
    import re
    from functools import cache

    jumps = []
    for frm, pairs in re.findall(r"(\d+):((?:\(\d+,\d+\))+)", TRIANGLE_JUMPS):
        for over, to in re.findall(r"\((\d+),(\d+)\)", pairs):
            jumps.append((int(frm), int(over), int(to)))

    @cache
    def games(pegs: int) -> tuple[int, int]:
        wins = dead = 0
        for a, b, c in jumps:
            if pegs >> a & 1 and pegs >> b & 1 and not pegs >> c & 1:
                w, d = games(pegs ^ (1 << a) ^ (1 << b) ^ (1 << c))
                wins += w
                dead += d
        if wins == dead == 0:  # no legal jump: the game ends here
            return (1 if pegs == 1 << goal_hole else 0), 1
        return wins, dead

    return games(((1 << 15) - 1) ^ (1 << start_empty))


def test_triangle15_game_counts(tmp_path: Path) -> None:
    db = pipeline.open(tmp_path)
    db.build(["triangle15"], paths=True)
    query = (QUERIES / "peg_games.sql").read_text()
    wins, dead, positions = db.query(
        query, {"puzzle": "triangle15", "goal": "............x.."}
    ).row(0)
    assert (int(wins), int(dead)) == brute_force_games(12, 12) == (51_452, 1_149_568)
    assert positions == 142
    assert db.verify("triangle15").ok


def test_a_planted_wrong_path_count_fails_verify(
    pdb: pipeline.Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check expands the level above in pieces (tiny ones here, so many):
    # each piece's sums add up, and one count off by one is reported.
    from pipeline.verify import window as verify
    from tests.test_store import _copy, _plant

    monkeypatch.setattr(verify, "PATHS_PIECE", 97)
    _copy(pdb.data, tmp_path, "3x3")

    def one_more(level):
        paths = level.counts.copy()
        paths[3] += 1
        return type(level)(level.depth, level.states, level.parents, paths)

    assert pipeline.open(tmp_path).verify("3x3").ok
    _plant(tmp_path, "3x3", 12, one_more)
    report = pipeline.open(tmp_path).verify("3x3")
    assert any("depth 12: 1 path counts wrong" in p for p in report.problems), report.problems
