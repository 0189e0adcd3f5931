"""Issue #34 item 6, the CLI side: one name per meaning, the right words, the missing verbs.

Real subprocesses on small tables built for each test (2x3, hex6: under a second).
"""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.engine.budget import size_of
from tests.conftest import one_line_error, run_cli

run = run_cli
SPEC = Path(__file__).parent.parent / "examples" / "specs" / "plus.toml"


def test_a_short_goal_list_names_what_is_wrong(tmp_path: Path) -> None:
    spec = tmp_path / "short.toml"
    spec.write_text(SPEC.read_text().replace("goal = [1, 2, 3, 0, 4, 5, 6, 7]", "goal = [1, 2, 3]"))
    r = run("build", "--spec", str(spec), data=tmp_path / "d")
    one_line_error(r)
    assert "not a permutation of 0..7 (3 values, not 8; missing 0 4 5 6 7)" in r.stderr
    assert "repeated" not in r.stderr


def test_sizes_have_thousands_separators(tmp_path: Path) -> None:
    assert size_of(68662 * 2**30) == "68,662 GiB"
    assert size_of(1.5 * 2**30) == "1.5 GiB"
    r = run("build", "4x4", data=tmp_path)
    one_line_error(r, "4x4")
    assert "about 68,662 GiB more on disk" in r.stderr


def test_version() -> None:
    from importlib.metadata import version

    r = run("--version")
    assert r.returncode == 0 and r.stdout == f"puzzledb {version('puzzledb')}\n", r.stderr


def test_verify_all_checks_every_built_table_one_line_each(tmp_path: Path) -> None:
    one_line_error(run("verify", "--all", data=tmp_path), "no table is built")
    assert run("build", "2x3", "hex6", data=tmp_path).returncode == 0
    r = run("verify", "--all", data=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "2x3: ok (360 positions, 22 levels)\nhex6: ok (5,040 positions, 16 levels)\n"
    one_line_error(run("verify", "--all", "hex6", data=tmp_path), "not both")
    # A level file swapped for another: that table fails on its line, the next is still checked.
    (tmp_path / "2x3" / "d004-000.parquet").write_bytes(
        (tmp_path / "2x3" / "d003-000.parquet").read_bytes()
    )
    r = run("verify", "--all", data=tmp_path)
    assert r.returncode == 1
    first, second = r.stdout.splitlines()
    assert first.startswith("2x3: FAILED: ") and "d004-000.parquet has" in first
    assert second == "hex6: ok (5,040 positions, 16 levels)"


def test_a_multi_tile_step_names_every_tile_it_slides_in_text_and_svg(tmp_path: Path) -> None:
    assert run("build", "3x3-multi", data=tmp_path).returncode == 0
    svg = tmp_path / "walk.svg"
    args = ("solve", "3x3-multi", "1 4 7 2 0 8 3 6 5", "--moves", "--oneline")
    r = run(*args, "--svg", str(svg), data=tmp_path)
    assert r.returncode == 0, r.stderr
    line = r.stdout.splitlines()[1]
    assert line == "tiles slid: 6 5 8 6 4 7 6+8 5 4+7 1 2+3 4 7 3 2 1 3 2 4 7+5 8+6 3 2+5 8"
    # step 7 (board 6 to board 7) slides 6 then 8 up into the blank's column
    assert r.stdout.splitlines()[2 + 6].endswith("1 7 0 2 4 6 3 5 8")
    assert r.stdout.splitlines()[2 + 7].endswith("1 7 6 2 4 8 3 5 0")
    text = svg.read_text()
    assert ">7: tiles 6+8<" in text and ">9: tiles 4+7<" in text and ">1: tile 6<" in text
    doc = json.loads(run(*args[:-1], "--json", data=tmp_path).stdout)
    assert doc["tiles"][6] == [6, 8] and doc["tiles"][0] == [6] and len(doc["tiles"]) == 24
    # A board whose steps slide one tile keeps its list of numbers.
    assert run("build", "2x3", data=tmp_path).returncode == 0
    doc = json.loads(run("solve", "2x3", "1 2 3 4 0 5", "--moves", "--json", data=tmp_path).stdout)
    assert doc["tiles"] == [5]
