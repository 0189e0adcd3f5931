"""`query` and `db.query` read and nothing else: an allow list of statements, no --out
in the data folder, no change later calls see, Ctrl-C stops them (issue #32, items 1, 7)."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

import pipeline
from pipeline.errors import BadQuery
from tests.conftest import one_line_error, run_cli

LONGEST_3X3 = ["6 4 7 8 5 0 3 2 1", "8 6 7 2 5 4 3 0 1"]
SOLVED_3X3 = "1 2 3 4 5 6 7 8 0"
REFUSED = "statements are refused in a read-only query"


@pytest.fixture
def copy(copy_of: Callable[..., Path]) -> Path:
    """A data folder with copies of 3x3, 2x3 and 2x4 (and a cache of checked files of its own)."""
    return copy_of("3x3", "2x3", "2x4")


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# -- the allow list --------------------------------------------------------
@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("EXPLAIN ANALYZE COPY (SELECT 42 AS x) TO '{dir}/x.csv'", "EXPLAIN ANALYZE"),
        ("PREPARE c AS COPY (SELECT 42) TO '{dir}/y.csv'; EXECUTE c", "PREPARE"),
        ("EXECUTE c", "EXECUTE"),
        ("/* a */ EXPLAIN /* b */ ANALYSE SELECT 1", "EXPLAIN ANALYSE"),
        ("EXPLAIN (ANALYZE) SELECT 1", "EXPLAIN"),
        ("EXPLAIN (FORMAT json, ANALYZE) SELECT 1", "EXPLAIN"),
        ("EXPLAIN COPY (SELECT 1) TO '{dir}/z.csv'", "EXPLAIN COPY"),
        ('CREATE OR REPLACE VIEW "3x3" AS SELECT * FROM "2x3"', "CREATE"),
        ("INSERT INTO levels VALUES ('3x3', 99, 1)", "INSERT"),
        ("SELECT 1; DROP TABLE puzzles", "DROP"),
        ("CALL pragma_version()", "CALL"),
        ("SET VARIABLE puzzle = '2x3'", "SET"),
        ('PIVOT "2x3" ON depth', "PIVOT"),
        ("CHECKPOINT", "CHECKPOINT"),
    ],
)
def test_query_runs_only_statements_that_read(copy: Path, sql: str, kind: str) -> None:
    before = _files(copy)
    r = run_cli("query", sql.format(dir=copy), data=copy)
    one_line_error(r, f"puzzledb: {kind} {REFUSED}", "--write")
    assert _files(copy) == before


def test_copy_inside_query_is_refused_by_duckdb(copy: Path) -> None:
    before = _files(copy)
    r = run_cli("query", f"SELECT * FROM query('COPY (SELECT 1) TO ''{copy}/q.csv''')", data=copy)
    one_line_error(r, "Expected a single SELECT statement")
    assert _files(copy) == before


@pytest.mark.parametrize(
    ("sql", "first"),
    [
        ('WITH d AS (SELECT depth FROM "2x3") SELECT max(depth) AS n FROM d', "21"),
        ("VALUES (7)", "7"),
        ('FROM "2x3" SELECT count(*) AS n', "360"),
        ('SELECT count(*) AS n FROM (DESCRIBE "2x3")', "3"),
        ("SELECT count(*) AS n FROM (SHOW TABLES)", "6"),
        ('SELECT "count" FROM (SUMMARIZE "2x3") WHERE column_name = \'depth\'', "360"),
        ('/* why */ EXPLAIN SELECT count(*) FROM "2x3"', "physical_plan"),
    ],
)
def test_query_runs_every_kind_of_read(copy: Path, sql: str, first: str) -> None:
    r = run_cli("query", sql, "--format", "csv", data=copy)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].split(",")[0] == first, r.stdout


def test_a_sql_file_that_rewrites_a_level_is_refused(copy: Path, tmp_path: Path) -> None:
    """The issue's chain: a level file rewritten (the solved board at depth 31) by a file
    of statements the old list allowed; `longest` then listed it with exit 0."""
    script = tmp_path / "rewrite.sql"
    level = copy / "3x3" / "d031-000.parquet"
    script.write_text(
        "PREPARE w AS COPY (SELECT s AS state, 31::UTINYINT AS depth, s AS parent FROM "
        f"(SELECT state_of('3x3', '{SOLVED_3X3}') AS s)) TO '{level}' (FORMAT parquet);\n"
        "EXECUTE w;\n"
    )
    before = _files(copy)
    one_line_error(run_cli("query", str(script), data=copy), f"PREPARE {REFUSED}")
    assert _files(copy) == before
    r = run_cli("longest", "3x3", "--json", data=copy)
    assert r.returncode == 0 and SOLVED_3X3 not in r.stdout and LONGEST_3X3[0] in r.stdout


# -- --out, --limit ----------------------------------------------------------
def test_out_never_lands_in_the_data_folder_without_write(copy: Path, tmp_path: Path) -> None:
    level = copy / "3x3" / "d031-000.parquet"
    (tmp_path / "link").symlink_to(copy / "3x3")
    spellings = [level, tmp_path / "link" / level.name, copy / "2x3" / ".." / "3x3" / level.name]
    before = _files(copy)
    for out in [*spellings, copy / "new.csv"]:
        fmt = "parquet" if out.suffix == ".parquet" else "csv"
        r = run_cli("query", "SELECT 1 AS x", "--format", fmt, "--out", str(out), data=copy)
        one_line_error(r, "is inside the data folder", "--write")
    assert _files(copy) == before
    r = run_cli("query", "SELECT 1 AS x", "--format", "csv", "--out", str(copy / "new.csv"),
                "--write", data=copy)  # fmt: skip
    assert r.returncode == 0 and (copy / "new.csv").read_text() == "x\n1\n"


@pytest.mark.parametrize(
    ("out", "fmt", "line"),
    [
        ("/nonexistent/x.csv", "csv", "there is no folder /nonexistent"),
        ("{tmp}", "csv", "is a folder"),
        ("{tmp}", "parquet", "is a folder"),
        ("/proc/version", "csv", "cannot write /proc/version"),
        ("/proc/version", "parquet", "cannot write /proc/version"),
    ],
)
def test_an_out_that_cannot_be_written_is_one_line(
    copy: Path, tmp_path: Path, out: str, fmt: str, line: str
) -> None:
    r = run_cli("query", "SELECT 1 AS x", "--format", fmt, "--out", out.format(tmp=tmp_path),
                data=copy)  # fmt: skip
    one_line_error(r, line)


def test_limit_below_zero_is_one_line(copy: Path) -> None:
    r = run_cli("query", "SELECT * FROM range(5)", "--limit", "-1", data=copy)
    one_line_error(r, "--limit is a number of rows, 0 or more, not -1")
    r = run_cli("query", "SELECT * FROM range(5)", "--limit", "0", data=copy)
    assert r.returncode == 0 and "(5 rows, 0 shown" in r.stdout, r.stdout


# -- the API -----------------------------------------------------------------
def test_an_api_query_cannot_change_what_later_calls_see(copy: Path) -> None:
    db = pipeline.open(copy)
    with pytest.raises(BadQuery, match=f"CREATE {REFUSED}"):
        db.query('CREATE OR REPLACE VIEW "3x3" AS SELECT * FROM "2x3"')
    db.query('CREATE OR REPLACE VIEW "3x3" AS SELECT * FROM "2x3"', write=True)
    db.query("CREATE OR REPLACE MACRO board(puzzle, state) AS 'forged'", write=True)
    assert sorted(db.longest("3x3")["position"]) == LONGEST_3X3
    assert db.query("SELECT board('2x3', 1) AS b")["b"][0] == "1 0 0 0 0 0"


def test_each_caller_gets_a_connection_of_its_own(copy: Path) -> None:
    db = pipeline.open(copy)
    mine = db.connection()
    with pytest.raises(duckdb.Error, match="read-only"):
        mine.execute('CREATE OR REPLACE VIEW "3x3" AS SELECT * FROM "2x3"')
    mine.execute('CREATE TEMP VIEW "3x3" AS SELECT * FROM "2x3"')
    mine.execute("CREATE OR REPLACE TEMP MACRO board(puzzle, state) AS 'forged'")
    assert mine.execute('SELECT count(*) FROM "3x3"').fetchone()[0] == 360
    assert mine.execute("SELECT board('3x3', 1)").fetchone()[0] == "forged"
    assert sorted(db.longest("3x3")["position"]) == LONGEST_3X3
    theirs = db.connection()
    assert theirs.execute('SELECT count(*) FROM "3x3"').fetchone()[0] == 181_440
    assert theirs.execute("SELECT board('2x3', 1)").fetchone()[0] == "1 0 0 0 0 0"
    with pytest.raises(duckdb.Error, match="lock"):
        theirs.execute("SET enable_external_access = true")


def test_a_large_query_spills_into_a_private_folder_removed_after(copy: Path) -> None:
    """Not into ``.tmp`` in the current folder (the data folder, run from there)."""
    db = pipeline.open(copy)
    spill = db.connection().execute("SELECT current_setting('temp_directory')").fetchone()[0]
    home = Path(spill).parent
    assert home.is_dir() and list(home.iterdir()) == [] and not home.is_relative_to(copy)
    db.write_catalog()  # as a build does: the read-only database is let go
    gc.collect()
    assert not home.exists()


# -- Ctrl-C ----------------------------------------------------------------
def _until_busy(pid: int, cpu: float = 1.5, limit: float = 60.0) -> None:
    """Wait until process ``pid`` has used ``cpu`` seconds of CPU (its threads summed)."""
    tick = os.sysconf("SC_CLK_TCK")
    end = time.monotonic() + limit
    while time.monotonic() < end:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= cpu:
            return
        time.sleep(0.1)


def test_ctrl_c_cancels_a_long_query_with_one_line(copy: Path) -> None:
    sql = "SELECT count(*) FROM range(100000000) a, range(100000000) b WHERE a.range + b.range = 7"
    cmd = [sys.executable, "-m", "pipeline.cli", "query", sql, "--data", str(copy)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _until_busy(proc.pid)  # imports done and the query running, however loaded the machine
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the query went on for 15 s after Ctrl-C")
    assert proc.returncode == 130 and err.strip() == "puzzledb: query cancelled", err
    assert time.monotonic() - sent < 5


IGNORES_INTERRUPT = """
import os, sys, time
import duckdb
from pipeline.query import interrupt
con = duckdb.connect()
print("ready", flush=True)
start = time.monotonic()
try:
    interrupt.run(con, lambda: time.sleep(60))  # not DuckDB: the interrupt is not heard
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - start:.1f}", flush=True)
    os._exit(0)
"""


def test_ctrl_c_gives_up_on_a_query_that_ignores_the_interrupt() -> None:
    from pipeline.query import interrupt  # (new in issue #32)

    proc = subprocess.Popen(
        [sys.executable, "-c", IGNORES_INTERRUPT], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("still waiting 15 s after Ctrl-C")
    assert proc.returncode == 0 and out.startswith("interrupted after ")
    waited = float(out.split()[-1]) - 0.5
    assert interrupt.GRACE <= waited < interrupt.GRACE + 1.5, out
