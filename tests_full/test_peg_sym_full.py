"""The English board's symmetry classes in full (english33-sym): `make test-full`.

Builds the table through the pipeline's bucketed engine (a minute or two,
about 150 MB of disk), then checks the published number of classes (OEIS
A112737: 23,475,688 from the centre), that the class sizes expand to every
level of the full board, a typed position solved through its class, and
verify.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import pipeline
from pipeline import puzzles
from pipeline.puzzles import pegs
from tests.test_pegs_full import ENGLISH33_LEVELS

pytestmark = pytest.mark.skipif(
    not os.environ.get("PUZZLEDB_ENGLISH33_FULL"), reason="make test-full"
)


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
    report = db.verify("english33-sym")
    assert report.ok, report.problems
    # A deep position typed as it stands (not its canonical image) is solved from it.
    p = puzzles.get("english33-sym")
    start = p.roots()[0]
    typed = pegs.play(pegs.ENGLISH33, start, "(4,16)(23,9)(14,16)(31,23)(16,28)")[-1]
    sol = db.solve("english33-sym", p.text(typed))
    assert sol.states[0] == typed and sol.moves == 5
    assert pegs.play(pegs.ENGLISH33, start, sol.notation)[-1] == typed
