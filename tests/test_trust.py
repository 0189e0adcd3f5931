"""Every answer right or one error naming the damaged file; `query` never writes unasked."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import one_line_error, run_cli, signed

SOLVE_20 = "5 6 2 1 3 7 4 8 0"  # 20 moves in the clean 3x3 table
LONGEST_3X3 = ["6 4 7 8 5 0 3 2 1", "8 6 7 2 5 4 3 0 1"]


@pytest.fixture
def copy(copy_of: Callable[..., Path]) -> Path:
    """A data folder with copies of 3x3 and 2x4 (and a cache of checked files of its own)."""
    return copy_of("3x3", "2x4")


def _flip(path: Path, offset: int, count: int = 40) -> None:
    raw = bytearray(path.read_bytes())
    for i in range(offset, offset + count):
        raw[i] ^= 0x5A
    path.write_bytes(bytes(raw))


def test_clean_copy_answers(copy: Path) -> None:
    r = run_cli("solve", "3x3", SOLVE_20, "--json", data=copy)
    assert r.returncode == 0 and json.loads(r.stdout)["moves"] == 20


@pytest.mark.parametrize("where", ["middle", "footer"])
def test_same_size_damage_is_an_error_naming_the_file(copy: Path, where: str) -> None:
    f = copy / "3x3" / "d020-000.parquet"
    size = f.stat().st_size
    _flip(f, size // 2 if where == "middle" else size - 200)
    assert f.stat().st_size == size
    r = run_cli("solve", "3x3", SOLVE_20, data=copy)
    one_line_error(r, "d020-000.parquet", "puzzledb build 3x3 --force")
    r = run_cli("query", 'SELECT count(*) FROM "3x3"', data=copy)
    one_line_error(r, "d020-000.parquet", "puzzledb build 3x3 --force")
    r = run_cli("longest", "3x3", "--json", data=copy)  # reads depth 31 only: sound
    assert r.returncode == 0 and json.loads(r.stdout)["depth"] == 31, r.stderr
    f = copy / "3x3" / "d031-000.parquet"
    _flip(f, f.stat().st_size // 2 if where == "middle" else f.stat().st_size - 200)
    one_line_error(run_cli("longest", "3x3", data=copy), "d031-000.parquet")


def test_tables_written_before_footer_hashes_are_checked_whole(copy: Path) -> None:
    m = json.loads((copy / "3x3" / "_manifest.json").read_text())
    m["format_version"] = 1  # version 2 hashes every footer and column chunk
    for f in m["files"]:
        f.pop("footer_sha256")
        f.pop("chunk_sha256")
    (copy / "3x3" / "_manifest.json").write_text(json.dumps(m))
    r = run_cli("solve", "3x3", SOLVE_20, "--json", data=copy)
    assert r.returncode == 0 and json.loads(r.stdout)["moves"] == 20
    f = copy / "3x3" / "d020-000.parquet"
    _flip(f, f.stat().st_size // 2)
    r = run_cli("solve", "3x3", SOLVE_20, data=copy)
    one_line_error(r, "d020-000.parquet", "does not match its checksum")


@pytest.mark.parametrize(
    "field",
    [
        ("levels", 0, "positions"),
        ("total",),
    ],
)
def test_a_hostile_manifest_never_reaches_sql(copy: Path, field: tuple) -> None:
    m = json.loads((copy / "3x3" / "_manifest.json").read_text())
    evil = (
        "1); COPY (SELECT 'owned' AS x) TO 'injected.csv'; INSERT INTO levels VALUES ('3x3', 0, 1"
    )
    target = m
    for k in field[:-1]:
        target = target[k]
    target[field[-1]] = evil
    (copy / "3x3" / "_manifest.json").write_text(json.dumps(m))
    r = run_cli("catalog", data=copy)
    assert r.returncode == 0
    assert "warning: 3x3 left out of the catalog" in r.stderr and "Traceback" not in r.stderr
    assert not list(copy.parent.rglob("injected.csv")) and not Path("injected.csv").exists()
    r = run_cli("query", "SELECT puzzle, positions FROM summary", "--format", "csv", data=copy)
    assert r.returncode == 0 and r.stdout.splitlines() == ["puzzle,positions", "2x4,20160"]
    one_line_error(run_cli("solve", "3x3", SOLVE_20, data=copy), "_manifest.json")
    r = run_cli("verify", "3x3", data=copy)
    assert r.returncode == 1 and "_manifest.json" in r.stderr


def test_stray_files_are_never_read_and_fail_verify(copy: Path) -> None:
    folder = copy / "3x3"
    shutil.copy(folder / "d031-000.parquet", folder / "d031-000 (copy).parquet")
    r = run_cli("longest", "3x3", "--json", data=copy)
    assert r.returncode == 0 and sorted(json.loads(r.stdout)["positions"]) == LONGEST_3X3
    r = run_cli("query", 'SELECT count(*) AS n FROM "3x3"', "--format", "csv", data=copy)
    assert r.stdout.splitlines() == ["n", "181440"]
    r = run_cli("verify", "3x3", data=copy)
    assert r.returncode == 1 and "d031-000 (copy).parquet is not listed" in r.stdout


def test_a_manifest_of_another_table_is_left_out_with_one_warning(copy: Path) -> None:
    shutil.copy(copy / "2x4" / "_manifest.json", copy / "3x3" / "_manifest.json")
    r = run_cli("query", "SELECT puzzle FROM summary", "--format", "csv", data=copy)
    assert r.returncode == 0 and r.stdout.splitlines() == ["puzzle", "2x4"]
    assert r.stderr.count("warning: 3x3 left out") == 1
    assert run_cli("verify", "3x3", data=copy).returncode == 1


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("COPY (SELECT 1) TO '{dir}/2x4/d000-000.parquet'", "COPY"),
        ("ATTACH '{dir}/puzzles.duckdb' AS c", "ATTACH"),
        ("COPY (SELECT 1) TO 'x.csv'", "COPY"),
        ("INSTALL httpfs", "INSTALL"),
        ("LOAD httpfs", "LOAD"),
        ("SET enable_external_access = true", "SET"),
        ("SELECT 1; EXPORT DATABASE '{dir}/out'", "EXPORT"),
    ],
)
def test_query_refuses_what_writes_or_reaches_outside(
    copy: Path, tmp_path: Path, sql: str, kind: str
) -> None:
    run_cli("catalog", data=copy)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    r = run_cli("query", sql.format(dir=copy), data=copy)
    one_line_error(r, kind, "--write")
    after = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert after == before and not (tmp_path / "x.csv").exists() and not Path("x.csv").exists()


def test_reading_outside_the_data_folder_is_refused(copy: Path) -> None:
    r = run_cli("query", "SELECT * FROM read_csv('/etc/passwd')", data=copy)
    one_line_error(r, "/etc/passwd")


def test_query_writes_when_asked(copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "depths.csv"
    sql = f"COPY (SELECT DISTINCT depth FROM \"2x4\" ORDER BY 1) TO '{out}'"
    r = run_cli("query", sql, "--write", data=copy)
    assert r.returncode == 0, r.stderr
    assert out.read_text().split() == ["depth", *map(str, range(37))]


def test_query_input_mistakes_are_one_line(copy: Path) -> None:
    one_line_error(run_cli("query", "", data=copy), "no SQL statement")
    one_line_error(run_cli("query", "nosuch.sql", data=copy), "no such file: nosuch.sql")
    one_line_error(run_cli("query", "SELEC 1", data=copy), "syntax")
    one_line_error(run_cli("query", "SELECT 1", "--set", "novalue", data=copy), "NAME=VALUE")


def test_query_sets_variables_and_says_when_it_cuts(copy: Path, tmp_path: Path) -> None:
    hist = Path(__file__).resolve().parent.parent / "queries" / "histogram.sql"
    r = run_cli("query", str(hist), "--set", "puzzle=2x4", "--format", "csv", data=copy)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()
    assert rows[0] == "depth,positions" and len(rows) == 38 and rows[-1] == "36,1"
    r = run_cli("query", 'SELECT state FROM "2x4" WHERE depth = 20', data=copy)
    assert "rows, 200 shown: --all or --limit N for more" in r.stdout
    r = run_cli("query", 'SELECT state FROM "2x4" LIMIT 250', "--all", data=copy)
    assert "shown" not in r.stdout
    out = tmp_path / "x.parquet"
    r = run_cli("query", 'SELECT * FROM "2x4"', "--format", "parquet", "--out", str(out), data=copy)
    import pyarrow.parquet as pq

    assert r.returncode == 0 and pq.read_metadata(out).num_rows == 20_160


def _resign(path: Path, table) -> None:
    """Rewrite a level file as ``table`` and sign it in the manifest, as a hostile or
    mistaken writer with access to both would."""
    pq.write_table(table, path, compression="zstd")
    data = path.read_bytes()
    manifest = path.parent / "_manifest.json"
    doc = json.loads(manifest.read_text())
    for e in doc["files"]:
        if e["name"] == path.name:
            e.update(signed(data))
    manifest.write_text(json.dumps(doc))


REWRITES = {
    "depth as text": (
        lambda t: t.set_column(1, "depth", pa.array(["20"] * t.num_rows)),
        "d020-000.parquet: column depth is string, the format has uint8",
    ),
    "state signed": (
        lambda t: t.set_column(0, "state", t["state"].cast(pa.int64())),
        "d020-000.parquet: column state is int64, the format has uint64",
    ),
    "no parent": (
        lambda t: t.drop_columns(["parent"]),
        "d020-000.parquet: column parent is missing",
    ),
}


@pytest.mark.parametrize("rewrite", REWRITES)
def test_a_file_without_the_format_s_columns_fails_verify_and_look_ups(
    copy: Path, rewrite: str
) -> None:
    change, line = REWRITES[rewrite]
    f = copy / "3x3" / "d020-000.parquet"
    _resign(f, change(pq.read_table(f)))
    r = run_cli("verify", "3x3", data=copy)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"! {line}" in r.stdout.splitlines()[1], r.stdout
    # a look-up through the file refuses it (a missing parent was a traceback)
    r = run_cli("solve", "3x3", SOLVE_20, data=copy)
    one_line_error(r, "d020-000.parquet lacks the format's columns", line.split(": column ")[1])


def test_show_on_a_doctored_table_is_one_line_not_a_silent_drawing(copy: Path) -> None:
    """`show` drew the board and left the depth out, exit 0, when the manifest was bad."""
    manifest = copy / "3x3" / "_manifest.json"
    doc = json.loads(manifest.read_text())
    doc["files"][0]["sha256"] = "x"
    manifest.write_text(json.dumps(doc))
    r = run_cli("show", "3x3", SOLVE_20, data=copy)
    one_line_error(r, "3x3", "sha256", "puzzledb build 3x3 --force")
    r = run_cli("show", "2x4", "1 2 3 4 5 6 7 0", data=copy)
    assert r.returncode == 0 and r.stdout.strip().endswith("depth 0"), r.stdout + r.stderr
