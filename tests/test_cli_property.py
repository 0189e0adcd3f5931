"""Every CLI command under random names, positions, options and data folders.

A property test (hypothesis): whatever the input and whatever state the data
folder is in (good, missing, empty, a regular file, a table with a flipped
byte or cut short, a broken manifest), a command never ends in a traceback,
never exits 0 beside an error message, and, but for `build` and `catalog`,
leaves the data folder's files as they were (hashed before and after).

The commands run in-process through ``pipeline.cli.app.main`` (what the
``puzzledb`` script calls), with sys.argv, stdout and stderr swapped: a
subprocess costs about a second of imports a run, this a few milliseconds.
Inputs that failed before issue 12 was fixed are
listed apart (``REGRESSIONS``) and checked once each.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.puzzles import registry as puzzles
from tests.conftest import examples

#: Small tables copied into every data folder the test makes (a few hundred KB).
TABLES = ("2x3", "hex6", "oshidori", "knight14", "triangle15", "triangle15-winnable")
#: Tables a `build` in the test may make (each well under a second).
BUILDABLE = ("2x3", "hex6", "oshidori", "knight14")
FOLDERS = ("good", "missing", "empty", "file", "flipped", "truncated", "manifest", "garbage")
NAMES = [*puzzles.REGISTRY, "nope", "3x33", "hex", "2X3", "../2x3", "a'b", "", "triangle15@3"]
POSITIONS = [
    "1 2 3 4 5 0",
    "0 1 2 3 4 5",
    "1 2 3 4 5 6 0",
    "4 6 5 1 3 2 0",
    "B W B W B W . .",
    "W W W B B B . .",
    "xxxxxxxxxxxx.xx",
    "............x..",
    "N . . . . . . . . . . . . .",
    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0",
    "",
    " ",
    "1 1 1",
    "x",
    "R U R' U'",
    "-1 2 3",
    "18446744073709551616",
]


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    crash: BaseException | None


def run(args: list[str]) -> Run:
    """``puzzledb ARGS`` in-process: the exit code, the output, and any exception that escaped."""
    from pipeline.cli import app as cli

    out, err = io.StringIO(), io.StringIO()
    code, crash = 0, None
    argv = sys.argv
    sys.argv = ["puzzledb", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # what a user would see as a traceback
        code, crash = 1, e
    finally:
        sys.argv = argv
    return Run(code, out.getvalue(), err.getvalue(), crash)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` with its content's sha256 ('' for a folder)."""
    if folder.is_file():
        return {".": hashlib.sha256(folder.read_bytes()).hexdigest()}
    if not folder.exists():
        return {}
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        out[rel] = "" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def templates(data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One data folder of each kind, copied from the session's built tables."""
    root = tmp_path_factory.mktemp("folders")
    good = root / "good"
    for name in TABLES:
        shutil.copytree(data / name, good / name)
    pipeline.open(good).write_catalog()
    out = {"good": good, "empty": root / "empty", "file": root / "file"}
    out["empty"].mkdir()
    out["file"].write_text("not a folder\n")
    for kind in ("flipped", "truncated", "manifest", "garbage"):
        out[kind] = root / kind
        shutil.copytree(good, out[kind])
    part = sorted((out["flipped"] / "2x3").glob("*.parquet"))[8]
    raw = bytearray(part.read_bytes())
    raw[len(raw) // 2] ^= 0x40  # same size, one bit flipped mid-file
    part.write_bytes(bytes(raw))
    part = sorted((out["truncated"] / "hex6").glob("*.parquet"))[5]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    manifest = out["manifest"] / "oshidori" / "_manifest.json"
    doc = json.loads(manifest.read_text())
    doc["levels"][0]["positions"] = "1); DROP VIEW summary; --"
    manifest.write_text(json.dumps(doc))
    (out["garbage"] / "2x3" / "_manifest.json").write_text("{not json")
    return out


@contextlib.contextmanager
def folder(templates: dict[str, Path], kind: str, where: Path) -> Iterator[Path]:
    """A fresh copy of a template folder (``missing``: a path that does not exist)."""
    target = where / f"data-{kind}"
    if kind == "missing":
        target = where / "no" / "such" / "data"
    elif templates[kind].is_file():
        shutil.copy(templates[kind], target)
    else:
        shutil.copytree(templates[kind], target)
    try:
        yield target
    finally:
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        shutil.rmtree(where / "no", ignore_errors=True)


names = st.sampled_from(NAMES)
positions = st.one_of(st.sampled_from(POSITIONS), st.text(" 0123456789xX.BWNo-", max_size=20))
json_flag = st.sampled_from([[], ["--json"]])


@st.composite
def commands(draw: st.DrawFn, out: Path) -> list[str]:
    """One command line (without --data): any command, names, positions and options."""
    kind = draw(
        st.sampled_from(
            ["list", "histogram", "longest", "show", "solve", "query", "verify", "plot", "report"]
        )
    )
    name = draw(names)
    if kind == "list":
        return ["list", *draw(json_flag)]
    if kind in ("histogram", "longest"):
        return [kind, name, *draw(json_flag)]
    if kind == "show":
        opts = draw(st.sampled_from([[], ["--turns"], ["--json"], ["--svg", str(out / "b.svg")]]))
        return ["show", name, draw(positions), *opts]
    if kind == "solve":
        method = draw(st.sampled_from(["auto", "table", "loop", "fast"]))
        # The pattern-database search on 4x4 would build 1.6 GB first (by design).
        assume(not (name == "4x4" and method == "auto"))
        opts = draw(st.lists(st.sampled_from(["--tiles", "--oneline", "--json"]), unique=True))
        return ["solve", name, draw(positions), "--method", method, *opts]
    if kind == "query":
        sql = draw(
            st.sampled_from(
                [
                    "SELECT 1 AS one",
                    "SELECT * FROM summary",
                    'SELECT count(*) FROM "2x3"',
                    "SELECT board('hex6', state) FROM hex6 LIMIT 3",
                    "SELECT * FROM nothing",
                    "SELEC 1",
                    "query/sql/summary.sql",
                    "nosuch.sql",
                    "",
                    "COPY (SELECT 1 AS x) TO '{data}/x.csv'",
                    "ATTACH '{data}/puzzles.duckdb' AS c; DROP VIEW c.summary",
                ]
            )
        )
        return ["query", sql, *draw(json_flag)]
    if kind == "verify":
        return ["verify", *draw(st.lists(names, min_size=1, max_size=2)), *draw(json_flag)]
    if kind == "plot":
        opts = draw(st.lists(st.sampled_from(["--log", "--percent"]), unique=True))
        suffix = draw(st.sampled_from(["svg", "png", "txt"]))
        return ["plot", "histogram", name, "--out", str(out / f"h.{suffix}"), *opts]
    return ["report", "--out", str(out / "report")]


ERROR = re.compile(r"^puzzledb: (?!warning)|^Error|error:|Traceback", re.MULTILINE | re.IGNORECASE)
#: A table left out of an answer is said so on stderr (issue 12: "one warning line").
WARNING = re.compile(r"^puzzledb: warning", re.MULTILINE)


def check(r: Run, args: list[str]) -> None:
    """What every run must satisfy, whatever it was asked."""
    assert r.crash is None, f"{args}: {type(r.crash).__name__}: {r.crash}"
    assert "Traceback" not in r.stderr, f"{args}: {r.stderr}"
    assert r.code in (0, 1, 2), f"{args}: exit {r.code}"
    if r.code == 0:
        assert not ERROR.search(r.stderr), f"{args}: exit 0 beside an error: {r.stderr}"
    else:
        assert r.stderr.strip() or "FAILED" in r.stdout, f"{args}: exit {r.code} and no message"


#: Inputs that failed before issue 12 was fixed: a pattern over "<folder kind>
#: <command line>", the issue item, and one example of it, each checked once.
REGRESSIONS: list[tuple[str, str, tuple[str, list[str]]]] = [
    (
        r"^file build ",
        "issue 12, 'One line and exit 1, never a traceback': build --data on a regular file",
        ("file", ["build", "2x3"]),
    ),
    (
        r"^\w+ query (COPY|ATTACH)",
        "issue 12, '`query` must not damage what it reads': COPY/ATTACH refused without --write",
        ("good", ["query", "COPY (SELECT 1 AS x) TO '{data}/x.csv'"]),
    ),
    (
        r"^\w+ query $",
        "issue 12, '`query` must not damage what it reads': query \"\" gives a traceback",
        ("good", ["query", ""]),
    ),
    (
        r"^\w+ query nosuch\.sql",
        "issue 12, '`query` must not damage what it reads': nosuch.sql is a parser error",
        ("good", ["query", "nosuch.sql"]),
    ),
    (
        r"^(manifest|garbage) query .*summary",
        "issue 12, 'Wrong answers with exit status 0' item 3: a table whose manifest is "
        "broken is left out of summary silently (one warning line)",
        ("manifest", ["query", "SELECT * FROM summary"]),
    ),
    (
        r"^file catalog",
        "issue 12, 'One line and exit 1, never a traceback' / 'Read commands never create': "
        "catalog --data on a regular file",
        ("file", ["catalog"]),
    ),
]


@pytest.mark.parametrize(
    ("kind", "args"),
    [pytest.param(*example, id=item.split(": ")[-1][:40]) for _, item, example in REGRESSIONS],
)
def test_past_failures(
    templates: dict[str, Path], tmp_path: Path, kind: str, args: list[str]
) -> None:
    """Each input that failed before issue 12, once."""
    with folder(templates, kind, tmp_path) as where:
        args = [a.replace("{data}", str(where)) for a in args]
        before = snapshot(where)
        r = run([*args, "--data", str(where)])
        check(r, args)
        if args[0] == "query" and args[1].endswith(".sql"):
            assert "no such file" in r.stderr, r.stderr
        if args[0] not in ("build", "catalog"):
            assert snapshot(where) == before, f"{args} on a {kind} folder changed it"
        if kind in DAMAGED and r.code == 0:
            good = run([*args, "--data", str(templates["good"])])
            assert r.stdout == good.stdout or WARNING.search(r.stderr), "another answer"


@pytest.mark.slow
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), kind=st.sampled_from(FOLDERS))
def test_read_commands_never_crash_nor_change_the_data(
    templates: dict[str, Path], tmp_path: Path, data: st.DataObject, kind: str
) -> None:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    args = data.draw(commands(out))
    with folder(templates, kind, tmp_path) as where:
        args = [a.replace("{data}", str(where)) for a in args]
        before = snapshot(where)
        r = run([*args, "--data", str(where)])
        check(r, args)
        assert snapshot(where) == before, f"{args} on a {kind} folder changed it"
        if r.code == 0 and kind in DAMAGED and args[0] in ANSWERS:
            good = run([*args, "--data", str(templates["good"])])
            same = r.stdout == good.stdout
            assert same or WARNING.search(r.stderr), f"{args}: another answer on a {kind} folder"


