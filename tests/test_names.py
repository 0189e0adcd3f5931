"""Names built from parts (pipeline/puzzles/names.py): other goals (``3x3@4``) and tables
from a root the user types (``3x3~<hash>``), built for real and read back by name."""

from __future__ import annotations

import hashlib
import json
from collections import deque
from pathlib import Path

import pytest

import pipeline
from pipeline.errors import BadPosition, UnknownPuzzle
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.names import root_hash
from tests.conftest import column, one, run_cli
from tests.test_multi import python_slides

#: The article's deepest 8-puzzle, typed as a root.
ROOT = "8 6 7 2 5 4 3 0 1"
ROOT_HASH = hashlib.sha256(ROOT.encode()).hexdigest()[:8]
#: Hex board neighbours as PUZZLES.md prints them.
HEX = {0: (1, 2, 3), 1: (0, 3, 4), 2: (0, 3, 5), 3: (0, 1, 2, 4, 5, 6), 4: (1, 3, 6)}
HEX |= {5: (2, 3, 6), 6: (3, 4, 5)}


def graph_levels(goal: tuple[int, ...], neighbours: dict[int, tuple[int, ...]]) -> list[int]:
    """Positions per depth by a plain breadth-first search over tuples (single slides)."""
    depth = {goal: 0}
    queue = deque([goal])
    while queue:
        b = queue.popleft()
        z = b.index(0)
        for j in neighbours[z]:
            c = list(b)
            c[z], c[j] = c[j], 0
            t = tuple(c)
            if t not in depth:
                depth[t] = depth[b] + 1
                queue.append(t)
    top = max(depth.values())
    return [sum(1 for d in depth.values() if d == k) for k in range(top + 1)]


def grid(rows: int, cols: int) -> dict[int, tuple[int, ...]]:
    out = {}
    for b in range(rows * cols):
        r, c = divmod(b, cols)
        out[b] = tuple(
            (r + dr) * cols + c + dc
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
            if 0 <= r + dr < rows and 0 <= c + dc < cols
        )
    return out


