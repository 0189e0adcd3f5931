"""The pocket cube drawn as a net: read back by its tags and by its colours alone."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import pipeline
from pipeline.draw import geometry
from pipeline.pictures import boards
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.cube import board as cube
from tests.test_pictures import SVG, state_of, strip_boards


def facelets_of(node: ET.Element) -> list[tuple[int, str, str | None]]:
    """(spot, colour, data-cell) of each facelet drawn, in spot order."""
    out = []
    for g in node.iter(f"{SVG}g"):
        if g.get("class") == "cell":
            rect = g.find(f"{SVG}rect[@class='facelet']")
            out.append((int(g.get("data-spot")), rect.get("data-colour"), g.get("data-cell")))
    return sorted(out)


def test_a_scrambled_cube_reads_back_from_its_tags_and_its_colours() -> None:
    p = puzzles.get("pocket")
    state = p.from_moves("R U2 F' U R' F2")
    root = ET.fromstring(boards.board(p, state))
    assert state_of("pocket", root) == state  # the corners' tags
    drawn = facelets_of(root)
    assert [s for s, _, _ in drawn] == list(range(24))
    colours = "".join(c for _, c, _ in drawn)
    assert colours == p.facelets(state) and p.parse(colours) == state  # the colours alone
    fixed = [(s, c) for s, c, cell in drawn if cell is None]  # DBL, drawn untagged
    assert fixed == [(14, "D"), (18, "L"), (23, "B")]


def test_net_places_follow_the_text_drawing() -> None:
    """Facelets in the text net's places; a corner's cell centre the mean of its three."""
    art = boards.art_of(puzzles.get("pocket"))
    xy = art.spots.xy
    assert xy[0] == (2.5, 0.0) and xy[4] == (5.0, 2.5) and xy[15] == (3.5, 6.0)  # U0 R0 D3
    assert xy[16] == (0.0, 2.5) and xy[23] == (8.5, 3.5)  # L0, B3
    col, line = geometry.text_centres(cube.CELLS)[0]  # URF: U3, F1, R0
    assert (col, line) == (8.0, pytest.approx(5 / 3))


@pytest.mark.parametrize(
    ("name", "scramble"), [("pocket", "R U F' U2"), ("pocket-qtm", "R U F' U'")]
)
def test_strip_of_a_four_turn_solution(db: pipeline.Database, name: str, scramble: str) -> None:
    p = puzzles.get(name)
    sol = db.solve(name, p.from_moves(scramble))
    assert sol.moves == 4
    drawn = strip_boards(db.solution_svg(sol))
    assert len(drawn) == 5 and [state_of(name, b) for b in drawn] == sol.states
    captions = ["".join(b.find(f"{SVG}text[@class='caption']").itertext()) for b in drawn]
    turns = [c.split(": ")[1] for c in captions[1:]]
    assert captions[0] == "start" and captions[1:] == [f"{i}: {t}" for i, t in enumerate(turns, 1)]
    assert p.from_moves(f"{scramble} {' '.join(turns)}") == cube.SOLVED
    assert all(t in p.turn_names for t in turns)  # quarter turns only in pocket-qtm
    for board, turn in zip(drawn[1:], turns, strict=True):  # the turned face ringed
        face = cube.COLOURS.index(turn[0])
        ringed = {int(s) for s in board.find(f"{SVG}g[@class='mark']").get("data-spots").split()}
        assert set(range(4 * face, 4 * face + 4)) <= ringed
