"""A twisty table from the command line like any other (issue #47, phase 2): ``puzzledb
build --spec FILE.tws [NAME]`` and a TOML ``[twisty]`` spec, then ``longest``,
``show``, ``solve``, ``query`` with figures that could be wrong: gate.tws's counts
are ``twsearch -F -g``'s (tests/test_twisty.py), its three deepest positions are
read back from the Parquet rows, and each solution is checked move by move.
"""

from __future__ import annotations

import itertools
import json
import shutil
import tomllib
from pathlib import Path

import pytest

import pipeline
from tests.conftest import build_local
from tests.matrix import cli
from tests.test_twisty import DEFS, EXAMPLES, TWSEARCH, counts, puzzle

GATE = DEFS / "gate.tws"


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder where ``build --spec gate.tws`` ran."""
    data = tmp_path_factory.mktemp("gate")
    ran = cli("build", "--spec", str(GATE), data=data)
    assert ran.code == 0, ran
    assert "gate: 35,280 positions, max depth 30 (3 there)" in ran.err
    return data


def test_built_from_the_file_with_twsearchs_counts(gate: Path) -> None:
    ran = cli("histogram", "gate", "--json", data=gate)
    rows = json.loads(ran.out)["histogram"]
    assert [r["positions"] for r in rows] == TWSEARCH["gate"]
    kept = tomllib.loads((gate / "specs" / "gate.toml").read_text())
    assert kept["name"] == "gate" and kept["title"] == "Gate (twsearch definition)"
    assert kept["twisty"]["definition"] == GATE.read_text()  # held whole: no file outside


def test_longest_show_and_solve_answer_with_exact_figures(gate: Path) -> None:
    ran = cli("longest", "gate", "--json", data=gate)
    deepest = json.loads(ran.out)["positions"]
    # The three states at depth 30, from the rows, in the compact line (labels from 0).
    rows = pipeline.open(gate).query(
        "SELECT board('gate', state) AS b FROM gate WHERE depth = 30 ORDER BY state"
    )
    assert sorted(deepest) == sorted(rows["b"].to_list()) == ["076543211", "107654321", "654321071"]
    p = pipeline.open(gate).puzzle("gate")
    for text in deepest:
        shown = cli("show", "gate", text, data=gate)
        assert shown.code == 0 and "depth 30" in shown.out, shown
        assert p.draw(p.parse(text)) in shown.out  # a row a set: RING ..., GATE ...
        ran = cli("solve", "gate", text, "--json", data=gate)
        path = json.loads(ran.out)["path"]
        assert ran.code == 0 and len(path) == 31
        states = [p.parse(s) for s in path]
        assert states[-1] == p.solved
        assert all(p.turn_between(a, b) for a, b in itertools.pairwise(states))


def test_a_state_block_and_moves_from_solved(gate: Path) -> None:
    block = "RING\n2 1 3 4 5 6 7 8\nGATE\n1\n1"  # S from solved: one move
    ran = cli("solve", "gate", block, data=gate)
    assert ran.code == 0 and ran.out.startswith("gate: 1 move to the goal (optimal)\n"), ran
    assert "line to the goal: S\n" in ran.out
    shown = cli("show", "gate", "--turns", "R' S", data=gate)
    assert shown.code == 0 and "depth 2" in shown.out, shown
    ran = cli("show", "gate", "--turns", "R", data=gate)  # 8 to position 1: Illegal
    assert ran.code == 1 and ran.err.strip() == (
        "puzzledb: set RING: piece 8 may not be at position 1 (Illegal)"
    )


def test_a_toml_spec_names_its_definition_with_options(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(DEFS / "mixed.tws", src / "mixed.tws")
    spec = src / "zx.toml"
    spec.write_text(
        'name = "zx"\ntitle = "two moves of mixed"\n[twisty]\nfile = "mixed.tws"\n'
        'moves = ["Z", "X"]\nquarter = true\n'
    )
    data = tmp_path / "data"
    ran = cli("build", "--spec", str(spec), data=data)
    assert ran.code == 0, ran
    alone = build_local(puzzle("mixed", moves=["Z", "X"], quarter=True), tmp_path / "alone")
    ran = cli("histogram", "zx", "--json", data=data)
    assert [r["positions"] for r in json.loads(ran.out)["histogram"]] == counts(alone)
    shutil.rmtree(src)  # the kept spec holds the definition: the folder needs nothing else
    (data / "specs" / "zx.toml").unlink()  # nor the kept spec: the manifest records it
    ran = cli("verify", "zx", data=data)
    assert ran.code == 0 and ran.out.startswith("zx: ok"), ran


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("Set A 2 1\nFrob\n", (), "line 2: unknown keyword 'Frob'"),
        (GATE.read_text(), ("pocket",), "table name 'pocket': 'pocket' is a built-in puzzle"),
        (GATE.read_text(), ("Bad-Name",), "table name 'Bad-Name': a name is a-z, 0-9 and _"),
    ],
)
def test_a_bad_definition_file_is_one_line(
    tmp_path: Path, text: str, args: tuple[str, ...], message: str
) -> None:
    path = tmp_path / "def.tws"
    path.write_text(text)
    ran = cli("build", "--spec", str(path), *args, data=tmp_path / "data")
    assert ran.code == 1 and message in ran.err and len(ran.err.strip().splitlines()) == 1, ran
    assert not (tmp_path / "data" / "specs").exists()  # nothing kept


def test_a_definition_file_named_on_the_command_line(tmp_path: Path) -> None:
    ran = cli("build", "--spec", str(GATE), "gate2", "--max-depth", "3", data=tmp_path)
    assert ran.code == 0 and "gate2: 68 positions" in ran.err, ran
    assert (tmp_path / "specs" / "gate2.toml").exists()


def test_the_catalog_macros_read_every_state(gate: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """board() is the compact line of every row, state_of() reads it back (CPOS too),
    drawing() is show's rows, cells() says in one line that a state is no cells."""
    db = pipeline.open(gate)
    p = db.puzzle("gate")
    rows = db.query(
        "SELECT state, b, state_of('gate', b) AS back, state_of('gate', 'CPOS ' || b) AS cpos "
        "FROM (SELECT state, board('gate', state) AS b FROM gate)"
    )
    assert rows.height == 35_280
    assert rows["b"].to_list() == [p.text(s) for s in rows["state"].to_list()]
    assert rows["back"].to_list() == rows["state"].to_list() == rows["cpos"].to_list()
    s = p.parse("654321071")
    assert db.query(f"SELECT drawing('gate', {s}::UBIGINT) AS d")["d"][0] == p.draw(s)
    for sql, line in [
        ("cells('gate', 0::UBIGINT)", "gate: a twisty state is ranks, not cells"),
        ("state_of('gate', '07654321')", "not a position of gate (its compact line: 9"),
        ("state_of('gate', '076543217')", "not a position of gate"),  # no such gate piece
        (f"board('gate', {p.pack.size}::UBIGINT)", "not a state of gate (0 <= state < 80640)"),
    ]:
        with pytest.raises(Exception, match=r"Invalid Input Error") as e:
            db.query(f"SELECT {sql}")
        assert line in str(e.value)
    from pipeline.puzzles.twisty import sql as twisty_sql

    monkeypatch.setattr(twisty_sql, "MAX_ROWS", 2)  # gate's orientation values: 1 + 2 rows
    with pytest.raises(Exception, match="too many look-up rows for the catalog"):
        pipeline.open(gate).query("SELECT board('gate', 0::UBIGINT)")