@pytest.fixture(scope="module")
def names_db(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Database:
    db = pipeline.open(tmp_path_factory.mktemp("names"))
    db.build(["3x3@4", "3x3@1", "hex6@3", "3x3-multi@4"])
    db.build(["3x3", "3x3-multi", "triangle15"])
    db.build(["3x3", "3x3-multi"], root=ROOT)
    db.build(["triangle15"], root="x x x x x x x x x x x x . x x")
    return db


def test_goal_names() -> None:
    p = puzzles.get("3x3@4")
    assert p.root_texts == ("1 2 3 4 0 5 6 7 8",)
    assert puzzles.get("3x3@1").root_texts == ("1 0 2 3 4 5 6 7 8",)
    assert puzzles.get("hex6@3").root_texts == ("1 2 3 0 4 5 6",)
    m = puzzles.get("3x3-multi@4")
    assert m.root_texts == p.root_texts and m.graph is puzzles.get("3x3-multi").graph
    assert puzzles.get("2x7").cells.count == 14  # any rectangle up to 16 cells
    for name in ("2x3-multi", "4x4-multi", "2x7-multi@0"):
        assert puzzles.get(name).name == name
    for bad in ("3x3@9", "hex6-multi", "3x3-winnable", "1x9", "5x4"):
        with pytest.raises(UnknownPuzzle):
            puzzles.get(bad)


@pytest.mark.parametrize(
    ("name", "longest", "count"),
    [("3x3@4", 30, 148), ("3x3@1", 31, 2), ("hex6@3", 15, 34)],
)
def test_other_goals(names_db: pipeline.Database, name: str, longest: int, count: int) -> None:
    # PUZZLES.md section 8: blank in the centre, 30 moves at most; on an edge, 31.
    total = 5040 if name.startswith("hex6") else 181_440
    assert one(names_db, f'SELECT count(*) FROM "{name}"') == total
    assert one(names_db, f'SELECT max(depth) FROM "{name}"') == longest
    hist = [
        n
        for _, n in names_db.connection()
        .execute(f'SELECT depth, count(*) FROM "{name}" GROUP BY ALL ORDER BY 1')
        .fetchall()
    ]
    goal = tuple(map(int, puzzles.get(name).root_texts[0].split()))
    assert hist == graph_levels(goal, HEX if name.startswith("hex6") else grid(3, 3))
    assert hist[-1] == count


def test_goal_parity_is_checked_against_the_goal(names_db: pipeline.Database) -> None:
    # The blank-last goal's parity rule does not hold for 3x3@4: the check follows the goal.
    p = puzzles.get("3x3@4")
    p.parse("1 2 3 4 5 0 6 7 8")  # one move from its goal
    with pytest.raises(BadPosition, match="wrong parity"):
        p.parse("2 1 3 4 0 5 6 7 8")
    sol = names_db.solve("3x3@4", "0 1 2 3 4 5 6 7 8")
    assert sol.path[-1] == "1 2 3 4 0 5 6 7 8"
    assert sol.moves == one(
        names_db, "SELECT depth FROM \"3x3@4\" WHERE state = state_of('3x3@4', '0 1 2 3 4 5 6 7 8')"
    )


def test_multi_with_another_goal(names_db: pipeline.Database) -> None:
    assert one(names_db, 'SELECT max(depth) FROM "3x3-multi@4"') == 24
    deepest = names_db.longest("3x3-multi@4")["position"].to_list()
    assert len(deepest) == 4
    # Independent: a plain search from the goal with list slides.
    goal = tuple(map(int, puzzles.get("3x3-multi@4").root_texts[0].split()))
    depth = {goal: 0}
    frontier = [goal]
    while frontier:
        nxt = []
        for b in frontier:
            for c in python_slides(b, 3, 3):
                if c not in depth:
                    depth[c] = depth[b] + 1
                    nxt.append(c)
        frontier = nxt
    far = sorted(" ".join(map(str, b)) for b, d in depth.items() if d == 24)
    assert sorted(deepest) == far


def test_root_tables_are_named_by_a_hash_of_the_root(names_db: pipeline.Database) -> None:
    assert root_hash(ROOT) == ROOT_HASH
    built = set(names_db.built())
    assert {f"3x3~{ROOT_HASH}", f"3x3-multi~{ROOT_HASH}"} <= built
    # Enumerated from the root: the goal of 3x3 is 31 moves away, as the article says.
    name = f"3x3~{ROOT_HASH}"
    goal_depth = one(
        names_db,
        f"SELECT depth FROM \"{name}\" WHERE state = state_of('{name}', '1 2 3 4 5 6 7 8 0')",
    )
    assert goal_depth == 31
    assert one(names_db, f'SELECT count(*) FROM "{name}"') == 181_440
    assert one(names_db, f'SELECT count(*) FROM "{name}" WHERE depth = 0') == 1
    assert column(names_db, f"SELECT board('{name}', state) FROM \"{name}\" WHERE depth = 0") == [
        ROOT
    ]
    sol = names_db.solve(name, "1 2 3 4 5 6 7 8 0")
    assert sol.moves == 31 and sol.path[-1] == ROOT
    multi = f"3x3-multi~{ROOT_HASH}"
    d = one(
        names_db,
        f"SELECT depth FROM \"{multi}\" WHERE state = state_of('{multi}', '1 2 3 4 5 6 7 8 0')",
    )
    assert d == one(
        names_db, f"SELECT depth FROM \"3x3-multi\" WHERE state = state_of('3x3-multi', '{ROOT}')"
    )


def test_a_peg_root(names_db: pipeline.Database) -> None:
    start = "x x x x x x x x x x x x . x x"
    name = f"triangle15~{root_hash(start)}"
    # From the usual start, the same positions as triangle15 at the same depths.
    same = one(
        names_db,
        f'SELECT count(*) FROM "{name}" a JOIN triangle15 b USING (state) WHERE a.depth = b.depth',
    )
    assert same == one(names_db, "SELECT count(*) FROM triangle15") == 4237
    sol = names_db.solve(name, ". . . . . . . . . . . . x . .")
    assert sol.moves == 13 and sol.origin == "start" and sol.path[-1] == start


def test_root_tables_resolve_from_their_manifest(names_db: pipeline.Database) -> None:
    name = f"3x3~{ROOT_HASH}"
    with pytest.raises(UnknownPuzzle):
        puzzles.get(name)  # without the data folder it cannot be known
    p = names_db.puzzle(name)
    assert p.root_texts == (ROOT,)
    manifest = json.loads((names_db.data / name / "_manifest.json").read_text())
    assert manifest["puzzle"]["roots"] == [ROOT]
    assert names_db.verify(name).ok
    listed = {p.name for p in names_db.known_puzzles()}
    assert {name, "3x3@4", f"3x3-multi~{ROOT_HASH}"} <= listed


def test_root_cli(tmp_path: Path) -> None:
    r = run_cli("build", "2x3", "--root", "5 4 3 2 1 0", data=tmp_path)
    assert r.returncode == 0, r.stderr
    name = f"2x3~{root_hash('5 4 3 2 1 0')}"
    r = run_cli("list", data=tmp_path)
    assert any(line.split()[:3] == [name, "bipartite", "yes"] for line in r.stdout.splitlines())
    r = run_cli("verify", name, data=tmp_path)
    assert r.returncode == 0 and "ok (360 positions" in r.stdout
    # Typed with commas and extra spaces: the same root, the same table.
    r = run_cli("build", "2x3", "--root", " 5,4, 3 2 1 0", data=tmp_path)
    assert r.returncode == 0 and name in r.stderr
    for args, message in [
        (["build", "2x3", "--root", "5 4 3 2 1 1"], "each of 0..5 must appear once"),
        (["build", "2x3", "--root", "5 4 3"], "expected 6 cells"),
        (["build", "2x3@1", "--root", "5 4 3 2 1 0"], "without @"),
        (["build", "oshidori", "--root", "B W B W B W . ."], "sliding boards and peg boards"),
    ]:
        r = run_cli(*args, data=tmp_path)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    # Rebuilt by its name alone, from the root its manifest records.
    r = run_cli("build", name, "--force", data=tmp_path)
    assert r.returncode == 0, r.stderr


def test_every_registry_name_resolves_to_its_puzzle() -> None:
    for name, p in puzzles.REGISTRY.items():
        assert puzzles.get(name) is p
    for group in puzzles.GROUPS:
        assert [puzzles.get(t).name for t in puzzles.expand_names([group])] == puzzles.GROUPS[group]
    composed = ("triangle15@3", "triangle15@3-winnable", "english33@16", "french37@0-winnable")
    for name in (*composed, "3x3@4", "3x3-multi@4", "hex6@3", "2x7", "2x7-multi@0"):
        assert puzzles.get(name).name == name
    # One grammar for every family: a cell written with a leading zero names the same table.
    assert puzzles.get("3x3@04").name == "3x3@4"
    assert puzzles.get("triangle15@03").name == "triangle15@3"
    for bad in ("english33-sym@3", "triangle15-moves@2", "oshidori@1", "triangle15-winnable@3"):
        with pytest.raises(UnknownPuzzle):
            puzzles.get(bad)
