"""`solve` of a twisty puzzle too large to tabulate, through the API and the CLI: an
optimal solution by search over its pattern tables (built on first use: the service
names them, the API builds them), a position no move reaches refused in one line, a
long search's progress and Ctrl-C.

The puzzle is crossed.tws (two rings of 22 distinct beads, 22! positions) with three
four-bead pattern tables (tests/data/twisty/crossed.toml: seconds to build). The
figures are held to a bidirectional breadth-first search of this file's own over
the beads as tuples: no pattern table, no ranks, no kernel.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

import pipeline
from pipeline.answers import SearchProgress
from pipeline.errors import BadMethod, BadPosition, NotBuilt
from pipeline.puzzles.twisty import tws
from pipeline.puzzles.twisty.board import TwistyPuzzle
from pipeline.service.solving import Needs
from pipeline.solvers import twisty_search
from tests.conftest import one_line_error, run_cli

DEFS = Path(__file__).parent / "data" / "twisty"
TABLES = ["crossed-pdb-cross", "crossed-pdb-b", "crossed-pdb-a"]


def add_crossed(data: Path) -> pipeline.Database:
    """A data folder with crossed's spec kept (its tables not built)."""
    db = pipeline.open(data)
    assert db.add_spec(DEFS / "crossed.toml") == ["crossed"]
    return db


@pytest.fixture(scope="module")
def crossed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """crossed's spec and its three pattern tables, built by a first solve."""
    data = tmp_path_factory.mktemp("crossed")
    db = add_crossed(data)
    told: list[str] = []
    sol = db.solve_by("crossed", db.from_turns("crossed", "A B"), on_build=told.append)
    assert told == [
        "building crossed's pattern tables first, once: crossed-pdb-cross, crossed-pdb-b, "
        "crossed-pdb-a (526,680 positions)"
    ]
    assert sol.notation == "B' A'" and sol.method == "search"
    assert db.built() == sorted(TABLES)
    return data


# -- a search of our own --------------------------------------------------------------
def beads_moves() -> dict[str, tuple[int, ...]]:
    """Each turn of crossed.tws as a permutation of the positions (the bead at j comes
    from perm[j]), from the file's two moves alone."""
    d = tws.read(DEFS / "crossed.tws")
    out = {}
    for t in d.turns:
        out[t.name] = tuple(t.parts[0].perm)  # sources, from 0
    return out


