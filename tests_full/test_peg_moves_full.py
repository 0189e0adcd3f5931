"""The English board in moves (english33-moves, english33-moves-winnable): `make test-full`.

Builds both tables in $PUZZLEDB_DATA (default data/) when missing (with
english33 and english33-winnable, which they need: about 1.5 GB of disk and
several minutes), then checks the published figures (PUZZLES.md section 8,
George Bell: the deepest boards need 23 moves; towards one peg in the centre no
reachable board needs more than 20; the 18-move minimum from the start,
Bergholt 1912, proved by Beasley) and the tables against each other.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import pipeline
from pipeline import puzzles
from pipeline.api import default_data
from pipeline.puzzles import pegs

TABLES = ("english33-moves", "english33-moves-winnable")


@pytest.fixture(scope="module")
def db() -> pipeline.Database:
    opened = pipeline.open(default_data())
    opened.build(list(TABLES), yes=True)
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
    assert (n, top) == (13_428_122, 20)
    assert one(db, 'SELECT count(*) FROM "english33-winnable"') == n
    start = puzzles.get("english33").roots()[0]
    assert one(db, f'SELECT depth FROM "english33-moves-winnable" WHERE state = {start}') == 18
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


@pytest.mark.parametrize("name", TABLES)
def test_verify(db: pipeline.Database, name: str) -> None:
    assert db.verify(name).ok
