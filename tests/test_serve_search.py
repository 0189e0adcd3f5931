"""The explorer on a puzzle solved by search (no table of its own): a real `puzzledb
serve` over a folder holding crossed.tws's spec and pattern tables. The position page
and /api/position show the position, its optimal solution (the API's search) and its
moves, each "by search"; cube3, whose pattern tables are not built there, says in one
line which to build, and a GET builds nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

import pipeline
from pipeline.puzzles.twisty import cube3
from pipeline.puzzles.twisty.cube3 import CUBE3
from pipeline.puzzles.twisty.tws import Part
from tests.test_serve import get, position, serving

SCRAMBLE = "A B2 A'"


@pytest.fixture(scope="module")
def server(crossed_data: Path) -> Iterator[str]:
    with serving(crossed_data) as base:
        yield base


def test_api_position_gives_the_optimal_solution_and_the_moves(
    server: str, crossed_data: Path
) -> None:
    db = pipeline.open(crossed_data)
    p = db.puzzle("crossed")
    state = db.from_turns("crossed", SCRAMBLE)
    doc = position(server, "crossed", p.text(state))
    assert doc["depth"] is None and doc["state"] == state
    found = doc["search"]
    assert found["refused"] is None and found["moves"] == 3 == db.solve("crossed", state).moves
    assert found["tables"] == ["crossed-pdb-cross", "crossed-pdb-b", "crossed-pdb-a"]
    assert p.from_moves(f"{SCRAMBLE} {found['notation']}") == p.solved  # it solves
    moves = {m["move"]: m for m in doc["moves"]}
    assert len(moves) == len(p.turns) == 22  # A, A2 .. A6, A' .. A5', and B's
    assert {m["verdict"] for m in doc["moves"]} == {"by search"}
    assert {m["depth"] for m in doc["moves"]} == {None}
    for t in p.turns:
        assert moves[t.name]["state"] == p.apply(state, t)
        assert moves[t.name]["position"] == p.text(p.apply(state, t))


def test_the_page_shows_the_solution_its_first_move_and_moves_by_search(
    server: str, crossed_data: Path
) -> None:
    p = pipeline.open(crossed_data).puzzle("crossed")
    state = p.from_moves(SCRAMBLE)
    status, page = get(f"{server}/p/crossed?s={quote(p.text(state))}")
    assert status == 200, page
    assert 'data-moves="3"' in page and "optimal solution: 3 moves: " in page
    line = re.search(r"optimal solution: 3 moves: ([^·<]+)", page)
    assert line is not None
    turns = line.group(1).replace("&#x27;", "'").split()
    assert len(turns) == 3 and p.from_moves(f"{SCRAMBLE} {' '.join(turns)}") == p.solved
    first = re.search(r'<a id="best" href="/p/crossed\?s=([^"]+)">first move</a>', page)
    assert first is not None and first.group(1) == quote(
        p.text(p.apply(state, p.by_name[turns[0]]))
    )
    assert len(re.findall(r'class="move unknown"[^>]*>[^<]*: by search</a>', page)) == 22
    assert "no table: solved by search" in page and 'href="/t/crossed-pdb-cross"' in page
    status, solved = get(f"{server}/p/crossed")  # no position typed: solved
    assert status == 200 and "optimal solution: 0 moves" in solved and ">solved<" in solved
    assert get(f"{server}/t/crossed")[0] == 404  # no table of its own


def test_pattern_tables_not_built_are_named_in_one_line(server: str, crossed_data: Path) -> None:
    state = CUBE3.from_moves("R U")
    status, body = get(f"{server}/api/position/cube3?s={quote(CUBE3.caption(state))}")
    doc = json.loads(body)
    assert status == 200 and doc["state"] == state and doc["search"]["moves"] is None
    said = doc["search"]["refused"]
    assert "\n" not in said and said.startswith("cube3 is solved by search over its pattern")
    assert "run `puzzledb build cube3-pdb-corners cube3-pdb-edges6a cube3-pdb-edges6b" in said
    assert [m["move"] for m in doc["moves"]][:4] == ["U", "U2", "U'", "R"]
    status, page = get(f"{server}/p/cube3?s={quote(CUBE3.caption(state))}")
    assert status == 200 and page.count('class="facelet"') == 54
    assert '<p class="error" id="search">cube3 is solved by search over its pattern' in page
    assert not [t for t in pipeline.open(crossed_data).built() if t.startswith("cube3")]


def test_a_position_no_move_reaches_is_one_line(server: str) -> None:
    corners, edges = CUBE3.decode(CUBE3.solved)
    twisted = cube3.colours((Part(corners.perm, (1, *corners.twist[1:])), edges))
    status, body = get(f"{server}/api/position/cube3?s={quote(twisted)}")
    said = json.loads(body)["error"]
    assert status == 400 and "orientations sum to 1 (mod 3)" in said and "\n" not in said
    status, page = get(f"{server}/p/crossed?s={quote('0' * 22)}")  # bead 1 everywhere
    assert status == 400 and "not the solved state&#x27;s" in page


def test_a_search_longer_than_a_page_waits_stops_in_one_line(
    crossed_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.serve import documents

    db = pipeline.open(crossed_data)
    monkeypatch.setattr(documents, "SEARCH_SECONDS", -1.0)  # stop at the first slice's end
    deep = db.random_position("crossed", 1)
    said = documents.search(db, "crossed", deep)["refused"]
    assert said is not None and re.fullmatch(
        r"crossed: its optimal solution is at least (\d+) moves long \(the search stopped "
        r"after -1 s\): puzzledb solve crossed searches on",
        said,
    )
    with pytest.raises(documents.SearchTooLong):
        documents.solve(db, "crossed", deep)