@pytest.mark.parametrize("stem", ["2x2x2", "3x3x3", "4x4x4"])
def test_twsearchs_own_file_names_name_tables(tmp_path: Path, stem: str) -> None:
    """twsearch's samples are named 2x2x2.tws ...: a name may start with a digit, and the
    spec kept under it reads back (its name checked again) for every command after."""
    path = tmp_path / f"{stem}.tws"
    shutil.copy(EXAMPLES / "floppy.tws", path)
    data = tmp_path / "data"
    ran = cli("build", "--spec", str(path), data=data)
    assert ran.code == 0 and f"{stem}: 192 positions, max depth 8 (1 there)" in ran.err, ran
    from pipeline.puzzles.spec import parse

    assert parse.read(data / "specs" / f"{stem}.toml").name == stem
    ran = cli("histogram", stem, "--json", data=data)
    assert [r["positions"] for r in json.loads(ran.out)["histogram"]] == TWSEARCH["floppy"]
    ran = cli("query", f'SELECT count(*) AS n FROM "{stem}"', "--format", "csv", data=data)
    assert ran.out.split() == ["n", "192"]
    assert cli("verify", stem, data=data).out.startswith(f"{stem}: ok")


def test_the_names_the_families_make_stay_reserved_exactly(tmp_path: Path) -> None:
    """Every rectangle RxC the tiles family makes is refused as a spec's name, in a TOML
    spec and after a definition file alike; every other RxC (and any name starting with a
    digit) is free, and a name starting with `_` is refused."""
    from pipeline.errors import BadSpec
    from pipeline.puzzles.spec import parse
    from pipeline.puzzles.tiles.family import any_rectangle

    text = GATE.read_text()
    refused = []
    for name in (f"{r}x{c}" for r in range(1, 18) for c in range(1, 18)):
        try:
            parse.parse(f'name = "{name}"\n[twisty]\ndefinition = """{text}"""\n', "t")
        except BadSpec as e:
            refused.append(name)
            assert "is a built-in puzzle" in str(e) or "one of the sliding boards" in str(e), e
    made = [f"{r}x{c}" for r in range(1, 18) for c in range(1, 18) if any_rectangle(f"{r}x{c}")]
    assert refused == made and len(made) == 19  # R, C >= 2 and R*C <= 16
    for bad, line in [
        ("3x3", "table name '3x3': '3x3' is a built-in puzzle: choose another name"),
        ("2x8", "table name '2x8': '2x8' names one of the sliding boards: choose another"),
        ("_x", "table name '_x': a name is a-z, 0-9 and _, starting with a letter or a digit"),
    ]:
        path = tmp_path / f"{bad}.tws"
        shutil.copy(GATE, path)
        ran = cli("build", "--spec", str(path), data=tmp_path / "data")
        assert ran.code == 1 and ran.err.startswith(f"puzzledb: {path}: {line}"), ran
    assert not (tmp_path / "data" / "specs").exists()
