"""Issue #44, the second attack on a data folder: each item a test that failed on 80cec4d.

The manifest is a claim held against the files (an extra file, swapped counts,
orbit sums, a declared column), a part is never followed as a link, reads are
sized by the format and the file rather than the manifest's word, and one
damaged table leaves every other one answering.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pipeline
from pipeline.errors import CorruptTable, PuzzleDBError
from pipeline.storage.integrity import footer_sha256
from tests.conftest import one_line_error, run_cli

DEEPEST = "8 6 7 2 5 4 3 0 1"


@pytest.fixture
def copy(copy_of: Callable[..., Path]) -> Path:
    return copy_of("3x3", "2x4", "hex6")


def edit(folder: Path, table: str, change: Callable[[dict[str, Any]], None]) -> None:
    path = folder / table / "_manifest.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def error_lines(r: Any) -> list[str]:
    return [ln for ln in r.stderr.splitlines() if not ln.startswith("puzzledb: warning:")]


def refused(r: Any, *words: str) -> None:
    """Exit 1, one error line (warnings aside) naming ``words``, no traceback."""
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and len(error_lines(r)) == 1, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def others_answer(folder: Path) -> None:
    """The tables left undamaged still answer, by SQL and by look-up."""
    r = run_cli("query", 'select count(*) as n from "2x4"', "--format", "csv", data=folder)
    assert r.returncode == 0 and r.stdout.split() == ["n", "20160"], r.stderr
    assert pipeline.open(folder).histogram("2x4")["positions"].sum() == 20160


# 1. An extra file entry is read as rows.


def _extra_file(folder: Path) -> None:
    (folder / "3x3" / "d040-000.parquet").write_bytes(
        (folder / "3x3/d031-000.parquet").read_bytes()
    )

    def add(doc: dict[str, Any]) -> None:
        entry = next(f for f in doc["files"] if f["name"] == "d031-000.parquet")
        doc["files"].append({**entry, "name": "d040-000.parquet", "depth": 40})

    edit(folder, "3x3", add)


def test_an_extra_file_entry_is_refused_not_read_as_rows(copy: Path) -> None:
    _extra_file(copy)
    rebuild = f"build 3x3 --force --data {copy}"
    refused(run_cli("longest", "3x3", data=copy), "d040-000.parquet", rebuild)
    refused(run_cli("query", 'select count(*) from "3x3"', data=copy), "3x3", rebuild)
    refused(run_cli("histogram", "3x3", data=copy), "belongs to no level")
    others_answer(copy)


# 2. histogram answers from the manifest alone.


def test_counts_swapped_between_levels_are_refused(copy: Path) -> None:
    def swap(doc: dict[str, Any]) -> None:
        lv = doc["levels"]
        lv[5]["positions"], lv[6]["positions"] = lv[6]["positions"], lv[5]["positions"]
        f = {e["name"]: e for e in doc["files"]}
        a, b = f["d005-000.parquet"], f["d006-000.parquet"]
        a["rows"], b["rows"] = b["rows"], a["rows"]

    edit(copy, "3x3", swap)
    refused(run_cli("histogram", "3x3", data=copy), "d005-000.parquet has 20 rows", "3x3 --force")
    refused(run_cli("plot", "histogram", "3x3", "--out", str(copy.parent / "h.svg"), data=copy))
    with pytest.raises(CorruptTable, match="the manifest says 39"):
        pipeline.open(copy).histogram("3x3")
    assert not (copy.parent / "h.svg").exists()
    others_answer(copy)


@pytest.fixture(scope="module")
def sym(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sym")
    pipeline.open(folder).build(["english33-sym"], max_depth=6)
    return folder


def test_orbit_positions_edited_alone_are_refused(
    sym: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "data"
    shutil.copytree(sym, folder)
    clean = pipeline.open(folder).histogram("english33-sym")["orbit_positions"].to_list()
    assert clean[:4] == [1, 4, 12, 60]  # english33 from the centre: 1, 4, 12, 60 positions

    def more(doc: dict[str, Any]) -> None:  # still between its classes and 8 times them
        doc["levels"][3]["orbit_positions"] += 1

    edit(folder, "english33-sym", more)
    r = run_cli("histogram", "english33-sym", data=folder)
    refused(r, "orbit_positions of depth 3 is 61", "sum to 60", "english33-sym --force")


# 3. One looping symlink takes everything down.


def test_a_looping_link_as_a_part_is_one_line_and_the_rest_answers(copy: Path) -> None:
    part = copy / "3x3" / "d010-000.parquet"
    part.unlink()
    part.symlink_to("d010-000.parquet")
    for args in (("histogram", "3x3"), ("solve", "3x3", DEEPEST), ("show", "3x3", DEEPEST)):
        refused(run_cli(*args, data=copy), "d010-000.parquet is a symbolic link", "3x3 --force")
    refused(run_cli("verify", "3x3", data=copy), "d010-000.parquet")
    r = run_cli("verify", "--all", data=copy)
    assert r.returncode == 1 and "3x3: FAILED" in r.stdout and "2x4: ok" in r.stdout, r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("query", "select 1 as x", "--format", "csv", data=copy)
    assert r.returncode == 0 and r.stdout.split() == ["x", "1"], r.stderr
    others_answer(copy)


def test_a_link_to_a_sound_part_is_not_followed(copy: Path) -> None:
    part = copy / "3x3" / "d010-000.parquet"
    outside = copy.parent / "elsewhere.parquet"
    part.rename(outside)
    part.symlink_to(outside)
    refused(run_cli("solve", "3x3", DEEPEST, data=copy), "is a symbolic link")
    refused(run_cli("query", 'select count(*) from "3x3"', data=copy), "is a symbolic link")


# 5. A declared class_size column on a plain table.


@pytest.mark.parametrize("table", ["3x3", "hex6"])
def test_a_class_size_column_declared_on_a_plain_table_is_refused(copy: Path, table: str) -> None:
    edit(copy, table, lambda doc: doc["columns"].update(class_size="uint64"))
    refused(run_cli("histogram", table, data=copy), "columns is not the", f"{table} --force")
    refused(run_cli("verify", table, data=copy), "columns")
    others_answer(copy)


# 10. Reads sized by the manifest's word.


def _sparse_part(folder: Path, size: int, footer: int) -> None:
    """d000-000.parquet of 3x3 made a sparse file of ``size`` bytes ending in a footer
    length of ``footer`` and PAR1, its manifest entry's bytes and hashes set to match."""
    part = folder / "3x3" / "d000-000.parquet"
    with open(part, "r+b") as f:
        f.truncate(size)
        f.seek(size - 8)
        f.write(footer.to_bytes(4, "little") + b"PAR1")

    with open(part, "rb") as f:
        f.seek(max(0, size - 8 - footer))
        digest = footer_sha256(f.read())

    def forge(doc: dict[str, Any]) -> None:
        entry = doc["files"][0]
        entry.update(bytes=size, footer_sha256=digest)

    edit(folder, "3x3", forge)