#: Damaged folders, and the commands whose answer must then be right or an error.
DAMAGED = ("flipped", "truncated", "manifest", "garbage")
ANSWERS = ("histogram", "longest", "show", "solve", "query")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kind=st.sampled_from(FOLDERS),
    what=st.sampled_from(["build", "catalog"]),
    names=st.lists(st.sampled_from([*BUILDABLE, "nope", "4x4-pdb-9"]), max_size=2),
    opts=st.lists(
        st.sampled_from(["--force", "--default", "--memory=1KB", "--memory=abc", "--paths"]),
        unique=True,
        max_size=2,
    ),
)
def test_build_and_catalog_never_crash(
    templates: dict[str, Path],
    tmp_path: Path,
    kind: str,
    what: str,
    names: list[str],
    opts: list[str],
) -> None:
    args = ["catalog"] if what == "catalog" else ["build", *names, *opts]
    assume("--default" not in opts)  # the default set takes seconds: the build test has it
    with folder(templates, kind, tmp_path) as where:
        r = run([*args, "--data", str(where)])
        check(r, args)
        if r.code == 0 and what == "build":
            for name in names:  # what a build says it built is there
                assert (where / name / "_manifest.json").exists(), (args, r.stderr)


def test_the_runner_sees_what_a_user_sees(data: Path) -> None:
    """The in-process runner against a real subprocess: same output, same exit code."""
    from tests.conftest import run_cli

    for args in (["solve", "hex6", "4 6 5 1 3 2 0", "--oneline"], ["histogram", "nope"]):
        inside, outside = run([*args, "--data", str(data)]), run_cli(*args, data=data)
        assert (inside.code, inside.stdout, inside.stderr) == (
            outside.returncode,
            outside.stdout,
            outside.stderr,
        )
    assert os.path.exists(data / "hex6")
