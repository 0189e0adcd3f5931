"""puzzledb's writes into a data folder never follow a link planted there.

Issue #32 ("reading it may never ... write a file anywhere"): for each place a
command writes, a link to a sentinel file and to a sentinel folder outside the
data folder; the sentinels stay as they were, and the command gives the right
table (exit 0) or one line (exit 1). Real builds, real CLI subprocesses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import build_local, one_line_error, run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "specs"
SECRET = b"export PATH=/usr/bin  # the user's own file\n"
POSITIONS = {"2x3": 360, "plus": 480}  # 6!/2; plus: docs/SPECS.md, tests/test_spec.py
STARTED = "2001-01-01T00:00:00+00:00"  # the planted progress's start: kept only on resume


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data folder, and beside it ``outside/``: a sentinel file and an empty folder."""
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "outside" / "empty").mkdir(parents=True)
    (tmp_path / "outside" / "bashrc").write_bytes(SECRET)
    (tmp_path / "data").mkdir()
    return tmp_path / "data"


def _plant(folder: Path, place: str, to: str) -> None:
    """A link at ``place`` to the sentinel ``to`` ("file" or "folder")."""
    link = folder / place
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(folder.parent / "outside" / ("bashrc" if to == "file" else "empty"))


def _untouched(folder: Path) -> None:
    outside = folder.parent / "outside"
    assert (outside / "bashrc").read_bytes() == SECRET
    assert list((outside / "empty").iterdir()) == []
    assert sorted(p.name for p in outside.iterdir()) == ["bashrc", "empty"]


def _built(folder: Path, table: str) -> dict:
    """The table's manifest, once its count is checked through the catalog."""
    r = run_cli("query", f'SELECT count(*) AS n FROM "{table}"', "--format", "csv", data=folder)
    assert r.returncode == 0 and r.stdout.split() == ["n", str(POSITIONS[table])], r.stderr
    assert (folder / table).is_dir() and not (folder / table).is_symlink()
    assert (folder / "puzzles.duckdb").is_file()
    assert not (folder / "puzzles.duckdb").is_symlink()
    return json.loads((folder / table / "_manifest.json").read_text())


@pytest.mark.parametrize("to", ["file", "folder"])
def test_report_replaces_a_planted_link(folder: Path, to: str) -> None:
    """report.html a link to ~/.bashrc overwrote it on 34ee030 (a link to a folder: exit 1)."""
    assert run_cli("build", "2x3", data=folder).returncode == 0
    _plant(folder, "report.html", to)
    r = run_cli("report", data=folder)
    assert r.returncode == 0 and r.stdout.strip() == str(folder / "report.html"), r.stderr
    page = folder / "report.html"
    assert not page.is_symlink() and "360" in page.read_text()
    assert [p.name for p in folder.iterdir() if "report" in p.name] == ["report.html"]
    _untouched(folder)


@pytest.mark.parametrize(
    ("place", "to", "line"),
    [
        (".staging", "folder", ".staging is a symbolic link"),
        (".staging/2x3.lock", "file", None),
        (".staging/2x3", "folder", None),
        ("2x3", "folder", None),
        ("2x3", "file", None),
        ("puzzles.duckdb", "file", None),
    ],
)
def test_a_build_never_writes_through_a_planted_link(
    folder: Path, place: str, to: str, line: str | None
) -> None:
    """On 34ee030 the lock took the pid into the file linked, and a linked .staging got
    the lock and the build's parts; a linked staging or table folder was exit 1."""
    _plant(folder, place, to)
    r = run_cli("build", "2x3", data=folder)
    if line is not None:
        one_line_error(r, line)
    else:
        assert r.returncode == 0, r.stderr
        _built(folder, "2x3")
    _untouched(folder)


@pytest.mark.parametrize("lock", ["2x3.lock", "catalog.lock"])
def test_a_lock_that_is_a_hard_link_is_replaced(folder: Path, lock: str) -> None:
    """34ee030 (and d1f4889's O_NOFOLLOW) truncated the file a hard link as
    ``.staging/2x3.lock`` names and wrote the build's pid into it: no link followed,
    the same file under a second name."""
    (folder / ".staging").mkdir()
    os.link(folder.parent / "outside" / "bashrc", folder / ".staging" / lock)
    assert run_cli("build", "2x3", data=folder).returncode == 0
    _built(folder, "2x3")
    _untouched(folder)
    assert (folder.parent / "outside" / "bashrc").stat().st_nlink == 1
    assert (folder / ".staging" / lock).stat().st_nlink == 1


@pytest.mark.parametrize(
    ("place", "to", "line"),
    [("specs", "folder", "specs is a symbolic link"), ("specs/plus.tmp", "file", None)],
)
def test_a_spec_is_kept_without_following_a_link(
    folder: Path, place: str, to: str, line: str | None
) -> None:
    """On 34ee030 the spec went through ``specs/plus.tmp`` into the linked file, or
    into the linked folder."""
    _plant(folder, place, to)
    r = run_cli("build", "--spec", str(EXAMPLES / "plus.toml"), data=folder)
    if line is not None:
        one_line_error(r, line)
    else:
        assert r.returncode == 0, r.stderr
        _built(folder, "plus")
        kept = folder / "specs" / "plus.toml"
        assert kept.read_text() == (EXAMPLES / "plus.toml").read_text()
    _untouched(folder)