@pytest.mark.parametrize("size", [1 << 33, 3 << 20])
def test_a_sparse_part_with_a_huge_footer_is_refused_before_it_is_read(
    copy: Path, size: int
) -> None:
    _sparse_part(copy, size, min(1 << 30, size - 16))
    for args in (("solve", "3x3", DEEPEST), ("query", 'select count(*) from "3x3"')):
        r = run_cli(*args, data=copy)
        refused(r, "d000-000.parquet", "3x3 --force")
    others_answer(copy)


def test_a_footer_longer_than_a_build_writes_is_refused_unread(copy: Path) -> None:
    """A part whose size is within the format's bound but whose footer length is 1.5 MiB."""
    table = pipeline.open(copy).table("3x3")
    entry = table.files[0]
    assert entry.rows == 1
    os.truncate(table.path(entry), 0)
    _sparse_part(copy, (2 << 20) - 16, 3 << 19)
    with pytest.raises(CorruptTable, match=r"damaged footer \(of 1,572,864 bytes"):
        pipeline.open(copy).solve("3x3", DEEPEST)
    one_line_error(run_cli("solve", "3x3", DEEPEST, data=copy), "3x3 --force")


# 4. A lone surrogate in one title.


def test_a_lone_surrogate_in_a_title_leaves_that_table_out_only(copy: Path) -> None:
    path = copy / "2x4" / "_manifest.json"
    path.write_text(path.read_text().replace('"title": "', '"title": "x\\ud800', 1))
    r = run_cli("query", 'select count(*) as n from "3x3"', "--format", "csv", data=copy)
    assert r.returncode == 0 and r.stdout.split() == ["n", "181440"], r.stderr
    assert "2x4 left out of the catalog" in r.stderr and "lone surrogate" in r.stderr
    refused(run_cli("histogram", "2x4", data=copy), "lone surrogate", "2x4 --force")
    r = run_cli("report", "--out", str(copy.parent), data=copy)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr


