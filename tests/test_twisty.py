"""Twisty puzzles from twsearch definitions: the format's refusals, the packing, and
tables built for real equal to ``twsearch -g`` and to the built-in pocket cube.

The counts a depth come from twsearch itself (github.com/cubing/twsearch, the
last commit with its C++ program, 0a8bfb07dd1f389cedd4bd957519f09c5926d547,
built with g++ 12 outside the repository): ``twsearch -g FILE`` on each file of
tests/data/twisty/ (our own definitions, not twsearch's samples), and for
gate.tws ``twsearch -F -g``: twsearch's two-bit search leaves ``Illegal`` lines
out (1 9 28 87 ... for gate.tws), its sorting search (-F) keeps them.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import random
import re
from pathlib import Path

import numpy as np
import pytest

from pipeline.engine import bitmaps, dense
from pipeline.engine.core import Graph
from pipeline.errors import BadPosition, BadSpec
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.cube.board import POCKET
from pipeline.puzzles.twisty import tables, tws
from pipeline.puzzles.twisty.board import TwistyPuzzle, load
from pipeline.storage.table import Table
from pipeline.verify.checks import verify
from tests.conftest import build_local, distances_from

DEFS = Path(__file__).parent / "data" / "twisty"
#: floppy.tws and rings.tws are the example specs' (the matrix builds them too).
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "specs"


def definition(name: str) -> Path:
    """Our definition file ``name``: a test's own, or an example spec's."""
    own = DEFS / f"{name}.tws"
    return own if own.exists() else EXAMPLES / f"{name}.tws"


#: twsearch -g (gate: -F -g) on each definition: positions at each depth.
TWSEARCH = {
    "floppy": [1, 4, 10, 24, 53, 64, 31, 4, 1],
    "rings": [1, 7, 26, 100, 288, 705, 867, 680, 412, 64],
    "toplayer": [1, 9, 54, 321, 1777, 8392, 26591, 28592, 2303],
    "gate": [1, 7, 16, 44, 116, 205, 333, 584, 851, 1075, 1462, 1911, 2156, 2416, 2819, 2968],
    "mixed": [1, 19, 192, 1256, 5696, 16060, 19700, 3732],
    "pocket": [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644],
}
TWSEARCH["gate"] += [2843, 2836, 2770, 2389, 1980, 1701, 1362, 944, 631, 429, 256, 118, 41, 13, 3]
#: The pocket cube in quarter turns (tests/test_cube.py: the literature's figures).
POCKET_QTM = [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852]
POCKET_QTM += [782536, 90280, 276]


def puzzle(name: str, **options: object) -> TwistyPuzzle:
    return load(definition(name), name, **options)


def counts(m) -> list[int]:
    return [lv.positions for lv in m.levels]


def files(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.parquet"))
    }


# -- the format's refusals: one line each, naming the line ------------------------------
HEAD = "Set A 3 3\nSolved\nA\n1 2 3\n0 0 0\nEnd\n"
MOVE = "Move F\nA\n2 3 1\n0 0 0\nEnd\n"
REFUSED = [
    (HEAD + MOVE + "MoveAlias G F\n", "line 12: unknown keyword 'MoveAlias'"),
    ("Set A 3 3\nFoo\n", "line 2: unknown keyword 'Foo'"),
    ("Set A 0 3\n", "line 1: the number of pieces '0' is not a number from 1 to 255"),
    ("Set A 3 128\n", "the number of orientations '128' is not a number from 1 to 127"),
    ("Set A 3 3\nSet A 2 1\n", "line 2: set A is defined twice"),
    ("Set 1A 3 3\n", "line 1: set name '1A'"),
    ("Solved\nEnd\n", "line 1: Solved in the wrong place"),
    ("Set A 3 3\n" + MOVE, "line 2: Move in the wrong place"),
    (HEAD + "Move F\nA\n2 2 1\nEnd\n", "line 9: set A: not a permutation (each of 1..3 once)"),
    (HEAD + "Move F\nA\n2 3 1\n0 3 0\nEnd\n", "line 10: set A: an orientation '3' is not"),
    (HEAD + "Move F\nA\n2 3 1\n0 ? 0\nEnd\n", "line 10: set A: an orientation '?'"),
    (HEAD + "Move F\nA\n2 3\nEnd\n", "line 9: set A has 3 pieces, the line has 2"),
    (HEAD + "Move F\nB\n2 3 1\nEnd\n", "line 8: 'B' is not a set (sets: A)"),
    (HEAD + "Move F\nA\n2 3 1\n", "line 7: the block has no End"),
    (HEAD + "Move F\n2 3 1\nEnd\n", "line 8: a line of numbers where a set name was expected"),
    (HEAD + MOVE + MOVE, "line 12: move F is defined twice"),
    (HEAD + MOVE + "MoveSequence G F H\n", "line 12: MoveSequence G: 'H' is no move"),
    (
        "Set A 4 1\nSolved\nEnd\nMove F\nA\n2 3 4 1\nEnd\nMove F2\nA\n2 1 3 4\nEnd\n",
        "two moves are named F2 (a move and another's power)",
    ),
    (HEAD + MOVE + "Illegal A 1 1\n", "line 12: Illegal: the solved state holds a label"),
    (HEAD + MOVE + "Illegal A 4 1\n", "line 12: Illegal: a position of A '4'"),
    ("Set A 2 1\nSolved\nA\n1 1\n?\nEnd\n", "line 5: set A has 2 pieces, the line has 1"),
    ("Set A 2 3\nSolved\nA\n1 1\n0 ?\nEnd\n", "line 2: set A: pieces labelled 1 mix ?"),
    ("Set A 3 3\n", "no Solved (or StartState) block"),
    (HEAD, "no moves: a definition has at least one Move block"),
    ("Name A B\n", "line 1: Name takes 1 word(s), got 2"),
]


@pytest.mark.parametrize(("text", "message"), REFUSED)
def test_a_bad_definition_is_one_line_naming_its_line(text: str, message: str) -> None:
    with pytest.raises(BadSpec) as e:
        tws.parse_bytes(text.encode(), "bad.tws")
    assert str(e.value).startswith("bad.tws: ") and "\n" not in str(e.value)
    assert message in str(e.value)


def test_a_file_too_large_or_not_text_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.tws"
    big.write_bytes(b"#" * (tws.MAX_BYTES + 1))
    with pytest.raises(BadSpec, match="larger than 1,048,576 bytes"):
        tws.read(big)
    with pytest.raises(BadSpec, match="line 2: not ASCII text"):
        tws.parse_bytes("Set A 3 3\nName \u00e9\n".encode(), "x.tws")
    with pytest.raises(BadSpec, match="cannot read it"):
        tws.read(tmp_path / "missing.tws")


def test_positions_past_64_bits_say_how_many_there_are() -> None:
    # 21 distinct pieces, a 21-cycle and a swap: every arrangement, 21! > 2^64.
    cycle = " ".join(map(str, [21, *range(1, 21)]))
    swap = " ".join(map(str, [2, 1, *range(3, 22)]))
    text = f"Set P 21 1\nSolved\nEnd\nMove R\nP\n{cycle}\nEnd\nMove S\nP\n{swap}\nEnd\n"
    p = TwistyPuzzle(tws.parse(text, "big.tws"), "big", where="big.tws")
    assert not p.tabulated  # no table of its own: its pattern tables, when it names some
    with pytest.raises(BadSpec) as e:
        p.search_tables()
    assert str(e.value) == (
        "big.tws: its positions cannot fit a 64-bit state: 51,090,942,171,709,440,000 "
        "positions (5.11e+19 arrangements and orientations of its sets), more than 2^64: "
        "name its pattern tables ([[twisty.pattern]] in a TOML spec), or let build --spec "
        "choose them (--memory)"
    )


def test_moves_come_with_their_powers_named_as_twsearch_names_them() -> None:
    def names(order: int) -> list[str]:
        cycle = " ".join(map(str, [order, *range(1, order)]))
        text = f"Set P {order} 1\nSolved\nEnd\nMove F\nP\n{cycle}\nEnd\n"
        return [t.name for t in tws.parse(text).turns]

    assert names(2) == ["F"]
    assert names(3) == ["F", "F'"]
    assert names(4) == ["F", "F2", "F'"]
    assert names(5) == ["F", "F2", "F2'", "F'"]
    assert names(6) == ["F", "F2", "F3", "F2'", "F'"]
    d = tws.read(DEFS / "gate.tws")
    assert [m.name for m in d.moves] == ["R", "S", "T"]  # T = R S R': order 2
    assert [t.name for t in d.turns][-3:] == ["R'", "S", "T"]


def test_a_move_block_writes_twists_at_the_old_position_a_transformation_at_the_new() -> None:
    # The same turn both ways: piece 1 goes to position 2 twisted once.
    old = tws.parse(HEAD + "Move F\nA\n3 1 2\n1 0 0\nEnd\n")
    new = tws.parse(HEAD + "MoveTransformation F\nA\n2 0 1\n0 1 0\nEnd\n")
    assert old.turns == new.turns
    assert old.moves[0].parts[0] == tws.Part((2, 0, 1), (0, 1, 0))


# -- the packing ------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(TWSEARCH))
def test_states_round_trip_through_every_typed_form(name: str) -> None:
    p = puzzle(name)
    rng = random.Random(7)
    state, seen = p.solved, []
    for _ in range(300):
        with contextlib.suppress(BadPosition):  # a move into an Illegal position
            state = p.apply(state, rng.choice(p.turns))
        seen.append(state)
        assert p.encode(p.decode(state)) == state
        assert p.parse(p.text(state)) == state == p.parse("CPOS " + p.text(state))
        assert p.parse(p.block(state)) == state
        assert p.parse("Scramble x\n" + p.block(state) + "\nEnd") == state
        assert p.check_state(state) == state
    coords = p.pack.split_many(np.array(seen, np.uint64))
    for code, mine in zip(p.pack.sets, coords, strict=True):
        seq, tw = code.decode_many(mine)
        assert (code.encode_many(seq, tw) == mine).all()
        for c, row in zip(mine, seq, strict=True):
            assert code.decode(int(c))[0] == list(row)


def test_the_encoding_is_dense_and_public() -> None:
    cube = puzzle("cube2")
    assert cube.pack.size == 88_179_840 == 40320 * 3**7  # 8! arrangements, 7 free twists
    assert cube.expected_total == 88_179_840
    pocket = puzzle("pocket")
    assert pocket.solved == 0 and pocket.text(0) == "0369CFI"
    # Corner 7 (DRB) at URF twisted once, corner 1 at DRB: rank and digits by hand.
    # Lehmer digits 6 1 1 1 1 1 (the rank 4473), the twists' digits 1 0 0 0 0 (the last,
    # 2, follows from their sum).
    state = pocket.parse("CORNER\n7 2 3 4 5 6 1\n1 0 0 0 0 0 2")
    assert state == (6 * 720 + 1 * 120 + 1 * 24 + 1 * 6 + 1 * 2 + 1) * 3**6 + 1 * 3**5
    rings = puzzle("rings")  # labels 1 (4 beads), 2 (4), 3 (2): a multiset rank
    assert rings.pack.size == 3150 == 3628800 // (24 * 24 * 2)
    assert rings.parse("BEAD\n1 1 1 1 2 2 2 2 3 3") == 0
    assert rings.parse("BEAD\n3 3 2 2 2 2 1 1 1 1") == 3149


def test_positions_no_move_reaches_are_refused_in_one_line() -> None:
    pocket, gate = puzzle("pocket"), puzzle("gate")
    bad = {
        "CORNER\n1 2 3 4 5 6 7\n1 0 0 0 0 0 0": "orientations sum to 1 (mod 3)",
        "CORNER\n1 1 3 4 5 6 7": "the pieces are not the solved state's",
        "CORNER\n1 2 3": "set CORNER has 7 pieces, the line has 3",
        "EDGE\n1 2": "'EDGE' is not a set",
        "0369CF": "short or not base 62",
        "0369CFI0": "longer than a position",
        "U R": "(turns from solved? give --turns)",
    }
    for text, message in bad.items():
        with pytest.raises(BadPosition, match=re.escape(message)):
            pocket.parse(text)
    with pytest.raises(BadPosition, match="piece 8 may not be at position 1"):
        gate.parse("RING\n8 1 2 3 4 5 6 7")
    with pytest.raises(BadPosition, match="'Q' is not a move of pocket"):
        pocket.from_moves("R Q")
    even = tws.parse("Set P 4 1\nSolved\nEnd\nMove C\nP\n2 3 1 4\nEnd\nMove D\nP\n1 3 4 2\nEnd\n")
    p = TwistyPuzzle(even, "even")
    assert p.pack.sets[0].even and p.pack.size == 12
    with pytest.raises(BadPosition, match="odd arrangement"):
        p.parse("P\n2 1 3 4")
    with pytest.raises(BadPosition, match="not a state of pocket"):
        pocket.check_state(pocket.pack.size)


def test_draw_block_and_notation() -> None:
    floppy = puzzle("floppy")
    state = floppy.from_moves("R F")
    assert floppy.block(state) == "CORNER\n2 4 3 1\nEDGE\n1 2 3 4\n1 0 0 1"
    assert floppy.draw(state) == "CORNER  2 4 3 1\nEDGE    1+1   2   3 4+1"
    assert floppy.notation([floppy.solved, floppy.from_moves("R"), state]) == "R F"
    top = puzzle("toplayer")
    # R: piece 5 (bottom: orientation ignored) to URF, 1 to UBR twisted once, 4 to DRB twice.
    assert top.draw(top.from_moves("R")) == "CORNER    5   2   3 1+1   5   5 4+2"


# -- tables built for real ----------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in TWSEARCH if n != "pocket"])
def test_tables_equal_twsearch_and_verify(name: str, tmp_path: Path) -> None:
    p = puzzle(name)
    m = build_local(p, tmp_path)
    assert counts(m) == TWSEARCH[name]
    assert all(lv.stats.get("dense") for lv in m.levels[1:])  # the bitmap search made them
    report = verify(p, Table(tmp_path / name))
    assert report.ok, report.problems


@pytest.mark.parametrize("name", ["floppy", "rings", "toplayer", "gate", "mixed"])
def test_the_dense_search_writes_the_sorting_paths_files(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = build_local(puzzle(name), tmp_path / "dense")
    # floppy's four half turns go by the marks, the others by the bitmaps; the rings and
    # toplayer (its ? pieces keep no digit) fill their ranks, so their last levels go
    # backwards (each rank looks for its parents).
    ways = [lv.stats.get("backward") for lv in made.levels[1:]]
    assert ways[-1] is {"floppy": None, "rings": True, "toplayer": True}.get(name, False)
    monkeypatch.setattr(dense, "strategy", lambda space: None)  # no strategy searches it
    m = build_local(puzzle(name), tmp_path / "sorted")
    assert not any(lv.stats.get("dense") for lv in m.levels)
    assert files(tmp_path / "dense" / name) == files(tmp_path / "sorted" / name)


def test_a_stopped_dense_build_resumes_to_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_local(puzzle("mixed"), tmp_path / "whole")
    step = bitmaps.Bitmaps.step

    def stop_at_5(self, frontier, *rest):  # the level after depth 4 is never made
        if len(frontier) == TWSEARCH["mixed"][4]:
            raise KeyboardInterrupt
        return step(self, frontier, *rest)

    with monkeypatch.context() as mp:
        mp.setattr(bitmaps.Bitmaps, "step", stop_at_5)
        with pytest.raises(KeyboardInterrupt):
            build_local(puzzle("mixed"), tmp_path / "resumed")
    m = build_local(puzzle("mixed"), tmp_path / "resumed")
    assert counts(m) == TWSEARCH["mixed"]
    assert files(tmp_path / "whole" / "mixed") == files(tmp_path / "resumed" / "mixed")


def test_quarter_turns_equal_the_built_in_pocket_qtm(tmp_path: Path) -> None:
    p = puzzle("pocket", quarter=True)
    assert [t.name for t in p.turns] == ["U", "U'", "R", "R'", "F", "F'"]
    assert p.graph is Graph.BIPARTITE  # a quarter turn is a 4-cycle of corners
    m = build_local(p, tmp_path)
    assert counts(m) == POCKET_QTM
    deep, _ = _rows(tmp_path / "pocket", 14)
    assert {p.depth_parity(int(s)) for s in deep} == {0}
    assert puzzle("floppy").graph is Graph.BIPARTITE and puzzle("gate").graph is Graph.REVERSIBLE


@pytest.fixture(scope="module")
def pockets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The built-in pocket table and the one built from pocket.tws."""
    folder = tmp_path_factory.mktemp("pockets")
    build_local(puzzles.get("pocket"), folder / "builtin")
    build_local(puzzle("pocket"), folder)
    return folder / "builtin" / "pocket", folder


