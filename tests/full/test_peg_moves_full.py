"""The English board in moves (english33-moves, english33-moves-winnable): `make test-full`.

Builds both tables in --full-data (default data/) when missing (with
english33 and english33-winnable, to check them against: about 3 GB of disk
and several minutes), then checks the published figures (PUZZLES.md section 8,
George Bell: the deepest boards need 23 moves; towards one peg in the centre no
board that can reach it needs more than 20; the 18-move minimum from the start,
Bergholt 1912, proved by Beasley) and the tables against each other.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.pegs import board as pegs

pytestmark = pytest.mark.full

TABLES = ("english33-moves", "english33-moves-winnable")
#: George Bell's table of the central game by moves, counted up to the 8
#: symmetries of the square (one board a class): B(n), the boards n moves from
#: the start and no fewer, and B(-n), the boards n moves from one peg in the
#: centre; both sum to 23,475,688 (OEIS A112737).
BELL_FROM_START = [
    *(1, 1, 2, 9, 47, 263, 1452, 7772, 38150, 164297, 585567, 1641177),
    *(3426496, 5111387, 5327135, 3909899, 2093768, 843917, 255301, 57579, 10037, 1268, 148, 15),
]
BELL_TO_CENTRE = [
    *(1, 1, 16, 979, 14115, 126902, 632451, 1954152, 3770028, 4949879, 4796624),
    *(3576434, 2113413, 1003420, 387982, 115922, 28134, 4589, 604, 37, 5),
]


@pytest.fixture(scope="module")
def db(full_data: Path) -> pipeline.Database:
    opened = pipeline.open(full_data)
    opened.build(["english33", "english33-winnable", *TABLES], yes=True)
    return opened


def one(db: pipeline.Database, sql: str) -> object:
    return db.connection().execute(sql).fetchone()[0]


def test_one_row_a_board_and_23_moves_at_most(db: pipeline.Database) -> None:
    n, top, boards = (
        db.connection()
        .execute('SELECT count(*), max(depth), count(DISTINCT state) FROM "english33-moves"')
        .fetchone()
    )
    assert (n, top, boards) == (187_636_299, 23, 187_636_299)
    # The very boards of english33 (in jumps): same count, none missing.
    missing = one(db, 'SELECT count(*) FROM "english33-moves" ANTI JOIN "english33" USING (state)')
    assert missing == 0
    hist = db.histogram("english33-moves").rows()
    assert [d for d, _ in hist] == list(range(24)) and sum(c for _, c in hist) == n


def test_at_most_20_moves_to_the_centre_and_18_from_the_start(db: pipeline.Database) -> None:
    n, top = (
        db.connection()
        .execute('SELECT count(*), max(depth) FROM "english33-moves-winnable"')
        .fetchone()
    )
    # Every board that can reach one peg in the centre: the complements of the
    # boards the start reaches (a reversed jump is a jump of the complement).
    assert (n, top) == (187_636_299, 20)
    full = (1 << 33) - 1
    dual = (
        'SELECT count(*) FROM "english33-moves-winnable" w ANTI JOIN "english33" e '
        f"ON w.state = xor(e.state, {full}::UBIGINT)"
    )
    assert one(db, dual) == 0
    start = puzzles.get("english33").roots()[0]
    assert one(db, f'SELECT depth FROM "english33-moves-winnable" WHERE state = {start}') == 18
    # The boards the start reaches that can still be won need at most 19 moves.
    won = (
        'SELECT count(*), max(w.depth) FROM "english33-moves-winnable" w '
        'SEMI JOIN "english33-winnable" USING (state)'
    )
    assert db.connection().execute(won).fetchone() == (13_428_122, 19)
    # A move removes one peg or more: the moves left never exceed the pegs left minus one.
    assert (
        one(
            db, 'SELECT count(*) FROM "english33-moves-winnable" WHERE depth > bit_count(state) - 1'
        )
        == 0
    )


def test_solve_prints_fewest_moves_lines(db: pipeline.Database) -> None:
    p = puzzles.get("english33")
    start = p.roots()[0]
    sol = db.solve("english33-moves-winnable", p.text(start))
    assert sol.moves == 18 and sol.notation.count("(") == 18
    assert pegs.play(pegs.ENGLISH33, start, sol.notation)[-1] == 1 << 16
    deepest = one(db, 'SELECT min(state) FROM "english33-moves" WHERE depth = 23')
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline.cli",
            "solve",
            "english33-moves",
            p.text(deepest),
            "--oneline",
            "--data",
            str(db.data),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("english33-moves: 23 moves from the start")
    line = next(x for x in r.stdout.splitlines() if x.startswith("line from the start"))
    notation = line.split(": ", 1)[1]
    assert notation.count("(") == 23
    assert pegs.play(pegs.ENGLISH33, start, notation)[-1] == deepest


@pytest.mark.parametrize(
    "name, bell", list(zip(TABLES, (BELL_FROM_START, BELL_TO_CENTRE), strict=True))
)
def test_classes_per_level_are_george_bells(
    db: pipeline.Database, name: str, bell: list[int]
) -> None:
    sym = puzzles.get("english33-sym")
    con = db.connection()
    got = []
    for depth in range(len(bell) + 1):
        sql = f'SELECT state FROM "{name}" WHERE depth = {depth}'
        states = con.execute(sql).fetchnumpy()["state"]
        got.append(len(np.unique(sym.canonical(states.astype(np.uint64)))))
    assert got == [*bell, 0] and sum(bell) == 23_475_688


@pytest.mark.parametrize("name", TABLES)
def test_verify(db: pipeline.Database, name: str) -> None:
    assert db.verify(name).ok
