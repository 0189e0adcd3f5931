"""Puzzles defined in a file (pipeline/puzzles/spec/parse.py): the two example specs built
through the CLI, their figures against a plain search written here, and bad specs."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from collections import deque
from pathlib import Path

import pytest

import pipeline
from pipeline.errors import BadSpec, UnknownPuzzle
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.names import root_hash
from pipeline.puzzles.spec import parse as spec
from tests.conftest import column, one, run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "specs"
PLUS = EXAMPLES / "plus.toml"
SQUARE = EXAMPLES / "square16.toml"


def tile_levels(path: Path) -> list[int]:
    """Positions per depth of a [tiles] spec, by a plain search over tuples."""
    t = tomllib.loads(path.read_text())["tiles"]
    goal = tuple(t["goal"])
    depth = {goal: 0}
    queue = deque([goal])
    while queue:
        b = queue.popleft()
        z = b.index(0)
        for j in t["adjacency"][z]:
            c = list(b)
            c[z], c[j] = c[j], 0
            if tuple(c) not in depth:
                depth[tuple(c)] = depth[b] + 1
                queue.append(tuple(c))
    return [list(depth.values()).count(k) for k in range(max(depth.values()) + 1)]


def peg_search(path: Path) -> tuple[list[int], int]:
    """(positions per jump, positions that can still end with one peg in the start hole)
    of a [pegs] spec: holes and lines read from the picture here, a set search."""
    t = tomllib.loads(path.read_text())["pegs"]
    rows = t["picture"].strip("\n").splitlines()
    holes = [(r, c) for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "o"]
    index = {h: i for i, h in enumerate(holes)}
    lines = []
    for (r, c), a in index.items():
        for dr, dc in t["steps"]:
            for s in (1, -1):
                b = index.get((r + s * dr, c + s * dc))
                e = index.get((r + 2 * s * dr, c + 2 * s * dc))
                if b is not None and e is not None:
                    lines.append((a, b, e))
    start = frozenset(range(len(holes))) - {t["start"]}
    levels = [{start}]
    while True:
        nxt = {
            (pegs - {a, b}) | {e}
            for pegs in levels[-1]
            for a, b, e in lines
            if a in pegs and b in pegs and e not in pegs
        }
        if not nxt:
            break
        levels.append(nxt)
    good = {frozenset({t["start"]})}
    for level in reversed(levels[:-1]):
        good |= {
            p
            for p in level
            if any(
                a in p and b in p and e not in p and (p - {a, b}) | {e} in good for a, b, e in lines
            )
        }
    reachable = set().union(*levels)
    return [len(lv) for lv in levels], len(good & reachable)


@pytest.fixture(scope="module")
def spec_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("specs")
    for path in (PLUS, SQUARE):
        r = run_cli("build", "--spec", str(path), data=folder)
        assert r.returncode == 0, r.stderr
    return folder


@pytest.fixture(scope="module")
def spec_db(spec_data: Path) -> pipeline.Database:
    return pipeline.open(spec_data)


def test_specs_are_kept_in_the_data_folder(spec_data: Path) -> None:
    assert (spec_data / "specs" / "plus.toml").read_text() == PLUS.read_text()
    assert (spec_data / "specs" / "square16.toml").read_text() == SQUARE.read_text()
    r = run_cli("list", "--json", data=spec_data)
    rows = {d["name"]: d for d in json.loads(r.stdout)}
    assert rows["plus"]["built"] and rows["plus"]["graph"] == "bipartite"
    assert rows["square16"]["built"] and rows["square16-winnable"]["built"]
    # Without the data folder the names mean nothing.
    with pytest.raises(UnknownPuzzle):
        puzzles.get("plus")


def test_plus_figures(spec_db: pipeline.Database) -> None:
    levels = tile_levels(PLUS)
    hist = (
        spec_db.connection()
        .execute("SELECT depth, count(*) FROM plus GROUP BY ALL ORDER BY 1")
        .fetchall()
    )
    assert [n for _, n in hist] == levels
    assert one(spec_db, "SELECT count(*) FROM plus") == sum(levels) == 480
    assert one(spec_db, "SELECT max(depth) FROM plus") == len(levels) - 1 == 22
    assert column(spec_db, "SELECT board('plus', state) FROM plus WHERE depth = 22") == [
        "2 1 3 4 5 0 7 6"
    ]
    drawing = one(spec_db, "SELECT drawing('plus', state_of('plus', '1 2 3 0 4 5 6 7'))")
    assert drawing == "  1 2\n3 0 4 5\n  6 7"
    sol = spec_db.solve("plus", "2 1 3 4 5 0 7 6")
    assert sol.moves == 22 and sol.path[-1] == "1 2 3 0 4 5 6 7"
    assert spec_db.verify("plus").ok


def test_square16_figures(spec_db: pipeline.Database) -> None:
    levels, winnable = peg_search(SQUARE)
    hist = (
        spec_db.connection()
        .execute("SELECT depth, count(*) FROM square16 GROUP BY ALL ORDER BY 1")
        .fetchall()
    )
    assert [n for _, n in hist] == levels
    assert sum(levels) == 32_829 and len(levels) == 15
    assert one(spec_db, 'SELECT count(*) FROM "square16-winnable"') == winnable == 11_412
    assert one(spec_db, 'SELECT count(*) FROM "square16-status" WHERE winnable') == winnable
    start = "x x x x x . x x x x x x x x x x"
    assert one(spec_db, f"SELECT winnable('square16', state_of('square16', '{start}'))") is True
    assert one(spec_db, "SELECT count(*) FROM square16 WHERE NOT can_jump('square16', state)") > 0
    sol = spec_db.solve("square16", start)
    assert sol.moves == 14 and sol.path[-1] == ". . . . . x . . . . . . . . . ."
    for name in ("square16", "square16-winnable"):
        assert spec_db.verify(name).ok


def test_manifest_records_the_spec_and_stands_without_the_file(spec_data: Path) -> None:
    data = spec_data.parent / (spec_data.name + "-copy")
    shutil.copytree(spec_data, data)
    shutil.rmtree(data / "specs")
    manifest = json.loads((data / "plus" / "_manifest.json").read_text())
    assert manifest["puzzle"]["spec"] == PLUS.read_text()
    db = pipeline.open(data)
    assert db.solve("plus", "2 1 3 4 5 0 7 6").moves == 22  # read without the file
    assert db.verify("square16-winnable").ok
    # Rebuilt without the file: the same rows, byte for byte.
    before = [f["sha256"] for f in manifest["files"]]
    db.build(["plus"], force=True)
    after = json.loads((data / "plus" / "_manifest.json").read_text())
    assert [f["sha256"] for f in after["files"]] == before


def test_variants_of_a_spec_board(spec_db: pipeline.Database) -> None:
    spec_db.build(["plus@0", "square16@0"])
    spec_db.build(["plus"], root="1 2 3 4 5 6 7 0")
    name = f"plus~{root_hash('1 2 3 4 5 6 7 0')}"
    assert spec_db.puzzle("plus@0").root_texts == ("0 1 2 3 4 5 6 7",)
    for table in ("plus@0", name):
        assert one(spec_db, f'SELECT count(*) FROM "{table}"') == 480
        assert spec_db.verify(table).ok
        assert "spec" in spec_db.table(table).manifest.puzzle
    assert one(spec_db, 'SELECT count(*) FROM "square16@0"') == 32_181
    with pytest.raises(UnknownPuzzle, match="rectangles only"):
        spec_db.puzzle("plus-multi")


#: (change to plus.toml, words the one-line message must hold, the line it names)
BAD = [
    ("cells = 8", "not valid TOML", 7),
    ("[1, 3],        # 0", "tiles.adjacency[0]: cell 0 lists 3 but cell 3 does not list 0", 9),
    ("[0, 4],        # 1", "tiles.adjacency[1]: cell 1 lists itself", 9),
    ("[3],           # 2", "tiles.adjacency[2]: cell 2 has no neighbour", 9),
    ("cells = 8", "tiles.cells: too many cells: 16 (at most 15", 7),
    ("goal = [", "tiles.goal: not a permutation of 0..7", 25),
    ('name = "plus"', "name: 'hex6' is a built-in puzzle", 3),
    ("layout = ", "tiles.colours: unknown key (known: cells, adjacency, layout, goal)", 20),
    ("layout = ", "tiles.layout: cell 6 must be drawn once ({6}), not 2", 20),
    ("layout = ", "tiles.layout: cells are drawn as plain {i}, without a format", 20),
]
REPLACE = {
    0: lambda s: s.replace("cells = 8", "cells == 8"),
    1: lambda s: s.replace("[1, 3],        # 0", "[1, 3],        # 0", 1).replace(
        "[0, 2, 4, 6],  # 3", "[2, 4, 6],     # 3"
    ),
    2: lambda s: s.replace("[0, 4],        # 1", "[0, 4, 1],     # 1"),
    3: lambda s: s.replace("[3],           # 2", "[],            # 2").replace(
        "[0, 2, 4, 6],  # 3", "[0, 4, 6],     # 3"
    ),
    4: lambda s: s.replace("cells = 8", "cells = 16"),
    5: lambda s: s.replace("goal = [1, 2, 3, 0, 4, 5, 6, 7]", "goal = [1, 2, 3, 0, 4, 5, 6, 6]"),
    6: lambda s: s.replace('name = "plus"', 'name = "hex6"'),
    7: lambda s: s.replace("layout = ", "colours = 3\nlayout = "),
    8: lambda s: s.replace("{6} {7}", "{6} {6}"),
    9: lambda s: s.replace("{7}", "{7:>2}"),
}


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_specs_are_one_line_naming_the_place(tmp_path: Path, case: int) -> None:
    _, message, line = BAD[case]
    text = REPLACE[case](PLUS.read_text())
    assert text != PLUS.read_text()
    path = tmp_path / "bad.toml"
    path.write_text(text)
    r = run_cli("build", "--spec", str(path), data=tmp_path / "data")
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert str(path) in r.stderr and message in r.stderr, r.stderr
    assert re.search(rf"\bline {line}\b", r.stderr), r.stderr
    assert not (tmp_path / "data" / "specs").exists()  # nothing kept


def test_the_line_numbers_are_those_of_the_file() -> None:
    lines = PLUS.read_text().splitlines()
    assert lines[8].startswith("adjacency = [") and lines[19].startswith("layout = ")
    assert lines[6].startswith("cells = ") and lines[24].startswith("goal = ")


def test_disconnected_and_too_many_holes(tmp_path: Path) -> None:
    text = PLUS.read_text().replace("[3, 7],        # 6", "[7],           # 6")
    text = text.replace("[0, 2, 4, 6],  # 3", "[0, 2, 4],     # 3")
    text = text.replace("[1, 3, 5, 7],  # 4", "[1, 3, 5],     # 4")
    text = text.replace("[4, 6],        # 7", "[6],           # 7")
    with pytest.raises(
        BadSpec, match=r"x.toml: tiles.adjacency: the board is not connected: .* 6 7 \(line 9\)"
    ):
        spec.puzzle(spec.parse(text, "x.toml"))
    big = SQUARE.read_text().replace('picture = """\n', 'picture = """\n' + "o o o o o o o\n" * 5)
    assert big.count("o") > 48
    path = tmp_path / "big.toml"
    path.write_text(big)
    r = run_cli("build", "--spec", str(path), data=tmp_path)
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert "pegs.picture: too many holes: 51 (at most 48" in r.stderr, r.stderr
    with pytest.raises(BadSpec, match=r"pegs.steps\[1\]: \[0, 0\] is no direction"):
        spec.puzzle(
            spec.parse(SQUARE.read_text().replace("[1, 0], [1, 2]", "[0, 0], [1, 2]"), "x.toml")
        )


def test_another_spec_under_a_built_name_is_refused(spec_data: Path, tmp_path: Path) -> None:
    other = tmp_path / "plus.toml"
    other.write_text(PLUS.read_text().replace("goal = [1, 2, 3, 0,", "goal = [1, 2, 3, 4, 0,"))
    other.write_text(other.read_text().replace("4, 0, 4, 5, 6, 7]", "4, 0, 5, 6, 7]"))
    r = run_cli("build", "--spec", str(other), data=spec_data)
    assert r.returncode == 1 and "holds another spec named plus" in r.stderr, r.stderr
    assert (spec_data / "specs" / "plus.toml").read_text() == PLUS.read_text()