# 6. Broken tables are skipped without a word (its first half: verify --all).


def test_verify_all_names_a_table_whose_manifest_is_broken(copy: Path) -> None:
    edit(copy, "3x3", lambda doc: doc.update(total=str(doc["total"])))
    r = run_cli("verify", "--all", data=copy)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "3x3: FAILED" in r.stdout and "total is '181440'" in r.stdout, r.stdout
    assert "2x4: ok" in r.stdout and "Traceback" not in r.stderr
    r = run_cli("list", data=copy)  # said, not silently shown as unbuilt
    assert r.returncode == 0 and "warning: 3x3 left out" in r.stderr, r.stderr


def test_format_version_true_is_refused(copy: Path) -> None:
    edit(copy, "3x3", lambda doc: doc.update(format_version=True))
    refused(run_cli("histogram", "3x3", data=copy), "format version True")


# 7. remove deletes outside the folder; 8. one unreadable spec.

PLUS = Path(__file__).resolve().parent.parent / "examples" / "specs" / "plus.toml"


def test_remove_never_deletes_through_a_linked_specs_folder(tmp_path: Path) -> None:
    data, other = tmp_path / "D", tmp_path / "other"
    r = run_cli("build", "--spec", str(PLUS), data=data)
    assert r.returncode == 0, r.stderr
    (data / "specs").rename(other)
    (data / "specs").symlink_to(other)
    r = run_cli("remove", "plus", data=data)
    assert r.returncode == 0 and r.stdout.strip() == "removed plus", r.stdout + r.stderr
    assert (other / "plus.toml").is_file()  # was: deleted, "removed plus, specs/plus.toml"
    assert (data / "specs").is_symlink() and not (data / "plus").exists()


@pytest.mark.parametrize("kind", ["fifo", "link", "large", "toml", "escape"])
def test_one_unreadable_spec_neither_breaks_list_nor_resists_remove(copy: Path, kind: str) -> None:
    specs = copy / "specs"
    specs.mkdir()
    bad = specs / "bad.toml"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "link":
        bad.symlink_to(PLUS)
    elif kind == "large":
        bad.write_text("# x\n" * 300_000)
    elif kind == "toml":
        bad.write_text("name = [\n")
    else:
        bad.write_text(PLUS.read_text().replace('title = "', 'title = "\\u001b]52;c;eA==\\u0007'))
    (specs / "plus.toml").write_text(PLUS.read_text())
    r = run_cli("list", data=copy)
    assert r.returncode == 0, r.stderr
    assert "plus " in r.stdout and "warning: specs/bad.toml left out" in r.stderr
    assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr
    r = run_cli("remove", "bad", data=copy)
    assert r.returncode == 0 and r.stdout.strip() == "removed specs/bad.toml", r.stderr
    assert not os.path.lexists(bad) and PLUS.is_file()


# 9. Terminal escapes from the folder.

ESCAPES = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x9b31m\u202e"


