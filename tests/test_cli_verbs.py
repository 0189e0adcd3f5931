"""Issue #34 item 6, the CLI side: one name per meaning, the right words, the missing verbs.

Real subprocesses on small tables built for each test (2x3, hex6: under a second).
"""

from __future__ import annotations

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
