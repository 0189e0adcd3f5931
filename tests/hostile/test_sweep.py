"""Every CLI command over hostile data folders (`make test-hostile`; minutes, not in `make test`).

A data folder is untrusted input (docs/TRUST.md). Each case takes a clean
folder of small tables, puts one payload (SQL, path and layout metacharacters
aimed at a sentinel folder outside the data folder) into one string field of
one manifest or kept spec (every string of a manifest's puzzle, the fields
that name files or tables, every string of a spec), and runs the commands that
read that table on it in-process (as tests/test_cli_property.py does); then
into all those fields at once, and runs every command. Every run must:

- never crash nor print a traceback; exit 0 or 1 (2: usage);
- on exit 1 print one error line (warning lines aside);
- on exit 0 give the answer the clean folder gives (the commands whose answer
  is a figure: histogram, longest, show, solve, query), unless a warning line
  says the doctored table was left out;
- leave the sentinel folder empty and every file outside the data folder as
  it was.

The property test in `make test` (tests/test_trust_property.py) draws such
folders at random through the API; this sweep is the exhaustive CLI version.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pipeline
from tests.test_cli_property import check, run, snapshot

pytestmark = pytest.mark.hostile

#: Small tables copied into every folder (built once by the session fixture).
TABLES = ("2x3", "triangle15", "triangle15-winnable", "knight14", "magic9")
#: A spec of each family, kept in the folder and built there.
SPECS = ("plus", "square16")
#: One position of each table the commands look up (a figure to compare).
POSITION = {
    "2x3": "4 1 2 5 3 0",
    "triangle15": "x x x x x x x x x x x x . x x",
    "triangle15-winnable": ". . . . . . . . . . . . x . .",
    "knight14": "N . . . . . . . . . . . . .",
    "magic9": ". . . . . . . . .",
    "plus": "2 1 3 4 5 0 7 6",
    "square16": None,
}
PAYLOADS = [
    "'; COPY (SELECT 'x' AS x) TO '{S}/a.csv'; --",
    "{{0)) & 15) + 1], 1, ' ')) ELSE NULL END; COPY (SELECT 'x' AS x) TO '{S}/b.txt'; "
    "SELECT 1 --}} {{1}} {{2}} {{3}} {{4}} {{5}}",
    "\"; ATTACH '{S}/c.duckdb' AS c; CREATE TABLE c.t AS SELECT 1; --",
    "../../../../{S}/d",
    "$start')); COPY (SELECT 1) TO '{S}/e.csv'; --",
    "\\'; INSTALL httpfs; --",
    "{{1}}{{0}}{{2}}{{3}}{{4}}{{5}}",
    "x\u0000y\u2019; --",
    # issue #44: terminal escapes (write the clipboard, clear the screen, a one-byte CSI,
    # right-to-left override) and a lone surrogate (valid JSON, refused by DuckDB)
    "\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2J\u009b31m\u202e",
    "x\ud800",
]
#: What a terminal acts on: never printed raw (words.printable).
RAW = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\ud800-\udfff]")


def _strings(doc: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """The path of every string (or list of strings' first element) inside ``doc``."""
    if isinstance(doc, str):
        return [path]
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in _strings(v, (*path, k))]
    if isinstance(doc, list) and doc:
        return _strings(doc[0], (*path, 0))
    return []


def _put(doc: object, path: tuple[object, ...], value: str) -> None:
    for key in path[:-1]:
        doc = doc[key]  # type: ignore[index]
    doc[path[-1]] = value  # type: ignore[index]


