"""The English board's symmetry classes in full (english33-sym): `make test-full`.

Builds the table through the pipeline's bucketed engine (a minute or two,
about 150 MB of disk), then checks the published number of classes (OEIS
A112737: 23,475,688 from the centre), that the class sizes expand to every
level of the full board, a typed position solved through its class, and
verify, and the orbit sums its build kept (histogram); then the winnable
classes (their sizes sum to english33-winnable's 13,428,122) and a winning
line from a typed position that is not canonical.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.pegs import board as pegs
from pipeline.puzzles.pegs.symmetries import images
from tests.full.test_pegs_full import ENGLISH33_LEVELS, ENGLISH33_WINNABLE

pytestmark = pytest.mark.full


def test_english33_sym_in_full(tmp_path: Path) -> None:
    db = pipeline.open(tmp_path)
    db.build(["english33-sym"])
    rows = (
        db.connection()
        .execute(
            'SELECT depth, count(*), sum(class_size)::BIGINT FROM "english33-sym" '
            "GROUP BY 1 ORDER BY 1"
        )
        .fetchall()
    )
    assert sum(n for _, n, _ in rows) == 23_475_688  # OEIS A112737
    assert [s for _, _, s in rows] == ENGLISH33_LEVELS
    # The orbit sums the build kept: every level's published count, without a query.
    orbits = db.histogram("english33-sym")["orbit_positions"].to_list()
    assert orbits == ENGLISH33_LEVELS and sum(orbits) == 187_636_299
    report = db.verify("english33-sym")
    assert report.ok, report.problems
    # The winnable classes expand to the winnable positions (13,428,122).
    db.build(["english33-sym-winnable"])
    (won,) = (
        db.connection()
        .execute('SELECT sum(class_size)::BIGINT FROM "english33-sym-winnable"')
        .fetchone()
    )
    assert won == ENGLISH33_WINNABLE
    assert db.verify("english33-sym-winnable").ok
    # A position typed as an image of its class (not the canonical one) is solved from it.
    p = puzzles.get("english33-sym")
    sql = 'SELECT state FROM "english33-sym-winnable" WHERE depth = 20 AND class_size = 8 LIMIT 1'
    (canon,) = db.connection().execute(sql).fetchone()
    typed = int(images(p.tables, np.array([canon], np.uint64))[3, 0])
    assert typed != canon and db.canonical("english33-sym", p.text(typed)) == canon
    sol = db.solve("english33-sym", p.text(typed))
    assert sol.states[0] == typed and sol.states[-1] == p.goal and len(sol.states) == 21
    assert pegs.play(pegs.ENGLISH33, typed, sol.notation)[-1] == p.goal