def test_a_spec_into_a_data_folder_that_is_a_file_is_one_line(folder: Path) -> None:
    """34ee030: a traceback (NotADirectoryError) from making ``specs``."""
    plain = folder / "plain"
    plain.write_bytes(SECRET)
    r = run_cli("build", "--spec", str(EXAMPLES / "plus.toml"), data=plain)
    one_line_error(r, f"cannot keep the spec in {plain / 'specs'}")
    assert plain.read_bytes() == SECRET


def _resumable(folder: Path, where: Path, depth: int) -> None:
    """At ``where``, the staging folder of a 2x3 build stopped after level ``depth``, as
    a build killed on this machine leaves it (moved there when it is elsewhere; a
    staging folder this machine did not write is never resumed: issue #44)."""
    from pipeline.build import loop
    from pipeline.puzzles import registry

    class Stop(Exception):
        pass

    def stop(done: loop.LevelDone) -> None:
        if done.depth == depth:
            raise Stop

    with pytest.raises(Stop):
        build_local(registry.get("2x3"), folder, on_level=stop)
    staging = folder / ".staging" / "2x3"
    progress = json.loads((staging / "progress.json").read_text())
    (staging / "progress.json").write_text(json.dumps({**progress, "started": STARTED}))
    if where != staging:
        where.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(staging, where)


def _snapshot(where: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(where.iterdir())}


def test_a_linked_staging_folder_is_never_resumed(folder: Path) -> None:
    """``.staging/2x3`` a link to a stopped build elsewhere: 34ee030 resumed it there
    (new parts written into it, then the link renamed as the table); now the link
    is removed and the build starts afresh in the data folder."""
    elsewhere = folder.parent / "outside" / "stopped"
    _resumable(folder, elsewhere, 5)
    before = _snapshot(elsewhere)
    (folder / ".staging").mkdir(exist_ok=True)
    (folder / ".staging" / "2x3").symlink_to(elsewhere)
    r = run_cli("build", "2x3", data=folder)
    assert r.returncode == 0, r.stderr
    assert _built(folder, "2x3")["build"]["started"] != STARTED
    assert _snapshot(elsewhere) == before
    assert sorted(p.name for p in (folder / ".staging").iterdir()) == ["2x3.lock", "catalog.lock"]


@pytest.mark.parametrize(
    ("place", "to"), [("spill", "folder"), ("progress.json.tmp", "file"), ("d003-000.parquet", "")]
)
def test_a_resumed_build_follows_no_link_in_its_staging(folder: Path, place: str, to: str) -> None:
    """A stopped build's staging folder with a link in it: a stray one is removed
    (34ee030: ``spill`` a link to a folder was exit 1; ``progress.json.tmp`` is a guard);
    a kept part that is a link (to a copy of itself, outside) is made again (34ee030
    resumed, and published the link as the part)."""
    staging = folder / ".staging" / "2x3"
    _resumable(folder, staging, 5)
    if to:
        _plant(folder, f".staging/2x3/{place}", to)
    else:
        shutil.move(staging / place, folder.parent / "outside" / place)
        (staging / place).symlink_to(folder.parent / "outside" / place)
    r = run_cli("build", "2x3", data=folder)
    assert r.returncode == 0, r.stderr
    assert _built(folder, "2x3")["build"]["started"] == STARTED  # resumed
    assert all(not p.is_symlink() for p in (folder / "2x3").iterdir())
    assert not staging.exists()
    (folder.parent / "outside" / place).unlink(missing_ok=True)
    _untouched(folder)


def test_the_catalog_replaces_planted_links(folder: Path) -> None:
    """The catalog file, leftover temp names and the lock as links: replaced (34ee030
    already unlinked leftovers and renamed over the target, but opened the lock
    through the link)."""
    assert run_cli("build", "2x3", data=folder).returncode == 0
    (folder / "puzzles.duckdb").unlink()
    _plant(folder, "puzzles.duckdb", "file")
    _plant(folder, "puzzles.duckdb.1.tmp", "file")
    _plant(folder, "puzzles.duckdb.1.tmp.wal", "folder")
    (folder / ".staging" / "catalog.lock").unlink()
    _plant(folder, ".staging/catalog.lock", "file")  # d1f4889: refused in one line
    r = run_cli("catalog", data=folder)
    assert r.returncode == 0, r.stderr
    _built(folder, "2x3")
    assert sorted(p.name for p in folder.iterdir() if "duckdb" in p.name) == ["puzzles.duckdb"]
    _untouched(folder)


SPARK_PROBE = """
import os, sys
from pathlib import Path
from pipeline.executors.spark.session import check_shared, session
data = Path(sys.argv[1])
(data / f".spark-probe-{os.getpid()}").symlink_to(sys.argv[2])
spark = session("local[1]", {"spark.default.parallelism": "2", "spark.ui.enabled": "false"})
check_shared(spark, data)
spark.stop()
"""


@pytest.mark.spark
def test_the_spark_probe_is_not_written_through_a_link(folder: Path) -> None:
    """The probe ``<data>/.spark-probe-<pid>`` a link to ~/.bashrc: 34ee030 wrote the
    probe's token into it (a process run here, whose pid the link names)."""
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java")
    sentinel = folder.parent / "outside" / "bashrc"
    r = subprocess.run(
        [sys.executable, "-c", SPARK_PROBE, str(folder), str(sentinel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    _untouched(folder)
    assert list(folder.iterdir()) == []