def moved(beads: tuple[int, ...], perm: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(beads[s] for s in perm)


def ball(start: tuple[int, ...], moves: list[tuple[int, ...]], depth: int) -> dict:
    seen = {start: 0}
    frontier = [start]
    for k in range(1, depth + 1):
        nxt = []
        for b in frontier:
            for m in moves:
                c = moved(b, m)
                if c not in seen:
                    seen[c] = k
                    nxt.append(c)
        frontier = nxt
    return seen


def bidirectional(start: tuple[int, ...], solved_ball: dict, half: int, moves: list) -> int:
    """The fewest turns from ``start`` to solved, at most ``2 * half`` (every turn's
    inverse is a turn: the ball around solved is the ball of distances to it)."""
    best = min((d for s, d in solved_ball.items() if s == start), default=None)
    if best is not None:
        return best
    mine = ball(start, moves, half)
    return min(d + solved_ball[s] for s, d in mine.items() if s in solved_ball)


def scramble(rng: random.Random, n: int, turns: dict[str, tuple[int, ...]]) -> list[str]:
    """Turns of the two rings in turn (no two of one ring in a row)."""
    rings = {r: [t for t in turns if t[0] == r] for r in "AB"}
    first = rng.choice("AB")
    return [rng.choice(rings["AB"[("AB".index(first) + i) % 2]]) for i in range(n)]


def test_solutions_are_optimal_and_solve(crossed: Path) -> None:
    db = pipeline.open(crossed)
    p = db.puzzle("crossed")
    turns = beads_moves()
    moves = list(turns.values())
    solved = tuple(range(22))
    around = ball(solved, moves, 4)
    rng = random.Random(7)
    lengths = []
    for n in (5, 6, 7, 8, 8, 11, 13):
        names = scramble(rng, n, turns)
        sol = db.solve("crossed", db.from_turns("crossed", " ".join(names)))
        beads = solved
        for name in names:  # the position in our own terms: the turns applied to solved
            beads = moved(beads, turns[name])
        after = beads
        for name in (sol.notation or "").split():
            after = moved(after, turns[name])
        assert after == solved  # the solution solves it
        assert sol.moves == len(sol.states) - 1 <= n
        assert sol.states[-1] == p.solved and sol.path[-1] == p.text(p.solved)
        if n <= 8:
            assert sol.moves == bidirectional(beads, around, 4, moves)
        lengths.append(sol.moves)
    assert lengths == [5, 6, 7, 8, 8, 11, 13]


def test_a_position_typed_as_a_block_or_a_compact_line(crossed: Path) -> None:
    db = pipeline.open(crossed)
    p = db.puzzle("crossed")
    state = p.from_moves("A B2 A'")
    for typed in (p.block(state), p.text(state), f"CPOS {p.text(state)}", state):
        sol = db.solve_by("crossed", typed)
        assert sol.moves == 3 and sol.states[0] == state
        assert sol.notation == "A B2' A'"  # B2' is B10: the file's turn names


def test_the_cli_prints_the_solution_and_its_length(crossed: Path) -> None:
    r = run_cli("solve", "crossed", "--turns", "A B2 A' B", data=crossed)
    assert r.returncode == 0, r.stderr
    head, line = r.stdout.strip().splitlines()
    assert head.startswith(
        "crossed: 4 moves to the goal (optimal, proven by IDA* over its pattern tables "
        "crossed-pdb-cross, crossed-pdb-b, crossed-pdb-a; "
    )
    assert line == "B' A B2' A'"
    r = run_cli("solve", "crossed", "--turns", "", data=crossed)
    assert r.stdout.strip().splitlines()[1] == "(solved)"


def test_a_position_no_move_reaches_is_one_line(tmp_path: Path) -> None:
    """The cube's positions are checked before anything is built: no table here."""
    add_crossed(tmp_path)
    block = "CORNERS\n1 2 3 4 5 6 7 8\n0 0 0 0 0 0 0 0\nEDGES\n2 1 3 4 5 6 7 8 9 10 11 12\n"
    r = run_cli("solve", "cube3", block + "0 0 0 0 0 0 0 0 0 0 0 0", data=tmp_path)
    one_line_error(r, "not a position of cube3", "odd arrangement", "two pieces are swapped")
    twisted = "CORNERS\n1 2 3 4 5 6 7 8\n0 0 0 0 0 0 0 1\nEDGES\n1 2 3 4 5 6 7 8 9 10 11 12\n"
    r = run_cli("solve", "cube3", twisted + "0 0 0 0 0 0 0 0 0 0 0 0", data=tmp_path)
    one_line_error(r, "orientations sum to 1")
    assert not (tmp_path / "cube3-pdb-corners").exists()


def test_missing_tables_are_named_and_not_built_with_no_build(tmp_path: Path) -> None:
    db = add_crossed(tmp_path)
    with pytest.raises(NotBuilt) as e:
        db.solve_by("crossed", db.from_turns("crossed", "A"), build=False)
    assert "crossed-pdb-cross, crossed-pdb-b, crossed-pdb-a are not built" in str(e.value)
    r = run_cli("solve", "crossed", "--turns", "A", "--no-build", data=tmp_path)
    one_line_error(r, "crossed is solved by search over its pattern tables", "--no-build")
    with pytest.raises(BadMethod, match="has no table of its own"):
        db.solve_by("crossed", db.from_turns("crossed", "A"), method="table")
    assert db.built() == []


def test_a_long_search_reports_progress_and_stops_on_ctrl_c(
    crossed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(twisty_search, "FIRST_SLICE", 1000)
    monkeypatch.setattr(twisty_search, "SLICE_SECONDS", 0.0)
    db = pipeline.open(crossed)
    two_swapped = " ".join(map(str, [2, 1, *range(3, 23)]))  # far: no ring turns two
    seen: list[SearchProgress] = []

    def stop(p: SearchProgress) -> None:
        seen.append(p)
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        db.solve_by("crossed", f"BEAD\n{two_swapped}", on_search=stop)
    assert [p.nodes for p in seen] == sorted(p.nodes for p in seen) and seen[0].nodes >= 1000
    bounds = [p.bound for p in seen]
    assert bounds == sorted(bounds) and bounds[0] >= 3  # two beads of crossed-pdb-cross swapped


def test_the_cli_stops_a_search_on_ctrl_c_with_one_line(crossed: Path, tmp_path: Path) -> None:
    """A real SIGINT to a real process, after its progress lines began."""
    import signal
    import subprocess
    import sys
    import time

    env_data = tmp_path / "d"
    shutil.copytree(crossed, env_data)
    two_swapped = "BEAD\n" + " ".join(map(str, [2, 1, *range(3, 23)]))
    code = (
        "import sys; from pipeline.cli import bars; bars.SEARCH_QUIET = 0.0; bars.INTERVAL = 0.0;"
        "from pipeline.cli.app import main; main()"
    )
    args = [sys.executable, "-c", code, "solve", "crossed", two_swapped, "--data", str(env_data)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()  # a progress line: the search is under way
    assert first.startswith("crossed: searching depth "), first
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    last = err.strip().splitlines()[-1]
    assert last.startswith("puzzledb: crossed: search stopped at depth ") and "nodes" in last
    assert "Traceback" not in err


def test_db_solve_answers_for_a_searched_puzzle(crossed: Path) -> None:
    db = pipeline.open(crossed)
    sol = db.solve("crossed", db.from_turns("crossed", "B A"))
    assert sol.notation == "A' B'" and sol.moves == 2
    with pytest.raises(BadPosition, match="the pieces are not the solved state's"):
        db.solve("crossed", "BEAD\n" + " ".join(["1"] * 22))


# -- distance, random, histogram and longest ------------------------------------------
def test_the_distance_between_two_positions_is_searched(crossed: Path) -> None:
    db = pipeline.open(crossed)
    turns = beads_moves()
    moves = list(turns.values())
    rng = random.Random(3)
    for n, k in ((6, 3), (9, 4), (4, 0)):
        first = scramble(rng, n, turns)
        second = first + scramble(rng, k, turns)
        a, b = (db.from_turns("crossed", " ".join(x)) for x in (first, second))
        found = db.distance("crossed", a, b)
        beads_a, beads_b = tuple(range(22)), tuple(range(22))
        for name in first:
            beads_a = moved(beads_a, turns[name])
        for name in second:
            beads_b = moved(beads_b, turns[name])
        around_b = ball(beads_b, moves, 2)  # every turn undone by a turn: a ball both ways
        mine = ball(beads_a, moves, 2)
        want = min(d + around_b[s] for s, d in mine.items() if s in around_b)
        assert found.moves == want <= k and found.method == "search"
        assert db.distance("crossed", b, a).moves == found.moves
    r = run_cli("distance", "crossed", "--turns", "A B", "A", data=crossed)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == (
        'crossed: 1 move from "A B" to "A" (turns from solved; optimal, by search over its '
        "pattern tables crossed-pdb-cross, crossed-pdb-b, crossed-pdb-a: the length of A^-1 B)"
    )


def test_random_positions_are_uniform_over_the_group(crossed: Path) -> None:
    db = pipeline.open(crossed)
    p = db.puzzle("crossed")
    picked = [p.block(db.state("crossed", db.random_position("crossed", s))) for s in range(440)]
    beads = [list(map(int, text.split("\n")[1].split())) for text in picked]
    assert len({tuple(b) for b in beads}) == 440
    first = [b[0] for b in beads]
    assert set(first) == set(range(1, 23))  # 20 expected of each bead
    assert max(first.count(x) for x in range(1, 23)) < 45
    from pipeline.puzzles.base import parity

    odd = sum(parity([x - 1 for x in b]) for b in beads)  # the group is all of S22
    assert 170 < odd < 270
    assert db.random_position("crossed", 5) == db.random_position("crossed", 5)
    r = run_cli("random", "crossed", "--seed", "5", data=crossed)
    assert r.returncode == 0 and r.stdout.startswith("BEAD ")
    one_line_error(run_cli("random", "3x3", data=crossed), "give --depth")


def test_histogram_and_longest_name_the_pattern_tables(crossed: Path) -> None:
    for command in ("histogram", "longest"):
        r = run_cli(command, "crossed", data=crossed)
        one_line_error(
            r,
            "crossed is solved by search, not tabulated",
            "crossed-pdb-cross, crossed-pdb-b, crossed-pdb-a",
        )
    db = pipeline.open(crossed)
    assert sum(db.histogram("crossed-pdb-cross")["positions"].to_list()) == 22 * 21 * 20 * 19


def test_a_stronger_set_of_tables_is_searched_once_built(crossed: Path) -> None:
    """A puzzle declaring a stronger set of pattern tables (as the cube declares its
    seven-edge ones) is searched over the first such set whose tables are all built,
    else over its own; the same optimal length either way."""
    db = pipeline.open(crossed)
    base = db.puzzle("crossed")
    assert isinstance(base, TwistyPuzzle)
    a, b = (next(q for q in base.patterns if q.label == k) for k in "ab")
    wants = TwistyPuzzle(base.definition, "crossed", patterns=base.patterns, stronger=[(a, b)])
    assert wants.stronger_tables == (("crossed-pdb-a", "crossed-pdb-b"),)
    state = db.from_turns("crossed", "A B A")
    stronger, own = db.solvers.searcher(wants), db.solvers.searcher(base)
    assert not isinstance(stronger, Needs) and not isinstance(own, Needs)
    assert stronger.tables == ("crossed-pdb-a", "crossed-pdb-b")
    assert sorted(own.tables) == sorted(TABLES)
    assert stronger.solve(state).moves == own.solve(state).moves == 3


def test_a_pattern_table_verifies_beside_the_array_its_search_derived(crossed: Path) -> None:
    """The search keeps each table's depths beside its files (``_depths-mod3.npy``):
    verify takes it for the table's own, not a stray file."""
    assert (crossed / "crossed-pdb-a" / "_depths-mod3.npy").exists()
    r = run_cli("verify", "crossed-pdb-a", data=crossed)
    assert r.returncode == 0 and "175,560" in r.stdout, r.stdout
