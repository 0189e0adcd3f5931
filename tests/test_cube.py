"""The pocket cube: figures through queries, an independent facelet search, typed positions."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import pipeline
from pipeline.errors import BadPosition
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.cube.board import POCKET, POCKET_QTM, SOLVED
from tests.conftest import column, one, run_cli

#: Positions per depth of the pocket cube with one corner fixed (the literature's
#: tables; the totals, deepest levels and their counts are in PUZZLES.md).
HTM = [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
QTM = [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536]
QTM += [90280, 276]


@pytest.mark.parametrize(
    ("name", "counts", "deepest", "there"),
    [("pocket", HTM, 11, 2644), ("pocket-qtm", QTM, 14, 276)],
)
def test_positions_per_depth(
    db: pipeline.Database, name: str, counts: list[int], deepest: int, there: int
) -> None:
    q = f'SELECT depth, count(*) FROM "{name}" GROUP BY depth ORDER BY depth'
    assert [n for _, n in db.connection().execute(q).fetchall()] == counts
    assert one(db, f'SELECT count(*) FROM "{name}"') == 3_674_160 == 5040 * 3**6
    assert one(db, f'SELECT max(depth) FROM "{name}"') == deepest
    assert one(db, f'SELECT count(*) FROM "{name}" WHERE depth = {deepest}') == there
    assert [r for r in db.summary().rows() if r[0] == name] == [
        (name, 3_674_160, deepest, there, None)
    ]


# --- an independent search on facelets -------------------------------------
# The 24 facelets in net order (U R F D L B, each face row by row), and each
# quarter turn as sticker cycles written out by hand from the net: the sticker
# on the first facelet of a cycle moves to the second, and so on.
FACE = {f: 4 * i for i, f in enumerate("URFDLB")}


def _at(name: str) -> int:
    return FACE[name[0]] + int(name[1])


CYCLES = {
    "U": ["U0 U1 U3 U2", "F0 L0 B0 R0", "F1 L1 B1 R1"],
    "R": ["R0 R1 R3 R2", "F1 U1 B2 D1", "F3 U3 B0 D3"],
    "F": ["F0 F1 F3 F2", "U2 R0 D1 L3", "U3 R2 D0 L1"],
}


SOLVED_FACELETS = "".join(c * 4 for c in "URFDLB")


def _facelet_map(cycles: list[str]) -> list[int]:
    """The sticker on facelet f moves to map[f]: each cycle's facelets move one along."""
    to = list(range(24))
    for cycle in cycles:
        cells = [_at(c) for c in cycle.split()]
        for a, b in zip(cells, cells[1:] + cells[:1], strict=True):
            to[a] = b
    return to


def _quarter(face: str) -> list[int]:
    """A clockwise quarter turn (seen from outside the face)."""
    return _facelet_map(CYCLES[face])


def _turned(colours: str, to: list[int]) -> str:
    out = [""] * 24
    for f, c in enumerate(colours):
        out[to[f]] = c
    return "".join(out)


def _levels(metric: str, depth: int) -> list[set[str]]:
    """Breadth-first levels of facelet strings, by the hand-written turns."""
    moves = []
    for q in (_quarter(f) for f in "URF"):
        half = [q[q[i]] for i in range(24)]
        moves += [q, [q[half[i]] for i in range(24)]] + ([half] if metric == "htm" else [])
    levels = [{SOLVED_FACELETS}]
    seen = set(levels[0])
    while len(levels) <= depth:
        nxt = {_turned(s, m) for s in levels[-1] for m in moves} - seen
        seen |= nxt
        levels.append(nxt)
    return levels


@pytest.mark.parametrize(("name", "depth"), [("pocket", 5), ("pocket-qtm", 6)])
def test_first_levels_equal_a_facelet_search(db: pipeline.Database, name: str, depth: int) -> None:
    p = puzzles.get(name)
    levels = _levels("htm" if name == "pocket" else "qtm", depth)
    for d, expected in enumerate(levels):
        states = column(db, f'SELECT state FROM "{name}" WHERE depth = {d}')
        assert {p.facelets(s) for s in states} == expected
        assert {p.parse(f) for f in expected} == set(states)


def test_half_turn_metric_has_same_level_edges(db: pipeline.Database) -> None:
    # solved -> U -> U2 -> solved is a triangle: U and U2 both at depth 1, one turn apart.
    u, u2 = POCKET.from_moves("U"), POCKET.from_moves("U2")
    assert POCKET.from_moves("U U") == u2
    q = f"SELECT depth FROM pocket WHERE state IN ({u}, {u2})"
    assert column(db, q) == [1, 1]
    assert POCKET.graph == "reversible" and POCKET_QTM.graph == "bipartite"


def test_quarter_turn_depth_parity_is_the_corner_permutation_parity(
    db: pipeline.Database,
) -> None:
    rows = (
        db.connection()
        .execute('SELECT state, depth FROM "pocket-qtm" USING SAMPLE 2000 ROWS')
        .fetchall()
    )
    assert len(rows) == 2000
    assert all(POCKET_QTM.depth_parity(s) == d % 2 for s, d in rows)


