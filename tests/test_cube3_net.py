"""The 3x3x3 cube (cube3) drawn as the net of its 54 stickers, in text and SVG: the
sticker colours held to a model of this file's own (stickers as points and normals
turned in space, no pieces), the picture read back by its colours, and the other
definitions past 64 bits still drawn as numbered squares."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import pipeline
from pipeline.errors import BadPosition
from pipeline.pictures import boards
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.twisty import cube3
from pipeline.puzzles.twisty.art import Cube3Art, TwistyArt
from pipeline.puzzles.twisty.cube3 import CUBE3, FACES
from pipeline.puzzles.twisty.tws import Part
from tests.conftest import run_cli
from tests.test_cube_pictures import facelets_of
from tests.test_pictures import SVG
from tests.test_twisty_solve import add_crossed

Vec = tuple[int, int, int]
NORMAL: dict[str, Vec] = {
    "U": (0, 1, 0), "R": (1, 0, 0), "F": (0, 0, 1),
    "D": (0, -1, 0), "L": (-1, 0, 0), "B": (0, 0, -1),
}  # fmt: skip
#: Each face as the net shows it: the directions its columns and rows run.
FRAME: dict[str, tuple[Vec, Vec]] = {
    "U": ((1, 0, 0), (0, 0, 1)), "R": ((0, 0, -1), (0, -1, 0)), "F": ((1, 0, 0), (0, -1, 0)),
    "D": ((1, 0, 0), (0, 0, -1)), "L": ((0, 0, 1), (0, -1, 0)), "B": ((-1, 0, 0), (0, -1, 0)),
}  # fmt: skip


def _places() -> list[tuple[Vec, Vec]]:
    """(cubie, normal) of the 54 stickers, face by face (U R F D L B), row by row."""
    out = []
    for f in "URFDLB":
        (a, d), n = FRAME[f], NORMAL[f]
        for r in (-1, 0, 1):
            for c in (-1, 0, 1):
                out.append((tuple(n[k] + c * a[k] + r * d[k] for k in range(3)), n))
    return out


def _clockwise(axis: Vec, v: Vec) -> Vec:
    """``v`` turned a quarter clockwise about ``axis`` seen from its tip."""
    a, along = axis, sum(x * y for x, y in zip(axis, v, strict=True))
    cross = (a[1] * v[2] - a[2] * v[1], a[2] * v[0] - a[0] * v[2], a[0] * v[1] - a[1] * v[0])
    return (-cross[0] + a[0] * along, -cross[1] + a[1] * along, -cross[2] + a[2] * along)


def stickers_after(turns: str) -> str:
    """The 54 colours after ``turns`` from solved, each sticker moved in space."""
    places = _places()
    colour = {p: "URFDLB"[i // 9] for i, p in enumerate(places)}
    for t in turns.split():
        axis = NORMAL[t[0]]
        quarters = {"": 1, "2": 2, "'": 3}[t[1:]]
        for _ in range(quarters):
            colour = {
                ((_clockwise(axis, p), _clockwise(axis, n)) if sum(
                    x * y for x, y in zip(axis, p, strict=True)) > 0 else (p, n)): c
                for (p, n), c in colour.items()
            }  # fmt: skip
    return "".join(colour[p] for p in places)


def test_solved_shows_each_face_one_colour() -> None:
    assert CUBE3.caption(CUBE3.solved) == " ".join(f * 9 for f in FACES)
    drawn = facelets_of(ET.fromstring(boards.board(CUBE3, CUBE3.solved)))
    assert [s for s, _, _ in drawn] == list(range(54))
    assert "".join(c for _, c, _ in drawn) == "".join(f * 9 for f in "URFDLB")
    assert CUBE3.draw(CUBE3.solved).splitlines()[3] == "L L L  F F F  R R R  B B B"


def test_after_r_the_right_columns_change() -> None:
    """R (clockwise seen from the right): F's right column goes up to U, U's to B's left
    column (upside down), B's to D, D's to F; R itself stays red, L untouched."""
    c = CUBE3.caption(CUBE3.from_moves("R")).split()
    assert c == [
        "UUFUUFUUF", "RRRRRRRRR", "FFDFFDFFD", "DDBDDBDDB", "LLLLLLLLL", "UBBUBBUBB"
    ]  # fmt: skip
    net = CUBE3.draw(CUBE3.from_moves("R")).splitlines()
    assert net[0] == "       U U F" and net[3] == "L L L  F F D  R R R  U B B"
    assert net[8] == "       D D B"
    drawn = facelets_of(ET.fromstring(boards.board(CUBE3, CUBE3.from_moves("R"))))
    colour = {s: c for s, c, _ in drawn}
    assert [colour[s] for s in (2, 5, 8)] == ["F"] * 3  # U's right column
    assert [colour[s] for s in (20, 23, 26)] == ["D"] * 3  # F's right column
    assert [colour[s] for s in (29, 32, 35)] == ["B"] * 3  # D's right column
    assert [colour[s] for s in (45, 48, 51)] == ["U"] * 3  # B's left column


def test_stickers_match_a_model_of_stickers_in_space() -> None:
    rng = random.Random(55)
    names = [f + s for f in "URFDLB" for s in ("", "2", "'")]
    for length in (1, 2, 5, 12, 25):
        turns = " ".join(rng.choice(names) for _ in range(length))
        state = CUBE3.from_moves(turns)
        assert CUBE3.caption(state).replace(" ", "") == stickers_after(turns), turns
        svg = ET.fromstring(boards.board(CUBE3, state))
        colours = "".join(c for _, c, _ in facelets_of(svg))
        assert colours == stickers_after(turns) and CUBE3.parse(colours) == state


def test_the_net_places_and_the_turn_marked() -> None:
    art = boards.art_of(CUBE3)
    assert isinstance(art, Cube3Art)
    xy = art.spots.xy
    assert xy[0] == (3.5, 0.0) and xy[8] == (5.5, 2.0)  # U's corners
    assert xy[36] == (0.0, 3.5) and xy[53] == (12.5, 5.5)  # L's first, B's last
    assert xy[27] == (3.5, 7.0)  # D's first, under F
    before = art.values(CUBE3.from_moves("F"))
    after = art.values(CUBE3.from_moves("F R2"))
    assert art.move(before, after).label == "R2" and art.move(before, after).to == tuple(
        range(9, 18)
    )


def test_a_sticker_string_no_cube_shows_is_one_line() -> None:
    solved = "".join(f * 9 for f in "URFDLB")
    corners, edges = CUBE3.decode(CUBE3.solved)
    twisted = (Part(corners.perm, (1, *corners.twist[1:])), edges)
    flipped = (corners, Part(edges.perm, (1, *edges.twist[1:])))
    for text, words in [
        (solved[:4] + "R" + solved[5:], "the U face's centre shows R"),
        ("F" + solved[1:], "the piece at ULB shows FLB: no piece of the cube does"),
        (cube3.colours(twisted), "CORNERS: the orientations sum to 1 (mod 3)"),
        (cube3.colours(flipped), "EDGES: the orientations sum to 1 (mod 2)"),
    ]:
        with pytest.raises(BadPosition) as e:
            CUBE3.parse(text)
        assert words in str(e.value) and "\n" not in str(e.value)


def test_show_cube3_prints_the_net(tmp_path: Path) -> None:
    r = run_cli("show", "cube3", "--turns", "R", "--svg", str(tmp_path / "r.svg"), data=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:9] == CUBE3.draw(CUBE3.from_moves("R")).splitlines()
    drawn = facelets_of(ET.parse(tmp_path / "r.svg").getroot())
    assert "".join(c for _, c, _ in drawn) == stickers_after("R")


def test_other_definitions_past_64_bits_keep_numbered_squares(tmp_path: Path) -> None:
    db: pipeline.Database = add_crossed(tmp_path)
    p = db.puzzle("crossed")
    assert isinstance(boards.art_of(p), TwistyArt) and not p.tabulated
    root = ET.fromstring(db.board_svg("crossed", db.from_turns("crossed", "A")))
    cells = [g for g in root.iter(f"{SVG}g") if g.get("class") == "cell"]
    assert len(cells) == 22 and not root.findall(f".//{SVG}rect[@class='facelet']")
    labels = ["".join(t.itertext()) for g in cells for t in g.iter(f"{SVG}text")]
    assert sorted(int(x) for x in labels if x.isdigit()) == list(range(1, 23))
    assert puzzles.get("cube3") is CUBE3
