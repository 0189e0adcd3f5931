"""Peg boards in moves, one row a board (peg_chains.py): the triangle against
triangle15-moves, the English board's first levels against a count in plain Python."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import pipeline
from pipeline.engine.core import absent
from pipeline.puzzles.pegs import board as pegs
from pipeline.puzzles.pegs import chains as peg_chains
from pipeline.puzzles.pegs.chains import TRIANGLE15_CHAINS, PegChainPuzzle
from tests.conftest import build_local, one, run_cli

GOAL = ". . . . . . . . . . . . x . ."


def python_moves(board: pegs.Board, levels: int) -> list[set[int]]:
    """Boards by fewest moves, a move being every chain of one peg's jumps (plain Python)."""
    start = board.full() & ~(1 << board.centre)
    seen, front, out = {start}, {start}, [{start}]
    for _ in range(levels):
        new: set[int] = set()
        for s in front:
            todo = [(s, f) for f in range(board.count) if s >> f & 1]
            while todo:
                b, p = todo.pop()
                for f, o, t in board.jumps:
                    if f == p and b >> o & 1 and not b >> t & 1:
                        nb = b ^ (1 << f) ^ (1 << o) ^ (1 << t)
                        todo.append((nb, t))
                        if nb not in seen:
                            new.add(nb)
        seen |= new
        front = new
        out.append(new)
    return out


def test_triangle_in_chains_is_triangle15_moves_per_board(
    db: pipeline.Database, tmp_path: Path
) -> None:
    m = build_local(TRIANGLE15_CHAINS, tmp_path)
    assert m.total == 4237  # every board of triangle15 (in jumps): one row each
    got = dict(
        pipeline.open(tmp_path)
        .connection()
        .execute('SELECT state, depth FROM "triangle15-chains"')
        .fetchall()
    )
    # triangle15-moves keeps (board, last landing hole): the fewest moves to a board
    # is the smallest depth over its landing holes.
    want = dict(
        db.connection()
        .execute('SELECT state & 281474976710655, min(depth) FROM "triangle15-moves" GROUP BY 1')
        .fetchall()
    )
    assert got == want
    assert max(got.values()) == max(want.values())
    assert pipeline.open(tmp_path).verify("triangle15-chains").ok
    # solve prints a fewest-moves line from the start, in the article's notation.
    r = run_cli("solve", "triangle15-chains", GOAL, "--oneline", data=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("triangle15-chains: 9 moves from the start")
    line = next(x for x in r.stdout.splitlines() if x.startswith("line from the start: "))
    start = pegs.TRIANGLE15_JUMPS.roots()[0]
    played = pegs.play(pegs.TRIANGLE15, start, line.split(": ", 1)[1])
    assert line.count("(") == 9 and played[-1] == 1 << 12


def test_triangle_winnable_in_moves_gives_the_articles_nine(
    db: pipeline.Database, tmp_path: Path
) -> None:
    w = peg_chains.PUZZLES[3]
    m = build_local(w, tmp_path)
    # Every board that can reach one peg in hole 12: the complements of the
    # boards the start reaches (a reversed jump is a jump of the complement).
    assert m.total == 4237
    opened = pipeline.open(tmp_path)
    full = (1 << 15) - 1
    reached = db.connection().execute('SELECT state FROM "triangle15"').fetchall()
    boards = opened.connection().execute('SELECT state FROM "triangle15-chains-winnable"')
    assert {s for (s,) in boards.fetchall()} == {full ^ s for (s,) in reached}
    start = pegs.TRIANGLE15_JUMPS.roots()[0]
    assert one(opened, f'SELECT depth FROM "triangle15-chains-winnable" WHERE state = {start}') == 9
    # The boards the start reaches that can still be won: triangle15-winnable's 1,428.
    won = dict(db.connection().execute('SELECT state, depth FROM "triangle15-winnable"').fetchall())
    got = dict(
        opened.connection()
        .execute('SELECT state, depth FROM "triangle15-chains-winnable"')
        .fetchall()
    )
    assert len(won) == 1428 and set(won) <= set(got)
    assert opened.verify("triangle15-chains-winnable").ok
    sol = opened.solve("triangle15-chains-winnable", pegs.TRIANGLE15_JUMPS.text(start))
    assert sol.moves == 9 and sol.notation.count("(") == 9
    assert pegs.play(pegs.TRIANGLE15, start, sol.notation)[-1] == 1 << 12


def test_english_first_levels_match_a_plain_python_count() -> None:
    p = peg_chains.PUZZLES[0]
    assert isinstance(p, PegChainPuzzle)
    want = python_moves(pegs.ENGLISH33, 4)
    assert [len(s) for s in want] == [1, 4, 12, 64, 354]
    # The compiled rows and the packed keys (the fast step's resolve) level by level.
    k = p.kernels
    assert k is not None
    seen = np.array(p.roots(), np.uint64)
    front = seen
    for d in range(1, 7):
        _, kid = p.expand(front)
        rows = np.unique(kid)
        rows = rows[absent(rows, seen)]
        children, parents = k.resolve(np.sort(k.keys(front)), (seen,))
        assert np.array_equal(children, rows)
        src, kid = p.expand(parents)  # each kept parent is one move from its child
        pairs = set(zip(parents[src].tolist(), kid.tolist(), strict=True))
        assert all(pair in pairs for pair in zip(parents.tolist(), children.tolist(), strict=True))
        if d <= 4:
            assert set(children.tolist()) == want[d]
        seen = np.sort(np.concatenate((seen, children)))
        front = children
    assert len(front) == 11_447  # 6 moves, from this count and the Python one's pattern


def test_notation_names_each_chain() -> None:
    b = pegs.TRIANGLE15
    start = pegs.TRIANGLE15_JUMPS.roots()[0]
    line = "(10,12)(13,11)(3,10,12,3)(1,6)(5,3)(6,1)(14,5)(2,9,7)(0,3,12)"
    boards = [start]
    for group in line[1:-1].split(")("):
        boards.append(pegs.play(b, boards[-1], f"({group})")[-1])
    got = TRIANGLE15_CHAINS.notation(boards)
    assert got.count("(") == 9  # one group a move, each a legal chain to the next board
    played = [start]
    for group in got[1:-1].split(")("):
        played.append(pegs.play(b, played[-1], f"({group})")[-1])
    assert played == boards