def test_folder_text_never_reaches_the_terminal_raw(copy: Path) -> None:
    edit(copy, "2x4", lambda doc: doc["puzzle"].update(title=f"t{ESCAPES}"))
    for fmt in ("table", "csv", "json"):
        sql = "select title from puzzles where name = '2x4'"
        r = run_cli("query", sql, "--format", fmt, data=copy)
        assert r.returncode == 0, r.stderr
        for c in "\x1b\x07\x9b\u202e":
            assert c not in r.stdout, (fmt, r.stdout)
        assert "\\u001b]52;c;" in r.stdout
    assert json.loads(run_cli("query", sql, "--json", data=copy).stdout)[0]["title"] == (
        f"t{ESCAPES}"  # JSON reads back as it was: the escapes are JSON's own
    )
    specs = copy / "specs"
    specs.mkdir()
    key = json.dumps(f"k{ESCAPES}")  # its \u escapes are TOML's too
    (specs / "odd.toml").write_text(f'name = "odd"\n{key} = 1\n[tiles]\n')
    r = run_cli("solve", "odd", "1 2 3", data=copy)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "\x1b" not in r.stderr and "\\u001b]52" in r.stderr, r.stderr


# 11. Forged staging becomes a table the user built.


def test_a_forged_staging_folder_is_built_afresh_not_resumed(tmp_path: Path) -> None:
    import subprocess
    import sys

    data = tmp_path / "D"
    forge = Path(__file__).resolve().parent / "hostile" / "forge_staging.py"
    env = {**os.environ, "PUZZLEDB_CACHE": str(tmp_path / "elsewhere")}  # another machine
    subprocess.run([sys.executable, str(forge), str(data)], check=True, env=env)
    r = run_cli("build", "3x3", data=data)
    assert r.returncode == 0, r.stderr
    r = run_cli("solve", "3x3", "1 2 3 4 5 6 7 8 0", "--json", data=data)
    assert r.returncode == 0 and json.loads(r.stdout)["moves"] == 0, r.stdout + r.stderr
    r = run_cli("solve", "3x3", DEEPEST, "--json", data=data)
    assert json.loads(r.stdout)["moves"] == 31


# 12. The read-only API connection writes.


def test_the_read_only_connection_writes_no_file(copy: Path) -> None:
    part = copy / "3x3" / "d000-000.parquet"
    before = part.read_bytes()
    con = pipeline.open(copy).connection()
    attempts = [
        lambda: con.execute(f"COPY (SELECT 1 AS x) TO '{part}' (FORMAT parquet)"),
        lambda: con.execute(f"COPY (SELECT 1 AS x) TO '{part}' (USE_TMP_FILE false)"),
        lambda: con.execute(f"EXPORT DATABASE '{copy / 'x'}'"),
        lambda: con.execute("PREPARE p AS SELECT 1"),
        lambda: con.cursor().execute(f"EXPORT DATABASE '{copy / 'x'}'"),
        lambda: con.sql("SELECT 1 AS x").write_parquet(str(part)),
        lambda: con.sql("SELECT 1 AS x").to_csv(str(copy / "y.csv")),
        lambda: con.duplicate(),
    ]
    for attempt in attempts:
        with pytest.raises(PuzzleDBError, match="refused"):
            attempt()
    assert part.read_bytes() == before and not (copy / "x").exists()
    assert not (copy / "y.csv").exists()
    # what stays in the caller's memory still works, and reads answer
    con.execute("CREATE TEMP VIEW mine AS SELECT 7 AS n")
    con.execute("SET VARIABLE v = 3")
    assert con.execute("SELECT n + getvariable('v') FROM mine").fetchall() == [(10,)]
    assert con.execute('SELECT count(*) FROM "3x3"').fetchone() == (181440,)


# 13. No Host check in the explorer; 14. slow clients.


def _raw(port: int, request: bytes) -> bytes:
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        chunks = []
        while chunk := s.recv(1 << 16):
            chunks.append(chunk)
    return b"".join(chunks)


def _get(port: int, host: str) -> bytes:
    return _raw(
        port, f"GET /api/tables HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    )


def test_the_explorer_answers_its_own_host_only_and_drops_slow_clients(copy: Path) -> None:
    import socket
    import time

    from pipeline.serve import guard
    from tests.test_serve import serving

    with serving(copy) as base:
        port = int(base.rsplit(":", 1)[1])
        for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.2"):
            assert _get(port, host).startswith(b"HTTP/1.1 400"), host  # was: 200 and the tables
        for host in (f"127.0.0.1:{port}", "localhost", f"[::1]:{port}"):
            answer = _get(port, host)
            assert answer.startswith(b"HTTP/1.1 200") and b'"2x4"' in answer, host
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(50)]
        for s in slow:
            s.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never ends
        # The server closes each after HEADER_SECONDS: a read then gives end of file.
        deadline = time.monotonic() + 2 * guard.HEADER_SECONDS + 1
        closed = 0
        for s in slow:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                closed += s.recv(1) == b""
            except TimeoutError:
                pass  # still open: not closed
            except OSError:  # reset by the server: closed
                closed += 1
            s.close()
        assert closed == len(slow)  # was: none, after 60 s
        assert _get(port, "127.0.0.1").startswith(b"HTTP/1.1 200")


