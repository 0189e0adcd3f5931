"""What a user reads: short true build logs, counts in words, lines and boards in one order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import korf
from pipeline.build.loop import LevelDone
from pipeline.cli import bars
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.pegs import board as pegs
from pipeline.solvers.loop15 import apply_moves
from pipeline.words import plural
from tests.conftest import run_cli as run
from tests.conftest import told

START = "x x x x x x x x x x x x . x x"
GOAL = ". . . . . . . . . . . . x . ."


def test_plurals() -> None:
    assert plural(1, "position") == "1 position"
    assert plural(0, "move") == "0 moves"
    assert plural(1_814_400, "position") == "1,814,400 positions"


def test_a_log_line_tells_no_tales() -> None:
    # depth 0 of a puzzle with a known total, 2 s in (numba compiling): no time left yet
    early = bars.line("triangle15", LevelDone(0, 1, 1, 2.0, 1, 2.0, **told("triangle15")))
    assert "1 position" in early and "1 positions" not in early
    assert "left" not in early and "0.00 M/s" not in early
    soon = bars.line("triangle15", LevelDone(8, 900, 3000, 20.0, 1, 1.0, **told("triangle15")))
    assert soon.endswith("71% of 4,237")  # under 30 s in: no time left (issue #45)
    late = bars.line("triangle15", LevelDone(8, 900, 3000, 40.0, 1, 2.0, **told("triangle15")))
    assert "71% of 4,237" in late and "about 16 s left" in late
    spark = bars.line("3x3", LevelDone(20, 16_993, 54_802, 6.9, 2, 0.5, "spark", **told("3x3")))
    assert spark.startswith("3x3: depth 20 done (16,993 positions, 2 buckets, on Spark), ")


def test_a_second_build_says_up_to_date_and_logs_stay_short(tmp_path: Path) -> None:
    first = run("build", "2x3", "oshidori", data=tmp_path)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    # no terminal, builds of under 10 s: one line a table and the catalog, no level lines
    assert len(lines) == 3, first.stderr
    assert lines[0].startswith("2x3: 360 positions, max depth 21 (1 there), built in ")
    again = run("build", "2x3", data=tmp_path)
    assert again.returncode == 0
    assert again.stderr.splitlines()[0] == (
        "2x3: 360 positions, max depth 21 (1 there), up to date (nothing to build; "
        "--force rebuilds)"
    )
    forced = run("build", "2x3", "--force", data=tmp_path)
    assert "built in" in forced.stderr and "up to date" not in forced.stderr


def test_list_has_headers_and_counts(data: Path) -> None:
    r = run("list", data=data)
    assert r.returncode == 0
    head, *rows = r.stdout.splitlines()
    assert head.split()[:5] == ["name", "graph", "built", "positions", "default"]
    by_name = {row.split()[0]: row.split() for row in rows}
    assert by_name["3x3"][1:4] == ["bipartite", "yes", "181,440"]
    assert by_name["4x4"][2] == "no"
    doc = {d["name"]: d for d in json.loads(run("list", "--json", data=data).stdout)}
    assert doc["2x5"]["positions"] == 1_814_400 and doc["4x4"]["positions"] is None


def test_unknown_names_get_a_suggestion(tmp_path: Path) -> None:
    r = run("histogram", "3x33", data=tmp_path)
    assert r.returncode == 1
    assert r.stderr.strip() == (
        "puzzledb: unknown puzzle '3x33': did you mean 3x3? (`puzzledb list` names them all)"
    )
    r = run("histogram", "zzzz", data=tmp_path)
    assert "did you mean" not in r.stderr and "puzzledb list" in r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_flags_show_no_value_placeholder() -> None:
    for command in (["build"], ["solve"], ["plot", "histogram"]):
        r = run(*command, "--help")
        assert r.returncode == 0 and "--help" in r.stdout
        assert "<bool>" not in r.stdout and "BOOLEAN" not in r.stdout, r.stdout


def test_solve_moves_with_the_table_prints_the_tiles(data: Path) -> None:
    r = run("solve", "3x3", "8 6 7 2 5 4 3 0 1", "--tiles", "--oneline", data=data)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "3x3: 31 moves to the goal (optimal)"
    tiles = [int(t) for t in lines[1].removeprefix("tiles slid: ").split()]
    assert len(tiles) == 31
    # the tiles slid replay the board to the goal, one legal slide at a time
    board = [8, 6, 7, 2, 5, 4, 3, 0, 1]
    for t in tiles:
        z, j = board.index(0), board.index(t)
        assert abs(z // 3 - j // 3) + abs(z % 3 - j % 3) == 1
        board[z], board[j] = t, 0
    assert board == [1, 2, 3, 4, 5, 6, 7, 8, 0]
    doc = json.loads(run("solve", "hex6", "4 6 5 1 3 2 0", "--moves", "--json", data=data).stdout)
    assert len(doc["tiles"]) == doc["moves"] == 15
    bad = run("solve", "oshidori", "W W W B B B . .", "--moves", data=data)
    assert bad.returncode == 1 and len(bad.stderr.splitlines()) == 1
    assert "not a sliding puzzle" in bad.stderr


def test_peg_lines_count_jumps_and_moves_and_agree(data: Path) -> None:
    r = run("solve", "triangle15", START, data=data)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("triangle15: 13 jumps to the goal")
    count, notation = lines[1].removeprefix("line to the goal, ").split(": ")
    assert count == f"{notation.count('(')} moves"
    labels = [ln for ln in lines if ln.startswith("-- ")]
    assert labels[0] == "-- 0 jumps" and labels[1] == "-- 1 jump" and labels[-1] == "-- 13 jumps"


def test_a_fewest_moves_line_is_printed_from_the_start(data: Path) -> None:
    r = run("solve", "triangle15-moves", GOAL, "--oneline", data=data)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("triangle15-moves: 9 moves from the start (the fewest; 13 jumps")
    notation = lines[1].split(": ")[1]
    assert lines[1].startswith("line from the start, 9 moves: ") and notation.count("(") == 9
    rows = lines[2:]
    assert [int(r.split()[0]) for r in rows] == list(range(14))
    # the boards are the line's positions in its order: from the start to the position
    played = pegs.play(pegs.TRIANGLE15, puzzles.get("triangle15").parse(START), notation)
    p = puzzles.get("triangle15")
    assert [r.split(None, 1)[1] for r in rows] == [p.text(s) for s in played]


def test_oshidori_is_printed_from_the_start(data: Path) -> None:
    r = run("solve", "oshidori", "W W W B B B . .", "--oneline", data=data)
    lines = r.stdout.splitlines()
    assert lines[0].startswith("oshidori: 4 moves from the start (shortest")
    assert lines[1].endswith("B W B W B W . .") and lines[-1].endswith("W W W B B B . .")


def test_the_loop_method_stops_on_a_solved_board(data: Path) -> None:
    goal = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0"
    r = run("solve", "4x4", goal, "--method", "loop", "--json", data=data)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["moves"] == 0
    near = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"
    r = run("solve", "4x4", near, "--method", "loop", "--moves", data=data)
    tiles = [int(t) for t in r.stdout.splitlines()[1].removeprefix("tiles slid: ").split()]
    cells = [int(c) for c in near.split()]
    assert apply_moves(cells, tiles) == (*range(1, 16), 0)


def test_verify_json_reports_the_manifests_count_when_it_fails(data: Path, tmp_path: Path) -> None:
    shutil.copytree(data / "2x3", tmp_path / "2x3")
    part = sorted((tmp_path / "2x3").glob("*.parquet"))[10]
    raw = bytearray(part.read_bytes())
    raw[len(raw) // 2] ^= 1
    part.write_bytes(bytes(raw))
    r = run("verify", "2x3", "--json", data=tmp_path)
    assert r.returncode == 1
    (doc,) = json.loads(r.stdout)
    assert doc["ok"] is False and doc["positions"] == 360 and doc["problems"]
    assert 0 <= doc["checked"] < 360


def test_korf_instances_ship_with_the_package() -> None:
    assert korf.DEFAULT_FILE.exists()
    instances = korf.read_instances(korf.DEFAULT_FILE)
    assert [i for i, _ in instances] == list(range(1, 101))
    # instance 1 is the README's 57-move example, in our convention
    first = korf.from_korf(instances[0][1])
    assert first == [13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2]


#: french37's levels 10..28 as measured (docs/BENCHMARKS.md, 25 November 2026):
#: positions and seconds of each (levels 0..9 hold the rest, in no time).
FRENCH_LEVELS = [
    (2_683_238, 0.5), (7_871_309, 0.7), (20_454_352, 2.7), (46_848_424, 10.0),
    (94_285_698, 19.0), (166_326_193, 34.3), (256_798_366, 61.5), (347_020_326, 87.1),
    (410_819_586, 123.0), (426_884_522, 130.4), (390_321_549, 124.7), (314_816_470, 108.1),
    (224_246_104, 83.0), (141_122_532, 45.4), (78_463_195, 26.0), (38_440_482, 13.3),
    (16_522_952, 5.8), (6_204_615, 1.8), (2_018_380, 0.7),
]  # fmt: skip
#: 4x4-pdb-8's levels 14..32 as measured (its manifest, a quiet build of 27 November
#: 2026, docs/BENCHMARKS.md); the levels before and after hold the rest.
PDB8_LEVELS = [
    (2_126_668, 0.7), (4_387_212, 1.1), (8_360_857, 2.4), (15_369_962, 3.7),
    (26_110_622, 7.4), (42_509_752, 13.7), (63_900_663, 27.9), (91_480_130, 35.2),
    (120_278_860, 48.1), (148_898_294, 60.4), (167_327_095, 70.9), (174_646_354, 76.5),
    (163_267_401, 87.5), (139_814_942, 74.5), (105_465_585, 60.3), (71_738_196, 42.9),
    (42_062_209, 39.9), (21_758_720, 23.8), (9_349_503, 10.1),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "first", "levels", "total"),
    [
        ("french37", 10, FRENCH_LEVELS, 2_993_979_754),
        ("4x4-pdb-8", 14, PDB8_LEVELS, 1_425_191_040),
    ],
)
def test_the_time_left_holds_within_a_quarter(
    name: str, first: int, levels: list[tuple[int, float]], total: int
) -> None:
    """Replayed on a board's measured levels, every estimate from a fifth built to
    90% is within 25% of the time that was really left (a layered graph and a
    reversible one: the two ways the estimate is made)."""
    done = total - sum(n for n, _ in levels)  # the levels before and after, in no time
    spent, end = 0.0, sum(s for _, s in levels)
    before, checked = done, 0
    for depth, (n, s) in enumerate(levels, start=first):
        done, spent = done + n, spent + s
        text = bars.line(
            name, LevelDone(depth, n, done, spent, 1, s, expanded=before, **told(name))
        )
        before = n
        if not 0.2 <= done / total <= 0.9:
            continue
        left = _seconds_left(text)
        assert 0.75 <= left / (end - spent) <= 1.25, (depth, left, end - spent)
        checked += 1
    assert checked >= 5


def _seconds_left(text: str) -> float:
    """The time left a log line gives ("about 4 min 3 s left", "about 8.25 s left")."""
    words = text.rsplit("about ", 1)[1].removesuffix(" left").split()
    unit = {"h": 3600, "min": 60, "s": 1}
    return sum(float(v) * unit[u] for v, u in zip(words[::2], words[1::2], strict=True))


def test_a_resumed_build_counts_its_pace_from_where_it_resumed() -> None:
    # 2,000 were there before, 1,000 made in 100 s: the 1,237 left take about 124 s,
    # not the 41 s of 3,000 in 100 s.
    done = LevelDone(9, 500, 3_000, 100.0, 1, 50.0, resumed=2_000, **told("triangle15"))
    text = bars.line("triangle15", done)
    assert "3,000 positions so far, 1,000 since the build resumed, in 100 s (10/s)" in text
    assert abs(_seconds_left(text) - 123.7) < 1  # said as "2 min 3 s"