def _rows(table: Path, depth: int) -> tuple[np.ndarray, np.ndarray]:
    chunks = list(Table(table).level(depth).chunks(1 << 40, parents=True))
    return np.concatenate([c[0] for c in chunks]), np.concatenate([c[1] for c in chunks])


def to_twisty(builtin: np.ndarray) -> np.ndarray:
    """The correspondence: built-in cell i (corner position URF UFL ULB UBR DFR DLF DRB)
    holding ``3*c + o`` is position i+1 of pocket.tws holding label c+1 twisted o; the
    state is then docs/DATA.md's, written out again here: the labels' lexicographic
    rank (Lehmer digits) times 3^6, plus the first six twists in base 3."""
    cells = np.stack([(builtin >> np.uint64(5 * i)) & np.uint64(31) for i in range(7)], axis=1)
    corner, twist = (cells // 3).astype(np.int64), (cells % 3).astype(np.int64)
    rank = np.zeros(len(builtin), np.int64)
    for j in range(7):
        later_smaller = (corner[:, j + 1 :] < corner[:, j : j + 1]).sum(axis=1)
        rank += later_smaller * math.factorial(6 - j)
    digits = twist[:, :6] @ (3 ** np.arange(5, -1, -1))
    return (rank * 3**6 + digits).astype(np.uint64)


def test_the_pocket_cube_from_a_definition_is_the_built_in_table_row_for_row(
    pockets: tuple[Path, Path],
) -> None:
    """Each depth holds the same positions, and each row's parent is the same relation
    read in each encoding: the built-in parent maps to a parent of the position one
    move away in the twisty table's level above, and the twisty parent is the smallest
    such (each table keeps its own encoding's smallest)."""
    builtin, folder = pockets
    p = puzzle("pocket")
    mine = Table(folder / "pocket")
    assert counts(mine.manifest) == counts(Table(builtin).manifest) == TWSEARCH["pocket"]
    above = None
    for depth in range(len(TWSEARCH["pocket"])):
        states, parents = _rows(builtin, depth)
        ours, our_parents = _rows(folder / "pocket", depth)
        mapped = to_twisty(states)
        order = np.argsort(mapped)
        assert (mapped[order] == ours).all()
        if depth == 0:
            solved = np.array(POCKET.roots(), np.uint64)
            assert ours.tolist() == [p.solved] == to_twisty(solved).tolist()
            above = ours
            continue
        _, kids = p.expand(ours)  # move by move: kids[t * n + i] is row i's move t
        kids = kids.reshape(len(p.turns), len(ours))
        in_above = np.zeros(p.pack.size, bool)
        in_above[above] = True
        back = in_above[kids]  # the moves into the level above
        smallest = np.where(back, kids, np.iinfo(np.uint64).max).min(axis=0)
        assert (our_parents == smallest).all()
        theirs = to_twisty(parents)[order]  # the built-in parents, row for row of ours
        assert ((kids == theirs) & back).any(axis=0).all()
        above = ours


def test_typed_moves_agree_with_the_built_in_cube() -> None:
    p = puzzle("pocket")
    for line in ("R", "U2", "R U R' U'", "F2 R' U F U2 R2 F'"):
        mine = p.from_moves(line)
        assert mine == int(to_twisty(np.array([POCKET.from_moves(line)], np.uint64))[0])
        assert p.notation([p.from_moves(" ".join(line.split()[:k])) if k else p.solved
                           for k in range(len(line.split()) + 1)]) == line  # fmt: skip


def test_the_worked_example_in_the_docs_is_the_floppy_definition() -> None:
    docs = (Path(__file__).parents[1] / "docs" / "SPECS.md").read_text()
    block = docs.split("```\n# A floppy-like 3x3x1", 1)[1].split("```", 1)[0]
    assert ("# A floppy-like 3x3x1" + block) in definition("floppy").read_text()
    assert "1, 4, 10, 24, 53, 64, 31, 4 and 1 positions" in docs
    assert TWSEARCH["floppy"] == [1, 4, 10, 24, 53, 64, 31, 4, 1]


def test_the_distance_between_two_positions_renames_distinct_pieces(tmp_path: Path) -> None:
    """floppy (twists on its edges): every position's distance to three others, against our
    own search from each; rings (beads share labels): one line why no table answers."""
    import pipeline
    from pipeline.errors import BadMethod

    db = pipeline.open(tmp_path)
    for name in ("floppy", "rings"):
        db.add_spec(EXAMPLES / f"{name}.tws")
    db.build(["floppy", "rings"])
    p = db.puzzle("floppy")
    rng = random.Random(47)
    for _ in range(3):
        b = db.state("floppy", db.at_depth("floppy", rng.randrange(9)))
        want = distances_from(b, lambda s: [p.apply(s, t) for t in p.turns])
        assert len(want) == 192
        assert {a: db.distance("floppy", a, b).moves for a in want} == want
    far = db.distance("floppy", p.solved, db.state("floppy", db.at_depth("floppy", 8, 0)))
    assert far.moves == 8 and far.table == "floppy"
    rings = [db.state("rings", db.at_depth("rings", d, 0)) for d in (3, 5)]
    with pytest.raises(BadMethod, match="not interchangeable labels"):
        db.distance("rings", *rings)


@pytest.mark.parametrize("kind", ["coupled", "computed"])
@pytest.mark.parametrize("name", ["toplayer", "gate", "mixed"])
def test_sets_not_tabled_have_kernels_that_write_the_same_files(
    name: str, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A set too large for its tables gets compiled kernels all the same: its arrangement
    tabled and its orientations computed, or everything computed; the dense search and
    the sorting path with them write the tabled build's files (Illegal lines included:
    gate), and the numpy expander (verify's) agrees."""
    build_local(puzzle(name), tmp_path / "tabled")
    monkeypatch.setattr(tables, "MAX_ENTRIES", 0)
    if kind == "computed":
        monkeypatch.setattr(tables, "MAX_ARRANGED", 0)
    p = puzzle(name)
    want = {"coupled": tables.COUPLED, "computed": tables.COMPUTED}[kind]
    assert {t.kind for t in p.tables.sets} == {want}
    m = build_local(p, tmp_path / "dense")
    assert all(lv.stats.get("dense") for lv in m.levels[1:])
    assert files(tmp_path / "tabled" / name) == files(tmp_path / "dense" / name)
    report = verify(p, Table(tmp_path / "dense" / name))
    assert report.ok, report.problems
    monkeypatch.setattr(dense, "strategy", lambda space: None)  # no strategy searches it
    build_local(puzzle(name), tmp_path / "sorted")
    assert files(tmp_path / "tabled" / name) == files(tmp_path / "sorted" / name)
