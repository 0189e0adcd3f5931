"""The Tower of Hanoi: a family in one module (pipeline/puzzles/hanoi.py) and one line of
builtin.py, right on every surface (tests/test_matrix.py asks it everywhere; here its
figures against an independent count, and its drawing)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

import pipeline
from tests.test_architecture import where

PACKAGE = Path(__file__).resolve().parent.parent / "pipeline"


def independent_counts(disks: int) -> dict[int, int]:
    """Positions per depth from every disk on peg C, by a plain breadth-first search over
    tuples (peg of each disk, smallest first): no code of the package."""
    goal = (2,) * disks
    depth = {goal: 0}
    frontier = [goal]
    while frontier:
        nxt = []
        for s in frontier:
            tops = {p: min((i for i in range(disks) if s[i] == p), default=disks) for p in range(3)}
            for a in range(3):
                for b in range(3):
                    if a != b and tops[a] < tops[b]:
                        t = list(s)
                        t[tops[a]] = b
                        t = tuple(t)
                        if t not in depth:
                            depth[t] = depth[s] + 1
                            nxt.append(t)
        frontier = nxt
    return dict(sorted(Counter(depth.values()).items()))


@pytest.fixture(scope="module")
def hdb(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Database:
    db = pipeline.open(tmp_path_factory.mktemp("hanoi"))
    db.build(["hanoi4", "hanoi8"])
    return db


@pytest.mark.parametrize("disks", [4, 8])
def test_counts_equal_an_independent_search(hdb: pipeline.Database, disks: int) -> None:
    name = f"hanoi{disks}"
    hist = dict(zip(*hdb.histogram(name).get_columns()[:2], strict=True))
    assert hist == independent_counts(disks)
    assert sum(hist.values()) == 3**disks and max(hist) == 2**disks - 1  # every placement
    assert hdb.verify(name).ok


def test_all_on_the_first_peg_takes_two_to_the_n_minus_one(hdb: pipeline.Database) -> None:
    sol = hdb.solve("hanoi4", "A A A A")
    assert sol.moves == 15 and sol.path[-1] == "C C C C"
    assert sol.notation == "AB AC BC AB CA CB AB AC BC BA CA BC AB AC BC"
    assert hdb.depth("hanoi8", "A A A A A A A A") == 255  # the depth column's last value


def test_the_drawing_stacks_the_disks_on_their_pegs(hdb: pipeline.Database) -> None:
    svg = ET.fromstring(hdb.board_svg("hanoi4", "A B C A"))
    cells = {
        int(g.get("data-cell")): int(g.get("data-value"))
        for g in svg.iter("{http://www.w3.org/2000/svg}g")
        if g.get("class") == "cell" and g.get("data-cell") is not None
    }
    assert cells == {0: 0, 1: 1, 2: 2, 3: 0}  # disk i on its peg, read back from the picture
    spots = [
        int(g.get("data-spot"))
        for g in svg.iter("{http://www.w3.org/2000/svg}g")
        if g.get("class") == "cell" and g.get("data-cell") in ("0", "3")
    ]
    assert spots == [0, 1]  # peg A holds disk 3 at the bottom, disk 0 above it


def test_the_family_lives_in_its_own_module_and_one_line_of_builtin() -> None:
    """Adding it touched hanoi.py and its line in builtin.py's list of families, no more."""
    mentions = [m for m in where("(?i)hanoi") if m != "puzzles/hanoi.py"]
    assert mentions == ["puzzles/builtin.py"]  # code only: a guide may name it
    lines = [
        x for x in (PACKAGE / "puzzles" / "builtin.py").read_text().splitlines() if "HANOI" in x
    ]
    assert len(lines) == 2  # its import and its line in FAMILIES