# --- solving ------------------------------------------------------------------
@pytest.mark.parametrize(("name", "deepest"), [("pocket", 11), ("pocket-qtm", 14)])
def test_random_scrambles_solve_back_to_solved(
    db: pipeline.Database, name: str, deepest: int
) -> None:
    p = puzzles.get(name)
    rng = random.Random(16)
    turns = [f + s for f in "URF" for s in ("", "2", "'")]
    for _ in range(25):
        scramble = " ".join(rng.choice(turns) for _ in range(rng.randint(1, 30)))
        state = p.from_moves(scramble)
        sol = db.solve(name, state)
        assert sol.moves <= deepest
        assert sol.moves == db.depth(name, state)
        assert sol.states[0] == state and sol.states[-1] == SOLVED
        assert sol.notation is not None
        # The printed turns, applied after the scramble, give solved.
        assert p.from_moves(f"{scramble} {sol.notation}") == SOLVED
        quarters = sum(2 if t.endswith("2") else 1 for t in sol.notation.split())
        assert (len(sol.notation.split()) if name == "pocket" else quarters) == sol.moves


def test_a_known_position_and_its_solution(db: pipeline.Database) -> None:
    sol = db.solve("pocket", POCKET.from_moves("R U R' U'"))
    assert sol.moves == 4 and sol.notation == "U R U' R'"
    sol = db.solve("pocket-qtm", POCKET_QTM.from_moves("R2 U2"))
    assert sol.moves == 4 and sol.notation == "U2 R2"


# --- typed positions ------------------------------------------------------------
def test_typed_forms_round_trip(db: pipeline.Database) -> None:
    rng = random.Random(3)
    states = column(db, "SELECT state FROM pocket USING SAMPLE 200 ROWS")
    for s in [SOLVED, *rng.sample(states, 50)]:
        assert POCKET.parse(POCKET.facelets(s)) == s
        assert POCKET.parse(POCKET.text(s)) == s
        assert POCKET.parse(POCKET.facelets(s).lower()) == s
    assert POCKET.facelets(SOLVED) == "UUUURRRRFFFFDDDDLLLLBBBB"
    assert POCKET.text(SOLVED) == "URF UFL ULB UBR DFR DLF DRB"
    assert POCKET.parse("UUUU RRRR FFFF DDDD LLLL BBBB") == SOLVED


def test_sql_macros_read_the_cube_like_python(db: pipeline.Database) -> None:
    states = column(db, "SELECT state FROM pocket WHERE depth = 3 ORDER BY state LIMIT 20")
    for s in states:
        text = one(db, f"SELECT board('pocket', {s})")
        assert text == POCKET.text(s)
        assert one(db, f"SELECT state_of('pocket', '{text}')") == s
        assert one(db, f"SELECT drawing('pocket', {s})") == POCKET.draw(s)
        assert one(db, f"SELECT cells('pocket', {s})") == POCKET.cells.values(s)


def test_the_net(data: Path) -> None:
    r = run_cli("show", "pocket", "--turns", "R", data=data)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "     U F\n     U F\nL L  F D  R R  U B\nL L  F D  R R  U B\n     D B\n     D B\ndepth 1\n"
    )


def test_cli_solve_prints_standard_notation(data: Path) -> None:
    r = run_cli("solve", "pocket", "--turns", "R U R' U'", "--oneline", data=data)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "pocket: 4 moves to the goal (optimal)"
    assert lines[1] == "line to the goal: U R U' R'"
    assert lines[-1].endswith("URF UFL ULB UBR DFR DLF DRB")
    facelets = POCKET.facelets(POCKET.from_moves("F2 R'"))
    r = run_cli("solve", "pocket-qtm", facelets, "--json", data=data)
    assert r.returncode == 0, r.stderr
    assert '"notation": "R F2"' in r.stdout and '"moves": 3' in r.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["UUUURRRRFFFFDDDDLLLLBBB"], "expected 24 facelet colours"),
        (["R U D"], "expected 24 facelet colours"),
        (["UUUURRRRFFFFDDDDLLLLBBBX"], "'X' is not a colour"),
        (["UUUUURRRFFFFDDDDLLLLBBBB"], "each colour must show on 4 facelets: U 5, R 3"),
        (["RUUURURRFFFFDDDDLLLLBBBB"], "no corner has these colours"),
        (["URF UFL ULB UBR DFR DLF URF"], "must show once: URF shows twice"),
        (["FUR UFL ULB UBR DFR DLF DRB"], "the twists sum to 1"),
        (["URF UFL ULB UBR DFR DLF DBL"], "'DBL' is not a cell value"),
        (["R U D", "--turns"], "'D' turns the fixed corner DBL"),
        (["R X", "--turns"], "'X' is not a turn"),
    ],
)
def test_bad_positions_get_one_line(data: Path, args: list[str], message: str) -> None:
    r = run_cli("solve", "pocket", *args, data=data)
    assert r.returncode == 1
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and message in r.stderr, r.stderr


def test_fixed_corner_elsewhere_gets_one_line(data: Path) -> None:
    # Solved, then a D turn (clockwise seen from below): a real cube, but the
    # corner D-B-L has left its place, so it is held the wrong way.
    d_turn = _facelet_map(["D0 D1 D3 D2", "F2 R2 B2 L2", "F3 R3 B3 L3"])
    r = run_cli("show", "pocket", _turned(SOLVED_FACELETS, d_turn), data=data)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1
    assert "the fixed corner DBL (colours D, B, L) is at DLF" in r.stderr
    # The corner D-B-L at home but turned a third in place.
    with pytest.raises(BadPosition, match="DBL is twisted in place"):
        POCKET.parse(_turned(SOLVED_FACELETS, _facelet_map(["D2 B3 L2"])))


def test_turns_on_a_board_without_turns_gets_one_line(data: Path) -> None:
    r = run_cli("show", "3x3", "--turns", "1 2 3 4 5 6 7 8 0", data=data)
    assert r.returncode == 1
    assert (
        r.stderr.strip()
        == "puzzledb: 3x3: positions cannot be typed as turns (the pocket cube's can)"
    )
