"""Issue #34 item 6, the CLI side: one name per meaning, the right words, the missing verbs.

Real subprocesses on small tables built for each test (2x3, hex6: under a second).
"""

from __future__ import annotations

import json
import re
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
    # about 68,000 GiB (the estimate follows the bytes a position took so far)
    assert re.search(r"about 6\d,\d{3} GiB more on disk", r.stderr), r.stderr


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
    args = ("solve", "3x3-multi", "1 4 7 2 0 8 3 6 5", "--tiles", "--oneline")
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


def test_tiles_and_turns_are_two_flags_and_moves_is_the_old_tiles(data: Path) -> None:
    for flag in ("--tiles", "--moves"):  # --moves: the old spelling, hidden
        r = run("solve", "2x3", "1 2 3 4 0 5", flag, "--oneline", data=data)
        assert r.returncode == 0 and r.stdout.splitlines()[1] == "tiles slid: 5", r.stderr
    r = run("solve", "pocket", "R U R' U'", "--turns", "--oneline", data=data)
    assert r.returncode == 0 and r.stdout.splitlines()[1] == "line to the goal: U R U' R'"
    r = run("solve", "pocket", "R U R' U'", "--moves", data=data)
    one_line_error(r, "pocket is not a sliding puzzle (to type POSITION as turns, give --turns)")
    one_line_error(run("show", "pocket", "R", "--moves", data=data), "now --turns")
    assert run("show", "pocket", "R", "--turns", data=data).stdout.endswith("depth 1\n")
    solve_help = run("solve", "--help").stdout
    assert "--tiles" in solve_help and "--turns" in solve_help
    assert "  --moves" not in solve_help and "--moves still works" in solve_help


def test_a_built_table_without_pattern_databases_offers_method_table(tmp_path: Path) -> None:
    args = ("solve", "plus", "2 1 3 4 5 0 7 6", "--method", "optimal")
    r = run(*args, "--spec", str(SPEC), data=tmp_path)  # not a solve option: refused
    assert r.returncode == 2
    assert run("build", "--spec", str(SPEC), data=tmp_path).returncode == 0
    one_line_error(
        run(*args, data=tmp_path), "plus", "its table is built: solve with `--method table`"
    )
    r = run(*args[:3], "--method", "table", "--oneline", data=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("plus: "), r.stderr


def test_a_typed_root_table_walks_to_the_root(tmp_path: Path) -> None:
    root = "4 1 3 0 2 5"
    assert run("build", "2x3", "--root", root, data=tmp_path).returncode == 0
    name = next(p.name for p in (tmp_path).iterdir() if p.name.startswith("2x3~"))
    r = run("solve", name, "1 2 3 4 5 0", "--oneline", data=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"{name}: {len(lines) - 2} moves to the root (optimal)"
    assert lines[1].endswith("1 2 3 4 5 0") and lines[-1].endswith(root)
    doc = json.loads(run("solve", name, "1 2 3 4 5 0", "--json", data=tmp_path).stdout)
    assert doc["origin"] == "root" and doc["path"][-1] == root
    r = run("solve", name, "1 2 3 4 5 0", "--method", "optimal", data=tmp_path)
    one_line_error(r, "its table is built: solve with `--method table`")


def test_remove_a_table_or_a_spec_with_its_tables(tmp_path: Path) -> None:
    assert run("build", "2x3", "hex6", "--spec", str(SPEC), data=tmp_path).returncode == 0
    one_line_error(run("remove", "nope", data=tmp_path), f"nope is not built in {tmp_path}")
    one_line_error(run("remove", "../2x3", data=tmp_path), "not built")
    # A link inside a table is unlinked, never followed: what it names stays.
    outside = tmp_path.parent / f"{tmp_path.name}-kept.txt"
    outside.write_text("mine")
    (tmp_path / "hex6" / "link").symlink_to(outside)
    r = run("remove", "hex6", data=tmp_path)
    assert r.returncode == 0 and r.stdout == "removed hex6\n", r.stderr
    assert outside.read_text() == "mine" and not (tmp_path / "hex6").exists()
    r = run("remove", "plus", data=tmp_path)
    assert r.returncode == 0 and r.stdout == "removed plus, specs/plus.toml\n", r.stderr
    assert not (tmp_path / "plus").exists() and not (tmp_path / "specs" / "plus.toml").exists()
    # The catalog was rewritten: 2x3 is still there, hex6 is gone.
    r = run("query", "SELECT count(*) AS n FROM summary", "--json", data=tmp_path)
    assert json.loads(r.stdout) == [{"n": 1}], r.stderr
    one_line_error(run("remove", "hex6", data=tmp_path), "hex6 is not built")


def test_remove_waits_for_no_build(tmp_path: Path) -> None:
    from pipeline.storage import staging

    assert run("build", "2x3", data=tmp_path).returncode == 0
    with staging.build_lock(tmp_path, "2x3"):  # a real flock, as a running build holds it
        one_line_error(run("remove", "2x3", data=tmp_path), "2x3 is being built by another")
    assert (tmp_path / "2x3" / "_manifest.json").exists()
    assert run("remove", "2x3", data=tmp_path).returncode == 0


def test_an_edited_spec_is_built_after_removing_the_old_one(tmp_path: Path) -> None:
    data = tmp_path / "d"
    assert run("build", "--spec", str(SPEC), data=data).returncode == 0
    edited = tmp_path / "plus.toml"
    edited.write_text(
        SPEC.read_text().replace("[1, 2, 3, 0, 4, 5, 6, 7]", "[1, 2, 3, 4, 0, 5, 6, 7]")
    )
    r = run("build", "--spec", str(edited), data=data)
    one_line_error(r, f"remove the old one with `puzzledb remove plus --data {data}`")
    assert run("remove", "plus", data=data).returncode == 0
    assert run("build", "--spec", str(edited), data=data).returncode == 0
    r = run("solve", "plus", "1 2 3 4 0 5 6 7", "--oneline", data=data)
    assert r.returncode == 0 and r.stdout.startswith("plus: 0 moves to the goal"), r.stderr
