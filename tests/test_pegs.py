"""Peg solitaire: the triangle's figures from PUZZLES.md, the English board's first levels."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.engine import reference
from pipeline.errors import BadPosition, PositionLost, UnknownPuzzle
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.pegs import board as pegs
from tests.conftest import column, one, run_cli

#: The jump table of PUZZLES.md, copied as printed there (from: (over, to) ...).
TRIANGLE_TABLE = """
0:(1,3)(2,5) 1:(3,6)(4,8) 2:(4,7)(5,9) 3:(1,0)(4,5)(6,10)(7,12) 4:(7,11)(8,13)
5:(2,0)(4,3)(8,12)(9,14) 6:(3,1)(7,8) 7:(4,2)(8,9) 8:(4,1)(7,6) 9:(5,2)(8,7)
10:(6,3)(11,12) 11:(7,4)(12,13) 12:(7,3)(8,5)(11,10)(13,14) 13:(8,4)(12,11)
14:(9,5)(13,12)
"""
ARTICLE = "(10,12)(13,11)(3,10,12,3)(1,6)(5,3)(6,1)(14,5)(2,9,7)(0,3,12)"
GOAL = ". . . . . . . . . . . . x . ."
START = "x x x x x x x x x x x x . x x"


run = run_cli


def one_jump_apart(board: pegs.Board, a: str, b: str) -> bool:
    x = puzzles.get(board.name).parse(a)
    y = puzzles.get(board.name).parse(b)
    return any(
        x & ((1 << f) | (1 << o) | (1 << t)) == (1 << f) | (1 << o)
        and x ^ ((1 << f) | (1 << o) | (1 << t)) == y
        for f, o, t in board.jumps
    )


def test_triangle_jumps_are_the_table_of_puzzles_md() -> None:
    printed = sorted(
        (int(src), int(o), int(t))
        for src, pairs in (e.split(":") for e in TRIANGLE_TABLE.split())
        for o, t in (p.split(",") for p in pairs.strip("()").split(")("))
    )
    assert pegs.TRIANGLE15.jumps == printed


def test_english_and_french_boards() -> None:
    e, f = pegs.ENGLISH33, pegs.FRENCH37
    assert (e.count, f.count) == (33, 37)
    assert e.holes[16] == (3, 6) and f.holes[18] == (3, 6)  # the centres
    assert len(e.jumps) == 76 and len(f.jumps) == 92
    start = puzzles.get("french37").root_texts[0].split()
    assert start.index(".") == 18 and start.count("x") == 36


def test_a_new_board_is_a_few_lines() -> None:
    # The 41-hole diamond: a picture and the steps of its lines.
    diamond = pegs.Board(
        "diamond41",
        "41-hole diamond",
        "\n".join(
            " " * (8 - 2 * n) + " ".join("o" * (2 * n + 1)) for n in (0, 1, 2, 3, 4, 3, 2, 1, 0)
        ),
        ((0, 2), (1, 0)),
        centre=20,
    )
    p = pegs.PegPuzzle(diamond)
    assert diamond.count == 41 and diamond.holes[20] == (4, 8)
    sizes = [len(lv) for lv in itertools.islice(reference.search(p.roots(), p.expand, p.graph), 3)]
    # 4 jumps into the centre; after each, 3 jumps fill each of the two emptied holes
    # (counted by hand: the diamond is wider than the cross there).
    assert sizes == [1, 4, 24]


def test_triangle15_positions_and_depths(db: pipeline.Database) -> None:
    assert one(db, "SELECT count(*) FROM triangle15") == 4237
    assert one(db, "SELECT max(depth) FROM triangle15") == 13
    hist = db.histogram("triangle15").rows()
    assert hist[0] == (0, 1) and hist[-1][0] == 13
    # Layered: the depth is the number of pegs removed.
    assert one(db, "SELECT count(*) FROM triangle15 WHERE bit_count(state) + depth <> 14") == 0
    assert "x . . . . . . . . . . . . . ." in db.longest("triangle15")["position"].to_list()


def test_triangle15_winnable(db: pipeline.Database) -> None:
    assert one(db, 'SELECT count(*) FROM "triangle15-winnable"') == 1428
    assert one(db, 'SELECT count(*) FROM "triangle15-status" WHERE winnable') == 1428
    assert one(db, 'SELECT count(*) FROM "triangle15-status"') == 4237
    # Depth there counts the jumps left: pegs - 1.
    assert (
        one(db, 'SELECT count(*) FROM "triangle15-winnable" WHERE bit_count(state) <> depth + 1')
        == 0
    )
    assert one(db, f"SELECT winnable('triangle15', state_of('triangle15', '{START}'))") is True
    lost = "x . . . . . . . . . . . . . ."  # one peg left, in the wrong hole
    assert one(db, f"SELECT winnable('triangle15', state_of('triangle15', '{lost}'))") is False


def test_winnable_set_is_backward_and_forward_reachable(db: pipeline.Database) -> None:
    # Independently: states reachable from the start that reach the goal by forward search.
    p = puzzles.get("triangle15")
    levels = list(reference.search(p.roots(), p.expand, p.graph))
    good = {p.goal}
    for lv in reversed(levels[:-1]):
        src, child = p.expand(lv.states)
        win = np.isin(child, np.array(sorted(good), dtype=np.uint64))
        good |= set(lv.states[np.unique(src[win])].tolist())
    found = set(column(db, 'SELECT state FROM "triangle15-winnable"'))
    assert found == good and len(good) == 1428


def test_the_articles_nine_move_solution_is_legal() -> None:
    board = pegs.TRIANGLE15
    line = pegs.play(board, puzzles.get("triangle15").parse(START), ARTICLE)
    assert line[-1] == 1 << 12 and len(line) == 14  # 13 jumps, one peg left in hole 12
    assert pegs.notation(board, line) == ARTICLE  # 9 groups, each one peg's run
    # Counted by the moves board's own move generators: 9 paid jumps, 4 free ones.
    m = puzzles.get("triangle15-moves")
    state, cost = m.roots()[0], 0
    for nxt in line[1:]:
        for expand, price in ((m.expand, 1), (m.expand_free, 0)):
            _, kids = expand(np.array([state], dtype=np.uint64))
            hit = kids[(kids & np.uint64(pegs.PEG_MASK)) == np.uint64(nxt)]
            if len(hit):
                state, cost = int(hit[0]), cost + price
                break
        else:
            pytest.fail("a jump of the article's line is not a move of triangle15-moves")
    assert cost == 9


def test_a_query_finds_nine_moves(db: pipeline.Database) -> None:
    sql = f"""SELECT min(depth) FROM "triangle15-moves"
              WHERE board('triangle15-moves', state) = '{GOAL}'"""
    assert one(db, sql) == 9
    assert (
        one(
            db,
            'SELECT count(*) FROM "triangle15-moves" '
            "WHERE depth < 9 AND bit_count(state & ((1::UBIGINT << 48) - 1)) = 1",
        )
        == 0
    )
    sol = db.solve("triangle15-moves", GOAL)
    assert sol.moves == 9 and sol.origin == "start"
    assert sol.notation is not None and sol.notation.count("(") == 9
    line = pegs.play(pegs.TRIANGLE15, puzzles.get("triangle15").parse(START), sol.notation)
    assert line[-1] == 1 << 12


def test_cli_prints_a_nine_move_line(data: Path) -> None:
    r = run("solve", "triangle15-moves", GOAL, "--oneline", data=data)
    assert r.returncode == 0, r.stderr
    head, line = r.stdout.splitlines()[:2]
    assert head.startswith("triangle15-moves: 9 moves from the start")
    notation = line.split(": ")[1]
    assert notation.count("(") == 9
    assert (
        pegs.play(pegs.TRIANGLE15, puzzles.get("triangle15").parse(START), notation)[-1] == 1 << 12
    )


def test_solve_a_winnable_position_gives_a_winning_line(db: pipeline.Database) -> None:
    p = puzzles.get("triangle15")
    position = column(
        db,
        "SELECT board('triangle15', state) FROM \"triangle15-status\" "
        "WHERE depth = 3 AND winnable ORDER BY state LIMIT 1",
    )[0]
    sol = db.solve("triangle15", position)
    assert sol.origin == "goal" and sol.path[0] == position and sol.path[-1] == GOAL
    assert sol.moves == 10  # 11 pegs, one left
    assert all(one_jump_apart(pegs.TRIANGLE15, a, b) for a, b in itertools.pairwise(sol.path))
    assert pegs.play(pegs.TRIANGLE15, p.parse(position), sol.notation or "")[-1] == p.goal
    assert db.solve("triangle15", START).moves == 13


def test_solve_says_when_a_position_is_lost(db: pipeline.Database, data: Path) -> None:
    lost = column(
        db,
        "SELECT board('triangle15', state) FROM \"triangle15-status\" "
        "WHERE NOT winnable ORDER BY depth, state LIMIT 1",
    )[0]
    with pytest.raises(PositionLost, match="lost"):
        db.solve("triangle15", lost)
    r = run("solve", "triangle15", lost, data=data)
    assert r.returncode == 1 and r.stdout == ""
    assert (
        r.stderr.startswith("puzzledb: ")
        and "is lost" in r.stderr
        and len(r.stderr.splitlines()) == 1
    )
    unreachable = "x x . x x x x x x x x x x x x"
    with pytest.raises(BadPosition, match="not reachable from the start"):
        db.solve("triangle15", unreachable)


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("x x x x x x x x x x x x . x", "expected 15 cells, got 14"),
        ("x x x x x x x x x x x x . x x x", "expected 15 cells, got 16"),
        ("x x x x x x x x x x x x o x x", "'o' is not a cell value"),
        ("xxxxxxxxxxxx1xx", "'1' is not a cell value"),
    ],
)
def test_bad_positions_are_rejected(data: Path, position: str, message: str) -> None:
    with pytest.raises(BadPosition, match=message):
        puzzles.get("triangle15").parse(position)
    r = run("solve", "triangle15", position, data=data)
    assert r.returncode == 1 and message in r.stderr and len(r.stderr.splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_typing_without_spaces_and_in_sql(db: pipeline.Database) -> None:
    p = puzzles.get("triangle15")
    assert p.parse("xxxxxxxxxxxx.xx") == p.parse(START) == (1 << 15) - 1 - (1 << 12)
    assert one(db, "SELECT state_of('triangle15', 'xxxx xxxx xxxx .xx')") == p.parse(START)
    drawn = one(db, f"SELECT drawing('triangle15', state_of('triangle15', '{START}'))")
    assert drawn == "    x\n   x x\n  x x x\n x x x x\nx x . x x"
    with pytest.raises(Exception, match="not a position"):
        one(db, "SELECT state_of('triangle15', 'xxxx')")


def test_other_start_holes() -> None:
    def sizes(name: str) -> list[int]:
        p = puzzles.get(name)
        return [len(lv) for lv in reference.search(p.roots(), p.expand, p.graph)]

    assert puzzles.get("triangle15@3").root_texts == ("x x x . x x x x x x x x x x x",)
    # Holes 3, 5 and 12 are turned into each other by the triangle's rotations,
    # and so are the corners 0, 10 and 14; a corner has two jumps into it.
    assert sizes("triangle15@3") == sizes("triangle15@5") == sizes("triangle15")
    corner = sizes("triangle15@0")
    assert corner == sizes("triangle15@10") == sizes("triangle15@14") and corner[:2] == [1, 2]
    assert puzzles.get("triangle15@12-winnable").requires == ("triangle15@12",)
    with pytest.raises(UnknownPuzzle):
        puzzles.get("triangle15@x")
    with pytest.raises(BadPosition, match=r"holes 0\.\.14"):
        puzzles.get("triangle15@15")


def test_the_manifest_documents_the_encoding(data: Path) -> None:
    m = json.loads((data / "triangle15-moves" / "_manifest.json").read_text())
    assert "bit i" in m["puzzle"]["encoding"] and "bits 48..55" in m["puzzle"]["encoding"]
    assert m["puzzle"]["last_jump_bits"] == [48, 55]
    w = json.loads((data / "triangle15-winnable" / "_manifest.json").read_text())
    assert w["puzzle"]["derived_from"] == "triangle15" and w["total"] == 1428


def python_english_levels(depths: int) -> list[int]:
    """Level sizes of the English board by a plain set search on (row, col) coordinates."""
    cells = [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]
    start = frozenset(cells) - {(3, 3)}
    level = {start}
    sizes = [1]
    for _ in range(depths):
        nxt = set()
        for pos in level:
            for r, c in pos:
                for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                    over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
                    if over in pos and to in cells and to not in pos:
                        nxt.add(pos - {(r, c), over} | {to})
        level = nxt
        sizes.append(len(level))
    return sizes


def test_english33_first_levels_match_an_independent_search() -> None:
    p = puzzles.get("english33")
    assert p.root_texts[0].split().index(".") == 16
    engine = [len(lv) for lv in itertools.islice(reference.search(p.roots(), p.expand, p.graph), 7)]
    assert engine == python_english_levels(6) == [1, 4, 12, 60, 296, 1338, 5648]


def test_moves_board_matches_an_independent_zero_one_search(db: pipeline.Database) -> None:
    # Dijkstra by hand on (pegs, last landing hole): a jump by the peg that
    # landed last is free, any other costs one move.
    import heapq

    jumps = pegs.TRIANGLE15.jumps
    start = (puzzles.get("triangle15").parse(START), -1)
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        d, (s, last) = heapq.heappop(heap)
        if d > dist[(s, last)]:
            continue
        for f, o, t in jumps:
            if s >> f & 1 and s >> o & 1 and not s >> t & 1:
                nxt = (s ^ (1 << f) ^ (1 << o) ^ (1 << t), t)
                cost = d + (0 if f == last else 1)
                if cost < dist.get(nxt, 99):
                    dist[nxt] = cost
                    heapq.heappush(heap, (cost, nxt))
    expected = {s | (last + 1) << 48: d for (s, last), d in dist.items()}
    got = dict(db.connection().execute('SELECT state, depth FROM "triangle15-moves"').fetchall())
    assert got == expected and len(got) == 13_235
    # Continuing jumps sit at their parent's depth, and verify accepts them.
    same = one(
        db,
        'SELECT count(*) FROM "triangle15-moves" c JOIN "triangle15-moves" p '
        "ON c.parent = p.state WHERE c.depth = p.depth",
    )
    assert same > 0
    assert db.verify("triangle15-moves").ok


def test_verify_rejects_a_parent_that_is_not_a_jump(data: Path, tmp_path: Path) -> None:
    from tests.test_store import _copy, _plant

    for name in ("triangle15", "triangle15-moves", "triangle15-winnable"):
        _copy(data, tmp_path, name)

    def shift_parent(level):
        parents = level.parents.copy()
        parents[3] = parents[3] ^ np.uint64(1)  # hole 0 flipped: no longer one jump away
        return type(level)(level.depth, level.states, parents)

    for name, depth in (("triangle15", 6), ("triangle15-moves", 5), ("triangle15-winnable", 6)):
        _plant(tmp_path, name, depth, shift_parent)
        report = pipeline.open(tmp_path).verify(name)
        assert not report.ok, name
        assert any("not one legal move up" in p for p in report.problems), report.problems


def test_show_draws_a_peg_position_with_its_depth(data: Path) -> None:
    r = run("show", "triangle15", "x . . . . . . . . . . . . . .", data=data)  # lost, but reachable
    assert r.returncode == 0, r.stderr
    assert r.stdout == "    x\n   . .\n  . . .\n . . . .\n. . . . .\npegs 1\ndepth 13\n"
    r = run("show", "triangle15-moves", GOAL, data=data)
    assert r.returncode == 0 and r.stdout.endswith("depth 9\n")


@pytest.mark.parametrize(
    "name", ["english33", "english33-sym", "english33-moves", "english33-moves-winnable"]
)
def test_kernels_grow_an_output_too_short(name: str) -> None:
    # Every peg kernel (jumps, classes, chains forwards and back) writes past an
    # output of one key by growing it: the keys of a roomy output, in a range too.
    p = puzzles.get(name)
    k = p.kernels
    level = list(itertools.islice(reference.search(p.roots(), p.expand, p.graph), 5))[-1]
    roomy = k.keys(level.states)
    assert len(roomy) > 4 * len(level)  # several keys a state
    assert np.array_equal(k.keys(level.states, buffer=np.empty(1, np.uint64)), roomy)
    mid = int(np.median(level.states))
    lo, hi = (
        k.keys(level.states, lo=mid),
        k.keys(level.states, lo=mid, buffer=np.empty(1, np.uint64)),
    )
    assert 0 < len(lo) < len(roomy) and np.array_equal(lo, hi)


def test_resolve_into_buffers_too_short_says_so() -> None:
    # The level step resolves into the buffer a sort left free and falls back to
    # room for every key when the children do not fit (lanes._span_resolver).
    p = puzzles.get("english33")
    levels = list(itertools.islice(reference.search(p.roots(), p.expand, p.graph), 6))
    k = p.kernels
    keys = np.sort(k.keys(levels[4].states))
    m = len(levels[5])

    def into(n: int) -> tuple | None:
        return k.resolve(keys, out=(np.empty(n, np.uint64), np.empty(n, np.uint64)))

    assert into(m - 1) is None
    children, parents = into(m)
    assert children.tolist() == levels[5].states.tolist()
    assert parents.tolist() == levels[5].parents.tolist()
