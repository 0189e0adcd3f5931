"""Faults and bad input get one line and exit 1, never a traceback (issue 12).

Real folders, real subprocess runs of the CLI; a full disk is injected by
making the writes raise ENOSPC in-process, then the rerun must resume to the
same bytes as a clean build.
"""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import pipeline
from pipeline.build import loop as build
from pipeline.errors import BadPosition, DiskFull, TooBig
from pipeline.storage import staging, writer
from tests.conftest import run_cli

GOAL_3X3 = "1 2 3 4 5 6 7 8 0"


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    """The error of a failed run: exit 1, one line on stderr, no traceback.

    (A build's progress lines come before it: its last line is the error.)
    """
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    last = r.stderr.splitlines()[-1]
    assert last.startswith("puzzledb: "), r.stderr
    assert all(" depth " in line for line in r.stderr.splitlines()[:-1]), r.stderr
    return last


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.parquet"))}


# -- a data folder that cannot be written ------------------------------------
def test_build_into_a_regular_file_or_proc_is_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("not a folder")
    for where in (plain, plain / "below", Path("/proc/self")):
        err = one_line(run_cli("build", "2x3", data=where))
        assert "cannot build in" in err and "--data" in err, err
    assert plain.read_text() == "not a folder"


def _tmpfs(where: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at ``where`` for one test (root ignores chmod, not mount
    options); skip where mounting is not allowed."""
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                       capture_output=True)  # fmt: skip
    if r.returncode != 0:
        pytest.skip(f"mounting a tmpfs ({options}) is not allowed here")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


@pytest.fixture
def read_only_mount(tmp_path: Path) -> Iterator[Path]:
    """A read-only tmpfs."""
    yield from _tmpfs(tmp_path / "ro", "ro,size=1m")


def test_build_into_a_read_only_folder_is_one_line(read_only_mount: Path) -> None:
    err = one_line(run_cli("build", "2x3", data=read_only_mount))
    assert "Read-only file system" in err


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs."""
    yield from _tmpfs(tmp_path / "small", "size=8m")


def test_a_small_table_builds_on_an_8_mib_disk(small_disk: Path) -> None:
    r = run_cli("build", "2x3", data=small_disk)
    assert r.returncode == 0, r.stderr
    assert pipeline.open(small_disk).table("2x3").manifest.total == 360


def test_the_disk_check_asks_what_the_level_needs(tmp_path: Path) -> None:
    # A few KB of level need a few KB plus the margin, not 64 MiB.
    free = shutil.disk_usage(tmp_path).free
    staging.check_disk(tmp_path, 4000, 2.0)
    assert staging.DISK_MARGIN <= 1 << 20
    with pytest.raises(DiskFull, match="finished levels are kept"):
        staging.check_disk(tmp_path, free, 2.0)


# -- a disk that fills during a build ------------------------------------------
def _fail_at(n: int, real: object) -> object:
    calls = {"n": 0}

    def fake(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] == n:
            raise OSError(errno.ENOSPC, "No space left on device", str(args[0]))
        return real(*args, **kwargs)  # type: ignore[operator]

    return fake


@pytest.mark.parametrize("where", ["progress", "part"])
def test_a_full_disk_keeps_finished_levels_and_the_rerun_resumes(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    db = pipeline.open(tmp_path)
    if where == "progress":
        monkeypatch.setattr(staging, "write_json_atomic", _fail_at(12, staging.write_json_atomic))
    else:
        # Parts are written by the writer threads: the fault comes back from them.
        monkeypatch.setattr(writer, "write_part", _fail_at(12, writer.write_part))
    with pytest.raises(DiskFull) as e:
        db.build(["2x5"])
    assert "free some space" in str(e.value) and "\n" not in str(e.value)
    progress = json.loads((tmp_path / ".staging" / "2x5" / "progress.json").read_text())
    assert len(progress["levels"]) >= 10  # the finished levels are kept
    monkeypatch.undo()
    seen: list[int] = []
    db.build(["2x5"], on_level=lambda _n, lv: seen.append(lv.depth))
    assert seen[0] == len(progress["levels"])  # resumed, not started again
    assert _files(tmp_path / "2x5") == _files(data / "2x5")


def test_a_full_disk_is_one_line_on_the_command_line(tmp_path: Path) -> None:
    script = (
        "import errno, sys; from pipeline.cli import app as cli\n"
        "from pipeline.storage import staging\n"
        "def full(*a, **k): raise OSError(errno.ENOSPC, 'No space left on device', str(a[0]))\n"
        "staging.write_json_atomic = full\n"
        f"sys.argv = ['puzzledb', 'build', '2x3', '--data', {str(tmp_path)!r}]\n"
        "cli.main()\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    err = one_line(r)
    assert "disk is full" in err and f"build 2x3 --data {tmp_path}" in err


# -- a manifest that does not validate -----------------------------------------
def test_build_over_an_invalid_manifest_says_use_force(tmp_path: Path) -> None:
    assert run_cli("build", "2x3", data=tmp_path).returncode == 0
    path = tmp_path / "2x3" / "_manifest.json"
    doc = json.loads(path.read_text())
    doc["total"] = "many"
    path.write_text(json.dumps(doc))
    err = one_line(run_cli("build", "2x3", data=tmp_path))
    assert "total" in err and "--force" in err
    assert run_cli("build", "2x3", "--force", data=tmp_path).returncode == 0
    assert pipeline.open(tmp_path).table("2x3").manifest.total == 360


# -- states given as numbers ------------------------------------------------------
@pytest.mark.parametrize("state", [12345, 2**70, -1, 1 << 36, True, 2.5])
def test_the_api_checks_integer_states(db: pipeline.Database, state: object) -> None:
    with pytest.raises(BadPosition):
        db.solve("3x3", state)  # type: ignore[arg-type]


def test_a_good_integer_state_solves(db: pipeline.Database) -> None:
    import numpy as np

    state = db.state("3x3", "8 6 7 2 5 4 3 0 1")
    assert db.solve("3x3", state).moves == 31
    assert db.solve("3x3", np.uint64(state)).moves == 31
    with pytest.raises(BadPosition, match="cell"):
        db.solve("knight14", 3 << 26)  # a cell value past the symbols


# -- positions that start with '-' --------------------------------------------------
def test_a_position_starting_with_a_dash_is_a_position(data: Path) -> None:
    for args in (["-1 2 3 4 5 6 7 8"], ["--", "-1 2 3 4 5 6 7 8"]):
        err = one_line(run_cli("solve", "--data", str(data), "3x3", *args))
        assert "'-' is not a cell value" in err


# -- read commands never create the data folder -------------------------------------
READS = [
    ["catalog"],
    ["histogram", "3x3"],
    ["longest", "3x3"],
    ["show", "3x3", GOAL_3X3],
    ["solve", "3x3", GOAL_3X3],
    ["query", "SELECT 1"],
    ["verify", "3x3"],
    ["plot", "histogram", "3x3"],
    ["report"],
]


@pytest.mark.parametrize("args", READS, ids=lambda a: a[0] + (a[1] if a[0] == "plot" else ""))
def test_reads_on_a_missing_folder_say_so_and_create_nothing(
    tmp_path: Path, args: list[str]
) -> None:
    typo = tmp_path / "typo"
    err = one_line(run_cli(*args, data=typo))
    assert str(typo) in err
    assert not typo.exists()


def test_build_hints_carry_the_data_folder(tmp_path: Path) -> None:
    assert run_cli("build", "2x3", data=tmp_path).returncode == 0
    err = one_line(run_cli("histogram", "3x3", data=tmp_path))
    assert f"`puzzledb build 3x3 --data {tmp_path}`" in err
    err = one_line(run_cli("solve", "2x4", "1 2 3 4 5 6 7 0", data=tmp_path))
    assert f"--data {tmp_path}`" in err
    (tmp_path / "2x3" / "d000-000.parquet").unlink()
    err = one_line(run_cli("solve", "2x3", "1 2 3 4 5 0", data=tmp_path))
    assert f"`puzzledb build 2x3 --force --data {tmp_path}`" in err


def test_hints_leave_out_the_default_folder(data: Path) -> None:
    from pipeline import hints

    assert hints.build("3x3", Path("data")) == "`puzzledb build 3x3`"
    assert hints.build("3x3", Path("a b")) == "`puzzledb build 3x3 --data 'a b'`"


# -- glob characters in the data folder -----------------------------------------------
def test_a_data_folder_with_glob_characters(tmp_path: Path) -> None:
    where = tmp_path / "run[1]" / "data"
    r = run_cli("build", "2x3", data=where)
    assert not (where / "puzzles.duckdb.tmp").exists()
    assert not (where / "puzzles.duckdb.tmp.wal").exists()
    assert r.returncode == 0, r.stderr
    assert pipeline.open(where).query('SELECT count(*) FROM "2x3"').item() == 360


def test_a_failed_catalog_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.query import catalog

    pipeline.open(tmp_path).build(["2x3"])
    monkeypatch.setattr(catalog, "statements", lambda *_: ["SELECT nosuch()"])
    with pytest.raises(Exception, match="nosuch"):
        pipeline.open(tmp_path).write_catalog()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".staging", "2x3", "puzzles.duckdb"]


# -- memory budgets ---------------------------------------------------------------------
def test_a_small_budget_that_suffices_builds(tmp_path: Path) -> None:
    r = run_cli("build", "oshidori", "--memory", "300MB", data=tmp_path)
    assert r.returncode == 0, r.stderr


def test_a_budget_above_the_machine_is_capped_with_one_warning(tmp_path: Path) -> None:
    r = run_cli("build", "2x3", "--memory", "1000TB", data=tmp_path)
    assert r.returncode == 0, r.stderr
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "more than this machine has" in warnings[0]


def test_a_budget_too_small_for_a_whole_level_says_sensible_sizes(tmp_path: Path) -> None:
    # Zero-cost moves are bucketed like any step: the ordinary refusal of a budget
    # too small to work in (no longer the whole-level one).
    err = one_line(run_cli("build", "triangle15-moves", "--memory", "1KB", data=tmp_path))
    assert " 0 MiB" not in err and "above 0" not in err
    assert "leaves no room to work" in err and "give at least" in err


# -- builds too large to finish -------------------------------------------------------------
def test_a_build_too_large_stops_after_its_first_levels(tmp_path: Path) -> None:
    err = one_line(run_cli("build", "4x4", data=tmp_path))
    assert "10,461,394,944,000 positions" in err and "--yes" in err
    assert (tmp_path / ".staging" / "4x4" / "progress.json").exists()  # kept to resume
    shutil.rmtree(tmp_path / ".staging")


def test_a_build_within_the_limits_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "MEASURE_AFTER", 1000)
    assert pipeline.open(tmp_path).build(["3x3"])[0].total == 181_440
    monkeypatch.setattr(build, "LONG_BUILD", 0)
    with pytest.raises(TooBig, match="--yes"):
        pipeline.open(tmp_path).build(["2x5"])
    assert pipeline.open(tmp_path).build(["2x5"], yes=True)[0].total == 1_814_400


# -- pattern databases: said before they are built, refused with --no-build ---------------
def test_solve_says_what_it_builds_or_refuses(tmp_path: Path) -> None:
    args = ["solve", "2x3", "1 2 3 4 0 5", "--method", "optimal"]
    err = one_line(run_cli(*args, "--no-build", data=tmp_path))
    assert "pattern databases are not built" in err and "2x3-pdb-5" in err
    assert not (tmp_path / "2x3-pdb-5").exists()
    r = run_cli(*args, data=tmp_path)
    assert r.returncode == 0, r.stderr
    said = "building the 2x3 pattern databases first, once: at most 360 positions, about 6.71 KiB"
    assert said in r.stderr and "under a minute" in r.stderr
    assert r.stdout.startswith("2x3: 1 move to the goal")
    assert (tmp_path / ".cache" / "2x3-pdb.npy").exists()
