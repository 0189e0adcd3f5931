"""Pattern databases built by the engine, and the IDA* solver that uses them.

Small boards only (3x3 and 2x5 partitions build in about a second); their full
tables (the session's `data` fixture) give the true distances to check against.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import pipeline
from benchmarks.korf import from_korf, read_instances
from pipeline.errors import NotBuilt
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.tiles.patterns import PARTITIONS
from pipeline.solvers import optimal
from pipeline.solvers.loop15 import apply_moves, is_solvable
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def pdb_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with the 3x3 and 2x5 pattern databases, built by the CLI group name."""
    folder = tmp_path_factory.mktemp("pdb")
    r = cli("build", "2x5-pdb", "3x3-pdb", data=folder)
    assert r.returncode == 0, r.stderr
    return folder


cli = run_cli


def full_table(db: pipeline.Database, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(cells as an (N, n) array of tiles, depth) of every position of a full table."""
    t = pipeline.open(db.data).query(f'SELECT state, depth FROM "{name}"')  # own connection
    states = t["state"].to_numpy().astype(np.uint64)
    n = puzzles.get(name).cells.count
    shifts = np.arange(n, dtype=np.uint64) * np.uint64(4)
    cells = ((states[:, None] >> shifts) & np.uint64(15)).astype(np.int64)
    return cells, t["depth"].to_numpy().astype(np.int64)


def test_pattern_tables_are_complete_and_verified(pdb_data: Path) -> None:
    db = pipeline.open(pdb_data)
    # 10*9*8*7*6 placements of 5 tiles, times the 5 cells left for the blank.
    assert db.table("2x5-pdb-5").manifest.total == 151_200
    assert db.table("2x5-pdb-4").manifest.total == 10 * 9 * 8 * 7 * 6
    assert db.table("3x3-pdb-4a").manifest.total == 9 * 8 * 7 * 6 * 5
    report = db.verify("2x5-pdb-5")
    assert report.ok, report.problems
    # Listed in the catalog like any table, with the codec of its own encoding.
    names = {r[0] for r in db.connection().execute("SELECT name FROM puzzles").fetchall()}
    assert {"2x5-pdb-4", "2x5-pdb-5", "3x3-pdb-4a", "3x3-pdb-4b"} <= names
    root = db.connection().execute(
        "SELECT board('2x5-pdb-5', state) FROM \"2x5-pdb-5\" WHERE parent IS NULL"
    )
    assert root.fetchall() == [("0 1 2 5 6 9",)]  # tiles 1 2 3 6 7 at home, blank in cell 9


def test_pattern_depth_counts_only_pattern_moves(pdb_data: Path) -> None:
    db = pipeline.open(pdb_data)
    # Blank anywhere among the free cells of the goal: no pattern tile moved, depth 0.
    depth0 = (
        db.connection().execute('SELECT count(*) FROM "2x5-pdb-5" WHERE depth = 0').fetchone()[0]
    )
    assert depth0 == 5
    # Tile 3 one cell right of home (cell 3), blank in its home cell 2: one move.
    state = puzzles.get("2x5-pdb-5").parse("0 1 3 5 6 2")
    assert db.table("2x5-pdb-5").find(state).depth == 1
    assert db.depth("2x5-pdb-5", "0 1 3 5 6 2") == 1
    shown = cli("show", "2x5-pdb-5", "0 1 3 5 6 2", data=pdb_data).stdout
    assert shown == "1:0 2:1 3:3 6:5 7:6 blank:2\ndepth 1\n"
    # Its walk to the root: the paid move, then free moves of the blank to cell 9.
    walk = [puzzles.get("2x5-pdb-5").text(h.state) for h in db.table("2x5-pdb-5").walk(state)]
    assert walk[:2] == ["0 1 3 5 6 2", "0 1 2 5 6 3"] and walk[-1] == "0 1 2 5 6 9"


def test_pattern_databases_are_admissible_and_additive(
    db: pipeline.Database, pdb_data: Path
) -> None:
    # Against the 2x5 full database: the sum over the partition never exceeds
    # the true distance, on every one of its 1,814,400 positions.
    cells, depth = full_table(db, "2x5")
    n = 10
    where = np.argsort(cells, axis=1)  # where[:, t] = cell of tile t
    solver = pipeline.open(pdb_data).pattern_solver("2x5")
    total = np.zeros(len(depth), np.int64)
    for p in optimal.patterns("2x5"):
        arr = optimal.load_compact(pipeline.open(pdb_data).table(p.name), p)
        idx = sum(where[:, t] * n**i for i, t in enumerate(p.tiles))
        total += arr[idx]
    assert int((total > depth).sum()) == 0
    assert int((total == depth).sum()) > 10_000  # and often exact
    assert total.mean() > 0.6 * depth.mean()
    assert solver.heuristic(list(cells[np.argmax(depth)])) <= 55


@pytest.mark.parametrize("board", ["3x3", "2x5"])
def test_ida_lengths_equal_the_full_database(
    db: pipeline.Database, pdb_data: Path, board: str
) -> None:
    solver = pipeline.open(pdb_data).pattern_solver(board)
    p = puzzles.get(board)
    db = pipeline.open(db.data)  # a connection of its own
    rows = (
        db.connection()
        .execute(f'SELECT state, depth FROM "{board}" USING SAMPLE 40 ROWS (reservoir, 7)')
        .fetchall()
    )
    rows += (
        db.connection()
        .execute(f'SELECT state, depth FROM "{board}" WHERE depth >= 30 LIMIT 10')
        .fetchall()
    )
    for state, depth in rows:
        cells = p.cells.values(state)
        r = solver.solve(cells)
        assert r.moves == depth, p.text(state)
        goal = [*range(1, len(cells)), 0]
        board_now = list(cells)
        for t in r.tiles:  # every move legal: the tile is next to the blank
            z, j = board_now.index(0), board_now.index(t)
            assert j in p.adjacency[z]
            board_now[z], board_now[j] = t, 0
        assert board_now == goal


def test_solve_with_method_optimal_on_the_cli(pdb_data: Path) -> None:
    r = cli("solve", "2x5", "0 9 3 7 1 5 4 8 2 6", "--method", "optimal", "--moves", data=pdb_data)
    assert r.returncode == 0, r.stderr
    first, tiles = r.stdout.splitlines()
    assert first.startswith("2x5: 55 moves to the goal (optimal, pattern databases")
    assert len(tiles.split()) == 2 + 55
    doc = json.loads(
        cli(
            "solve", "3x3", "8 6 7 2 5 4 3 0 1", "--method", "optimal", "--json", data=pdb_data
        ).stdout
    )
    assert doc["moves"] == 31 and doc["method"] == "optimal" and doc["heuristic"] == "4-4"
    assert doc["path"][-1] == "1 2 3 4 5 6 7 8 0" and len(doc["tiles"]) == 31


def test_optimal_builds_its_databases_on_first_use(tmp_path: Path) -> None:
    r = cli("solve", "3x3", "6 4 7 8 5 0 3 2 1", "--method", "optimal", data=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("3x3: 31 moves")
    assert (tmp_path / "3x3-pdb-4a" / "_manifest.json").exists()
    assert (tmp_path / "3x3-pdb-4a" / optimal.COMPACT).exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "3x4", "1 2 3 4 5 6 7 8 9 10 0 11"], "puzzledb build 3x4"),
        (["solve", "hex6", "1 2 3 4 5 6 0", "--method", "optimal"], "no pattern databases"),
        (["solve", "3x3", "1 2 3 4 5 6 7 8 0", "--method", "fast"], "unknown method"),
        (["solve", "3x3", "1 2 3 4 5 6 8 7 0", "--method", "optimal"], "wrong parity"),
        (["solve", "3x3", "1 2 3 4 5 6 7 8", "--method", "optimal"], "expected 9 cells"),
        (["solve", "3x3", "1 2 3 4 5 6 7 8 0", "--method", "loop"], "4x4 board only"),
        (["solve", "4x4", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15", "--method", "loop"], "once"),
        (["build", "5x5-pdb"], "unknown puzzle"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    r = cli(*args, data=tmp_path)
    assert r.returncode == 1
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr


def test_loop_method_on_the_cli(tmp_path: Path) -> None:
    rng = random.Random(11)
    for _ in range(3):
        cells = list(range(16))
        rng.shuffle(cells)
        if not is_solvable(cells):
            cells[0], cells[1] = cells[1], cells[0]
            if not is_solvable(cells):  # the swap involved the blank
                cells[2], cells[3] = cells[3], cells[2]
        text = " ".join(map(str, cells))
        r = cli("solve", "4x4", text, "--method", "loop", "--moves", data=tmp_path)
        assert r.returncode == 0, r.stderr
        first, tiles = r.stdout.splitlines()
        count = int(first.split()[1])
        assert first.startswith("4x4: ") and "loop method" in first
        moves = [int(t) for t in tiles.removeprefix("tiles slid: ").split()]
        assert len(moves) == count > 100
        assert apply_moves(cells, moves) == (*range(1, 16), 0)
    r = cli(
        "solve", "4x4", "2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 0", "--method", "loop", data=tmp_path
    )
    assert r.returncode == 1
    assert "unsolvable" in r.stderr and "other-parity" in r.stderr


def test_korf_conversion(tmp_path: Path) -> None:
    ours_goal = [*range(1, 16), 0]
    assert from_korf(list(range(16))) == ours_goal
    # A move in Korf's board is a move in ours: the map is a board isomorphism.
    korf = list(range(16))
    korf[0], korf[1] = korf[1], korf[0]  # tile 1 slid left into the blank's cell
    assert from_korf(korf) == [*range(1, 15), 0, 15]
    korf = list(range(16))
    korf[0], korf[4] = korf[4], korf[0]  # tile 4 slid up
    assert from_korf(korf) == [*range(1, 12), 0, 13, 14, 15, 12]
    text = "# Korf 1985\n1 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3\n"
    path = tmp_path / "korf.txt"
    path.write_text(text)
    first = read_instances(path)[0]
    assert first[0] == 1
    assert first[1] == [14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3]
    assert from_korf(first[1]) == [13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2]
    assert is_solvable(from_korf(first[1]))
    with pytest.raises(ValueError):
        from_korf([1] * 16)


def test_partitions_cover_each_board() -> None:
    for board, parts in PARTITIONS.items():
        r, c = (int(x) for x in board.split("x"))
        tiles = sorted(t for ts in parts.values() for t in ts)
        assert tiles == list(range(1, r * c)), board


def test_auto_method_choice(db: pipeline.Database, tmp_path: Path) -> None:
    from pipeline.solvers.choose import pick

    assert pick("auto", "3x3", built=True) == "table"
    assert pick("auto", "4x4", built=False) == "optimal"  # never built here: pattern databases
    assert pick("optimal", "3x3", True) == "optimal" and pick("loop", "3x3", True) == "loop"
    assert pick("auto", "3x4", built=False) == "table"  # not built: NotBuilt names it
    with pytest.raises(NotBuilt, match="puzzledb build 3x4"):
        pipeline.open(tmp_path).solve_by("3x4", "1 2 3 4 5 6 7 8 9 10 11 0")
    sol = db.solve_by("3x3", "8 6 7 2 5 4 3 0 1")
    assert sol.method == "table" and sol.moves == 31 and len(sol.tiles) == 31


def test_the_4x4_build_cost_matches_its_measured_build() -> None:
    """The warning before a first 4x4 solve: issue #34 measured 4 min 38 s and 2.2 GB."""
    cost = optimal.build_cost(optimal.patterns("4x4"))
    assert cost == "at most 115,358,880 positions, about 2.05 GiB on disk and about 5 minutes"