# The smaller ones.


def test_remove_takes_a_doctored_table(copy: Path) -> None:
    edit(copy, "3x3", lambda doc: doc.update(total="many"))
    r = run_cli("remove", "3x3", data=copy)  # was: "3x3 is not built ...: nothing to remove"
    assert r.returncode == 0 and r.stdout.strip() == "removed 3x3", r.stdout + r.stderr
    assert not (copy / "3x3").exists() and (copy / "2x4").is_dir()


def test_catalog_on_a_full_disk_says_so(tmp_path: Path, data: Path) -> None:
    import shutil

    from tests.test_faults import _tmpfs

    for full in _tmpfs(tmp_path / "full", "size=1m"):
        shutil.copytree(data / "2x3", full / "2x3")
        with open(full / "fill", "wb", buffering=0) as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 4096)
        r = run_cli("catalog", data=full)
        one_line_error(r, "puzzles.duckdb cannot be written: the disk is full")
        assert "CHECKPOINT" not in r.stderr


def _leftovers(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.glob("puzzledb-*"))


def test_a_cancelled_query_leaves_no_temp_folder(copy: Path, tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    sql = 'SELECT count(*) FROM "2x4" a, range(100000000) b, range(100000000) c WHERE b.range = 7'
    cmd = [sys.executable, "-m", "pipeline.cli", "query", sql, "--data", str(copy)]
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    for _ in range(300):  # the query runs once its catalog's temp folder is made
        if _leftovers(tmp):
            break
        time.sleep(0.05)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert _leftovers(tmp) == []  # was: one puzzledb-* folder a cancelled query


def test_a_terminated_explorer_leaves_no_temp_folder(
    copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_serve import get, serving

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    with serving(copy) as base:
        assert get(base + "/t/2x4")[0] == 200
        assert _leftovers(tmp) == []  # the explorer reads through the Table: no DuckDB
        status, _ = get(base + "/pick/2x4?depth=%EF%BC%94")  # a full-width 4
        assert status == 400  # was: the position at depth 4
    assert _leftovers(tmp) == []  # terminated (SIGTERM): was left behind


# Siblings found past the list.


def test_a_table_folder_that_is_a_link_is_never_followed(copy: Path) -> None:
    outside = copy.parent / "elsewhere"
    (copy / "3x3").rename(outside)
    (copy / "3x3").symlink_to(outside)
    refused(run_cli("histogram", "3x3", data=copy), "3x3 is a symbolic link")
    refused(run_cli("query", 'select count(*) from "3x3"', data=copy), "symbolic link")
    r = run_cli("verify", "--all", data=copy)
    assert r.returncode == 1 and "3x3: FAILED" in r.stdout, r.stdout + r.stderr
    others_answer(copy)


def test_a_number_given_as_true_is_refused_everywhere_in_a_manifest(copy: Path) -> None:
    edit(copy, "3x3", lambda doc: doc["levels"][0].update(seconds=True))
    refused(run_cli("histogram", "3x3", data=copy), "levels[0].seconds is True")


def test_a_spec_behind_a_linked_specs_folder_is_not_read(copy: Path) -> None:
    other = copy.parent / "other"
    other.mkdir()
    (other / "plus.toml").write_text(PLUS.read_text())
    (copy / "specs").symlink_to(other)
    r = run_cli("show", "plus", "2 1 3 4 5 0 7 6", data=copy)  # was: read through the link
    refused(r, "unknown puzzle 'plus'")
    r = run_cli("list", data=copy)
    assert r.returncode == 0 and "\nplus " not in r.stdout and "symbolic link" in r.stderr
