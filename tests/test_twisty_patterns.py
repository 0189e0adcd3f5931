"""Pattern tables of twisty definitions: abstractions built as ordinary tables, checked
against searches of our own over the pieces they keep; puzzles past 64 bits, solved by
search over them (the 3x3x3 cube, ``cube3``, and crossed.tws: two rings of 22 distinct
beads); the spec's ``[[twisty.pattern]]`` tables and the choice within a memory budget.

The figures: the cube's positions at depths 0 to 4 (1, 18, 243, 3,240, 43,239: the
literature's, and a breadth-first search here over the definition's permutations of
its 48 stickers-as-points), its order by Schreier-Sims, and each small pattern table's
depths from a search here over where its kept pieces are and how they are turned.
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.errors import BadSpec
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.twisty import abstract, cube3, group, tables, tws
from pipeline.puzzles.twisty.abstract import Pattern
from pipeline.puzzles.twisty.board import TwistyPuzzle
from pipeline.puzzles.twisty.patterns import TwistyPattern, choose
from tests.conftest import build_local
from tests.test_twisty import DEFS, EXAMPLES, counts, files

CROSSED = DEFS / "crossed.tws"


class Pieces:
    """The pattern's abstraction searched our own way: a position is, for each kept label
    (the pieces the pattern keeps, by their solved position's label), the sorted
    (position, twist) of its pieces (a ? piece's twist 0); a move sends the piece at its
    source position to each position, twisted by its twist there; an Illegal line of a
    kept label blocks a move. No ranks, no abstraction code."""

    def __init__(self, d: tws.Definition, pattern: Pattern) -> None:
        self.d = d
        self.kept = []  # (set index, a label kept, its twists counted: orientations or 1)
        for i, s in enumerate(d.sets):
            positions = pattern.positions(s.name)
            solved = d.solved[i]
            for label in sorted({solved.perm[j] for j in positions or ()}):
                twist = solved.twist[solved.perm.index(label)]
                self.kept.append((i, label, 1 if twist == tws.WILD else s.twists))

    def start(self) -> tuple:
        out = []
        for i, label, _ in self.kept:
            p = self.d.solved[i]
            out.append(tuple(sorted((j, 0) for j, v in enumerate(p.perm) if v == label)))
        return tuple(out)

    def moved(self, state: tuple, turn: tws.Turn) -> tuple | None:
        out = []
        for (i, label, o), pieces in zip(self.kept, state, strict=True):
            part = turn.parts[i]
            dest = {src: j for j, src in enumerate(part.perm)}
            where = tuple(sorted((dest[j], (t + part.twist[dest[j]]) % o) for j, t in pieces))
            at = {j for j, _ in where}
            if any(r.set == i and label in r.labels and r.position in at for r in self.d.illegal):
                return None
            out.append(where)
        return tuple(out)

    def depths(self, turns: list[tws.Turn]) -> list[int]:
        """Positions at each depth from solved."""
        seen, frontier, found = {self.start()}, [self.start()], [1]
        while True:
            nxt = []
            for s in frontier:
                for t in turns:
                    c = self.moved(s, t)
                    if c is not None and c not in seen:
                        seen.add(c)
                        nxt.append(c)
            if not nxt:
                return found
            found.append(len(nxt))
            frontier = nxt


def pieces_search(d: tws.Definition, pattern: Pattern, turns: list[tws.Turn]) -> list[int]:
    return Pieces(d, pattern).depths(turns)


# -- abstractions -----------------------------------------------------------------------
def test_an_abstraction_keeps_the_pieces_named_and_their_illegal_lines() -> None:
    d = tws.read(DEFS / "gate.tws")
    late = abstract.abstract(d, Pattern("late", (("RING", (6, 7)),)))
    assert [s.name for s in late.sets] == ["RING"]  # GATE left out of every move
    assert late.solved[0].perm == (3, 3, 3, 3, 3, 3, 1, 2)  # 7 and 8 kept, as 1 and 2
    assert late.illegal == (tws.Illegal(0, 0, frozenset({2})),)  # piece 8: now 2
    early = abstract.abstract(d, Pattern("early", (("RING", (0, 1)),)))
    assert early.illegal == ()  # piece 8 is one of the identical pieces: no line
    assert [t.name for t in late.turns] == [t.name for t in d.turns]
    assert tws.parse(late.text).solved == late.solved  # the text written reads back
    cube = cube3.definition()
    edges = abstract.abstract(cube, cube3.PATTERNS[1])
    assert edges.solved[0].twist == (0,) * 6 + (tws.WILD,) * 6


@pytest.mark.parametrize(
    ("name", "keep"),
    [("gate", (("RING", (6, 7)),)), ("gate", (("RING", (0, 1, 2)), ("GATE", (0,)))),
     ("toplayer", (("CORNER", (0, 3)),)), ("mixed", None), ("crossed", (("BEAD", (0, 3, 12)),))],
)  # fmt: skip
def test_small_pattern_tables_equal_a_search_over_their_pieces(
    name: str, keep: tuple | None, tmp_path: Path
) -> None:
    d = tws.read(DEFS / f"{name}.tws")
    if keep is None:  # each set: its first two positions
        keep = tuple((s.name, (0, 1) if s.pieces > 1 else (0,)) for s in d.sets)
    base = TwistyPuzzle(d, name, patterns=[Pattern("p", keep)])
    p = TwistyPattern(base, base.patterns[0])
    m = build_local(p, tmp_path)
    assert counts(m) == pieces_search(d, base.patterns[0], list(base.turns))
    assert m.total == p.expected_total or p.expected_total is None


def test_projection_commutes_with_every_move() -> None:
    """A move then the projection is the projection then the abstraction's move of the
    same name (the cube's and crossed.tws's patterns, random positions)."""
    rng = random.Random(5)
    crossed = TwistyPuzzle(tws.read(CROSSED), "crossed",
                           patterns=[Pattern("a", (("BEAD", (0, 3, 12, 20)),))])  # fmt: skip
    for base in (cube3.CUBE3, crossed):
        for pattern in base.patterns:
            p = TwistyPattern(base, pattern)
            state = base.solved
            assert p.project(state) == p.solved
            for _ in range(60):
                turn = rng.choice(base.turns)
                after = base.apply(state, turn)
                assert p.project(after) == p.apply(p.project(state), p.by_name[turn.name])
                state = after


# -- the cube ----------------------------------------------------------------------------
def test_the_cube_is_made_from_its_geometry_and_has_the_cubes_positions() -> None:
    cube = cube3.CUBE3
    d = cube.definition
    assert [t.name for t in cube.turns] == [f + x for f in "URFDLB" for x in ("", "2", "'")]
    assert group.reachable(d, [t.parts for t in cube.turns]) == 43_252_003_274_489_856_000
    assert not cube.tabulated and cube.pack.size >= 1 << 64
    assert cube.search_tables() == ["cube3-pdb-corners", "cube3-pdb-edges6a", "cube3-pdb-edges6b"]
    # A breadth-first search of our own over the 48 points (position, orientation) the
    # moves permute: the positions at depths 0 to 4.
    perms = [np.array(group.as_permutation(d.sets, t.parts)) for t in cube.turns]
    frontier = np.arange(48, dtype=np.int8)[None, :]
    seen, found = {frontier[0].tobytes()}, [1]
    for _ in range(4):
        kids = np.concatenate([g[frontier] for g in perms]).astype(np.int8)
        new = {}
        for row in kids:
            key = row.tobytes()
            if key not in seen:
                new[key] = row
        seen |= new.keys()
        frontier = np.array(list(new.values()))
        found.append(len(new))
    assert found == [1, 18, 243, 3240, 43239]
    # Superflip: the edges' eleven digits 1, the twelfth implied (the last set the least
    # significant); a scramble's state past 64 bits reads, prints and reads back.
    flip = cube.parse("EDGES\n1 2 3 4 5 6 7 8 9 10 11 12\n1 1 1 1 1 1 1 1 1 1 1 1")
    assert flip == 2**11 - 1 and cube.decode(flip)[1].twist == (1,) * 12
    line = "R U R' U' F2 D' L B2"
    state = cube.from_moves(line)
    assert state >= 1 << 64 and cube.parse(cube.text(state)) == state
    assert cube.parse(cube.block(state)) == state
    assert cube.notation([cube.solved, cube.from_moves("R"), cube.from_moves("R U")]) == "R U"
    with pytest.raises(BadSpec, match="no table of its own: it is solved by search"):
        cube.roots()


def test_the_cubes_pattern_tables_are_built_in_and_named_as_the_15_puzzles() -> None:
    assert puzzles.expand_names(["cube3-pdb"]) == [t.name for t in cube3.TABLES]
    sizes = {t.name: t.pack.size for t in cube3.TABLES}
    assert sizes == {
        "cube3-pdb-corners": 88_179_840,  # 8! 3^7
        "cube3-pdb-edges6a": 42_577_920,  # 12!/6! 2^6
        "cube3-pdb-edges6b": 42_577_920,
    }
    assert all(puzzles.get(n).derived for n in sizes)
    seven = puzzles.expand_names(["cube3-pdb7"])
    assert seven == ["cube3-pdb-corners", "cube3-pdb-edges7a", "cube3-pdb-edges7b"]
    assert puzzles.get(seven[1]).pack.size == 510_935_040  # 12!/5! 2^7
    assert not puzzles.get("cube3").derived
    corners = puzzles.get("cube3-pdb-corners")
    assert corners.definition.sets == (cube3.CUBE3.definition.sets[0],)


def test_a_cube_pattern_of_three_edges_equals_a_search_and_its_kernels_the_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three edges (12 * 11 * 10 * 2^3 = 10,560 positions) from the cube's edges: the
    depths of a search of our own; built with the set's orientations computed (the
    kernels of the six-edge tables) they are the same files."""
    pattern = Pattern("edges3", (("EDGES", (0, 5, 10)),))
    base = TwistyPuzzle(cube3.definition(), "cube3", patterns=[pattern])
    built = build_local(TwistyPattern(base, pattern), tmp_path / "tabled")
    assert built.total == 10_560
    assert counts(built) == pieces_search(base.definition, pattern, list(base.turns))
    monkeypatch.setattr(tables, "MAX_ENTRIES", 0)
    p = TwistyPattern(base, pattern)
    assert [t.kind for t in p.tables.sets] == [tables.COUPLED]
    again = build_local(p, tmp_path / "coupled")
    assert counts(again) == counts(built)
    name = p.name
    assert files(tmp_path / "coupled" / name) == files(tmp_path / "tabled" / name)


# -- puzzles past 64 bits and their specs ---------------------------------------------------
def test_a_definition_past_64_bits_parses_prints_and_decodes() -> None:
    p = TwistyPuzzle(tws.read(CROSSED), "crossed", where="crossed.tws")
    assert not p.tabulated and p.pack.size == 1_124_000_727_777_607_680_000  # 22!
    assert p.kernels is None and p.dense_states is None
    state = p.from_moves("A B2 A' B5'")
    assert state >= 0 and p.parse(p.text(state)) == state == p.parse(p.block(state))
    assert p.check_state(p.pack.size - 1) == p.pack.size - 1  # 22 beads reversed
    assert p.block(p.pack.size - 1).split("\n")[1] == " ".join(map(str, range(22, 0, -1)))
    with pytest.raises(BadSpec) as e:
        p.search_tables()
    assert str(e.value).startswith(
        "crossed.tws: its positions cannot fit a 64-bit state: 1,124,000,727,777,607,680,000 "
        "positions (1.12e+21 arrangements and orientations of its sets), more than 2^64: "
        "name its pattern tables"
    )


def test_the_choice_within_a_memory_budget() -> None:
    d = tws.read(CROSSED)
    # Groups of consecutive beads, as few as fit: 22 beads in 3s and 4s (22*21*20 =
    # 9,240 and 22*21*20*19 = 175,560 positions), then pairs (462).
    chosen = choose(d, None, False, 1_200_000, "x")
    assert [len(p.keep[0][1]) for p in chosen] == [3, 4, 4, 3, 4, 4]
    assert [p.label for p in chosen] == [f"bead{k}" for k in range(1, 7)]
    assert chosen[1].keep == (("BEAD", (3, 4, 5, 6)),)
    small = choose(d, None, False, 30_000, "x")
    assert len(small) == 10 and sum(462 if len(p.keep[0][1]) == 2 else 9240 for p in small) < 30_000
    with pytest.raises(BadSpec, match="no pattern tables fit a memory budget of 400 B"):
        choose(d, None, False, 400, "x")  # 22 tables of one bead: 484 bytes
    cube = choose(cube3.CUBE3.definition, None, False, 3 << 30, "x")
    assert [p.keep for p in cube] == [p.keep for p in cube3.PATTERNS]  # Korf's three


def test_a_spec_past_64_bits_keeps_its_chosen_tables_and_builds_them(tmp_path: Path) -> None:
    db = pipeline.open(tmp_path)
    assert db.add_spec(CROSSED, "rings22", memory=30_000) == ["rings22"]
    kept = tomllib.loads((tmp_path / "specs" / "rings22.toml").read_text())
    assert len(kept["twisty"]["pattern"]) == 10
    assert kept["twisty"]["pattern"][0] == {"label": "bead1", "BEAD": [1, 2]}
    p = db.puzzle("rings22")
    names = p.search_tables()
    assert names[:2] == ["rings22-pdb-bead1", "rings22-pdb-bead2"]
    built = db.build(["rings22-pdb-bead1", "rings22-pdb-bead5"])
    assert [m.total for m in built] == [462, 9240]  # beads 1 2, and 9 10 11
    assert db.histogram("rings22-pdb-bead5")["positions"].to_list() == pieces_search(
        p.definition, p.patterns[4], list(p.turns)
    )
    assert puzzles.expand_names(["rings22-pdb"], tmp_path) == names
    summary = db.query("SELECT name, derived FROM puzzles ORDER BY name")
    assert summary.rows() == [("rings22-pdb-bead1", True), ("rings22-pdb-bead5", True)]
    assert db.table_summary("rings22-pdb-bead5").derived


SPEC = """name = "floppy_pdb"
[twisty]
file = "floppy.tws"
[[twisty.pattern]]
label = "corners"
CORNER = "all"
[[twisty.pattern]]
label = "edges"
EDGE = [1, 3]
"""


def test_a_toml_spec_names_its_pattern_tables(tmp_path: Path) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "floppy.tws").write_text((EXAMPLES / "floppy.tws").read_text())
    (folder / "floppy_pdb.toml").write_text(SPEC)
    db = pipeline.open(tmp_path / "data")
    assert db.add_spec(folder / "floppy_pdb.toml") == ["floppy_pdb"]
    p = db.puzzle("floppy_pdb")
    assert p.tabulated and p.search_tables() == []  # small: a table of its own
    assert p.pattern_tables == ("floppy_pdb-pdb-corners", "floppy_pdb-pdb-edges")
    db.build(["floppy_pdb-pdb"])
    edges = db.puzzle("floppy_pdb-pdb-edges")
    assert edges.derived and db.histogram("floppy_pdb-pdb-edges")["positions"].to_list() == (
        pieces_search(p.definition, p.patterns[1], list(p.turns))
    )
    assert db.table("floppy_pdb-pdb-corners").manifest.total == 24


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('label = "A"\nCORNER = "all"', "twisty.pattern[0].label: a-z, 0-9 and _"),
        ('label = "a"\nWHEEL = "all"', "twisty.pattern[0].WHEEL: not a set of the definition"),
        (
            'label = "a"\nCORNER = [0, 1]',
            'twisty.pattern[0].CORNER: "all", or positions from 1 to 4',
        ),
        ('label = "a"\nCORNER = [1, 1]', "each once"),
        ('label = "a"\nCORNER = "some"', "each once"),
        ('label = "a"', "twisty.pattern[0]: names no set"),
    ],
)
def test_a_bad_pattern_is_one_line(table: str, message: str, tmp_path: Path) -> None:
    text = SPEC.split("[[twisty.pattern]]")[0] + "[[twisty.pattern]]\n" + table + "\n"
    (tmp_path / "floppy.tws").write_text((EXAMPLES / "floppy.tws").read_text())
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(BadSpec) as e:
        pipeline.open(tmp_path / "data").add_spec(tmp_path / "bad.toml")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_worked_example_in_the_docs(tmp_path: Path) -> None:
    docs = (Path(__file__).parents[1] / "docs" / "SPECS.md").read_text()
    text = docs.split("```toml\n# Two rings of 22 distinct beads", 1)[1].split("```", 1)[0]
    (tmp_path / "crossed.tws").write_text(CROSSED.read_text())
    (tmp_path / "crossed.toml").write_text("# Two rings of 22 distinct beads" + text)
    db = pipeline.open(tmp_path / "data")
    assert db.add_spec(tmp_path / "crossed.toml") == ["crossed"]
    assert db.puzzle("crossed").search_tables() == ["crossed-pdb-first", "crossed-pdb-cross"]
    db.build(["crossed-pdb-first"])
    depths = [1, 22, 166, 747, 3566, 3177, 1519, 42]
    assert db.histogram("crossed-pdb-first")["positions"].to_list() == depths
    assert "1, 22, 166, 747, 3,566, 3,177, 1,519 and 42" in docs
    base, first = db.puzzle("crossed"), db.puzzle("crossed-pdb-first")
    state = first.project(base.from_moves("A B"))
    assert state == 1271 and "state 1,271 of that table" in docs
    assert first.block(state).split("\n")[1].startswith("4 1 2 4 4")


@pytest.mark.parametrize(("pieces", "tabulated"), [(63, True), (64, False)])
def test_fewer_than_2_to_the_64_states_are_tabulated(pieces: int, tabulated: bool) -> None:
    """Identical pieces of two orientations, a move flipping the first: 2^pieces states.
    The largest state is 2^64 - 2 at most (2^64 - 1 marks no parent): 2^64 states are
    one too many."""
    labels = " ".join(["1"] * pieces)
    flip = " ".join(["1"] + ["0"] * (pieces - 1))
    text = f"Set P {pieces} 2\nSolved\nP\n{labels}\nEnd\nMove F\nP\n"
    text += " ".join(map(str, range(1, pieces + 1))) + f"\n{flip}\nEnd\n"
    p = TwistyPuzzle(tws.parse(text), "flips")
    assert p.pack.size == 2**pieces and p.tabulated is tabulated
    assert (p.dense_states is not None) is tabulated