@pytest.fixture(scope="module")
def clean(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The clean folder: the small tables, both example specs built, the catalog."""
    folder = tmp_path_factory.mktemp("clean") / "data"
    for name in TABLES:
        shutil.copytree(data / name, folder / name)
    specs = Path(__file__).resolve().parents[2] / "examples" / "specs"
    for name in SPECS:
        spec = str(specs / f"{name}.toml")
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "pipeline.cli",
                "build",
                "--spec",
                spec,
                "--data",
                str(folder),
            ],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stderr
    pipeline.open(folder).write_catalog()
    return folder


def _commands(table: str, out: Path, every: bool) -> list[list[str]]:
    """The commands that read ``table``; ``every``: also those that read every table
    or write (list, summary, catalog, report, plot, build)."""
    pos = POSITION.get(table)
    looks = [["show", table, pos], ["solve", table, pos, "--json"]] if pos else []
    mine = [
        ["histogram", table, "--json"],
        ["longest", table, "--json"],
        *looks,
        ["query", f'SELECT count(*) AS n, sum(state) AS s FROM "{table}"', "--json"],
        ["query", f"SELECT board('{table}', state) AS b FROM \"{table}\" ORDER BY state LIMIT 3"],
        ["verify", table],
    ]
    if not every:
        return mine
    return [
        ["list"],
        ["list", "--json"],
        ["query", "SELECT * FROM summary", "--json"],
        ["catalog"],
        ["report", "--out", str(out / "report")],
        ["plot", "histogram", table, "--out", str(out / "h.svg")],
        ["build", "hex6"],
        *mine,
    ]


#: The manifest fields a payload goes into besides every string of its puzzle: the
#: ones that reach a path, SQL or an answer (digests are checked as hex first).
MANIFEST_FIELDS = [("table",), ("columns", "state"), ("files", 0, "name")]
MANIFEST_FIELDS += [("levels", 0, "files", 0), ("build", "finished")]


def _fields(kind: str, doc: object) -> list[tuple[object, ...]]:
    """Where a payload goes in a document: one field at a time."""
    found = _strings(doc)
    if kind == "spec":
        return found
    return [f for f in found if f[0] == "puzzle" or f in MANIFEST_FIELDS]


#: Commands whose exit-0 answer must equal the clean folder's.
FIGURES = ("histogram", "longest", "show", "solve", "query")


def _documents(clean: Path) -> dict[tuple[str, str], object]:
    docs: dict[tuple[str, str], object] = {}
    for m in sorted(clean.glob("*/_manifest.json")):
        docs[("manifest", m.parent.name)] = json.loads(m.read_text())
    for s in sorted((clean / "specs").glob("*.toml")):
        docs[("spec", s.stem)] = tomllib.loads(s.read_text())
    return docs


def _left_out(stderr: str, table: str) -> bool:
    """Whether a warning line says ``table`` was left out (its answer may then differ)."""
    return any("warning" in ln and table in ln for ln in stderr.splitlines())


def _errors(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.strip() and "warning" not in ln]


@pytest.mark.parametrize("payload", range(len(PAYLOADS)))
def test_every_command_on_every_field(clean: Path, tmp_path: Path, payload: int) -> None:
    sentinel = tmp_path / "sentinel"
    sentinel.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("untouched\n")
    text = PAYLOADS[payload].format(S=sentinel)
    docs = _documents(clean)
    answers: dict[tuple[str, ...], str] = {}
    failures: list[str] = []
    for (kind, table), doc in docs.items():
        fields = [[f] for f in _fields(kind, doc)]
        for planted in [*fields, [f for (f,) in fields]]:  # each field, then all at once
            folder = tmp_path / "data"
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(clean, folder)
            _plant(folder, kind, table, doc, planted, text)
            before = snapshot(outside)
            for args in _commands(table, tmp_path / "out", every=len(planted) > 1):
                answer = _clean_answer(answers, clean, args)
                r = run([*args, "--data", str(folder)])
                where = f"{kind} {table} {_named(planted)}: {' '.join(args)}"
                try:
                    check(r, args)
                    assert not RAW.search(r.stdout + r.stderr), "raw control text printed"
                    if r.code == 1:
                        assert len(_errors(r.stderr)) == 1, r.stderr
                    elif args[0] in FIGURES and r.stdout != answer:
                        assert _left_out(r.stderr, table), f"answer changed:\n{r.stdout}"
                    assert not any(sentinel.iterdir()), "a file appeared in the sentinel folder"
                    assert snapshot(outside) == before, "a file outside the data folder changed"
                except AssertionError as e:
                    failures.append(f"{where}: {str(e).splitlines()[0]}")
    assert not failures, "\n".join(failures[:40])


def _named(planted: list[tuple[object, ...]]) -> str:
    return "every field" if len(planted) > 1 else ".".join(map(str, planted[0]))


def _plant(folder: Path, kind: str, table: str, doc: object, planted: list, text: str) -> None:
    """Write ``doc`` with ``text`` in each field of ``planted`` into the folder's manifest
    or kept spec."""
    if kind == "manifest":
        hostile = json.loads(json.dumps(doc))
        for path in planted:
            _put(hostile, path, text)
        (folder / table / "_manifest.json").write_text(json.dumps(hostile))
        return
    spec = folder / "specs" / f"{table}.toml"
    text_of = spec.read_text()
    value = r'("""[\s\S]*?"""|"[^"\n]*")'
    for path in planted:
        key = re.escape(str(path[-1]))
        found = re.search(rf"^{key}\s*=\s*{value}", text_of, re.MULTILINE)
        assert found is not None, path
        line = f"{path[-1]} = {json.dumps(text)}"
        text_of = text_of[: found.start()] + line + text_of[found.end() :]
    spec.write_text(text_of)


def _clean_answer(cache: dict[tuple[str, ...], str], clean: Path, args: list[str]) -> str:
    key = tuple(args)
    if key not in cache and args[0] in FIGURES:
        cache[key] = run([*args, "--data", str(clean)]).stdout
    return cache.get(key, "")
