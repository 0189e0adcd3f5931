"""Every table kind on every surface (issue #43): the matrix of tests/matrix.py asked
through the API, the SQL macros, the CLI verbs, the explorer's pages and JSON
endpoints, and the report. Each surface answers what the others answer (the
figures checked against the Parquet rows through DuckDB, and each walk move by
move with the puzzle's own moves), or says in one line why it cannot: no
traceback, no HTTP 500.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

import pipeline
from pipeline.errors import PuzzleDBError
from pipeline.puzzles.base import Puzzle, sql_str
from pipeline.puzzles.registry import family_sql
from tests.conftest import shared
from tests.matrix import SEARCHED_NAME, SEARCHED_TABLES, Kind, Ran, build, cli, kinds
from tests.test_serve import get, position, serving

KINDS = kinds()
#: The CLI is a thin layer over the API, which every kind answers through above: in
#: `make test` its verbs are asked of one kind of each family and of each feature (a
#: spec, a start, symmetry, winnable, chains, path pairs, a pattern table of each family,
#: one of a puzzle solved by search); of every kind in `make test-full`.
CLI_EACH = {
    "oshidori", "2x3", "3x3-multi", "2x3-pdb-5", "knight14", "magic9", "triangle15-winnable",
    "triangle15-sym", "triangle15-chains", "pocket", "hanoi3", "cube3-pdb-edges6a", "2x3@1",
    "2x3~9c3d0f05", "floppy", "rings", "crossed-pdb-a",
}  # fmt: skip
CLI_KINDS = [
    k if k.table in CLI_EACH else pytest.param(k, marks=pytest.mark.full, id=str(k)) for k in KINDS
]


@pytest.fixture(scope="session")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with one table of every kind, built once a run."""
    return shared(tmp_path_factory, "matrix", build)


@pytest.fixture(scope="session")
def mdb(matrix: Path) -> pipeline.Database:
    return pipeline.open(matrix)


@pytest.fixture(scope="module")
def server(matrix: Path) -> Iterator[str]:
    with serving(matrix) as base:
        yield base


def ask(work: Callable[[], Any]) -> Any:
    """The answer, or the one line the API's error says (a PuzzleDBError: anything
    else escapes and fails the test with its traceback)."""
    try:
        return work()
    except PuzzleDBError as e:
        line = str(e)
        assert line and "\n" not in line.strip(), f"not one line: {line!r}"
        return Refused(line.strip())


class Refused(str):
    """An answer that is the one line saying why there is none."""


def probes(db: pipeline.Database, name: str) -> list[int]:
    """Positions to ask about: a root, the first position of the middle level, the
    first of the deepest level built."""
    hist = db.histogram(name)
    deepest = int(hist["depth"].max())
    p = db.puzzle(name)
    return list(
        dict.fromkeys(
            [
                p.roots()[0] if p.canonical is None else p.variants(p.roots()[0])[0],
                p.parse(db.at_depth(name, deepest // 2, 0)),
                p.parse(db.at_depth(name, deepest, 0)),
            ]
        )
    )


def one_move(p: Puzzle, a: int, b: int) -> bool:
    """Whether position ``b`` is one move of the game (a zero-cost one included) from
    ``a``, or ``a`` from ``b``: the positions as made, not as a table of classes stores them."""
    return any(y in {made for made, _ in p.moves_from(x)} for x, y in ((a, b), (b, a)))


def sql_depth(db: pipeline.Database, name: str, states: list[int]) -> int | None:
    """The least depth of any of ``states`` in the table, read from the rows by DuckDB."""
    found = db.query(
        f"SELECT min(depth) AS d FROM \"{name}\" WHERE list_contains(getvariable('s'), state)",
        {"s": [int(s) for s in states]},
    )["d"][0]
    return None if found is None else int(found)


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_the_api_answers_right(mdb: pipeline.Database, kind: Kind) -> None:
    name = kind.table
    p = mdb.puzzle(name)
    hist = mdb.histogram(name)
    rows = mdb.query(f'SELECT depth, count(*) AS n FROM "{name}" GROUP BY 1 ORDER BY 1')
    assert hist["positions"].to_list() == rows["n"].to_list()
    assert hist["depth"].to_list() == rows["depth"].to_list()
    summary = mdb.table_summary(name)
    assert summary.positions == int(rows["n"].sum()) and summary.max_depth == hist["depth"].max()
    assert summary.partial_depth == kind.max_depth or kind.max_depth is None
    assert mdb.verify(name).ok
    longest = ask(lambda: mdb.longest(name))
    if not isinstance(longest, Refused):
        deepest = mdb.query(f'SELECT state FROM "{name}" WHERE depth = {summary.max_depth}')
        assert sorted(longest["state"].to_list()) == sorted(deepest["state"].to_list())
    for s in probes(mdb, name):
        _position(mdb, p, name, s)
        _solution(mdb, p, name, s)


def _position(db: pipeline.Database, p: Puzzle, name: str, s: int) -> None:
    """The depth and every move's depth, against the rows."""
    depth = db.depth(name, s)
    assert depth == sql_depth(db, name, p.variants(s))
    answer = db.position(name, s)
    assert answer.depth == depth
    for m in answer.moves:
        assert m.depth == sql_depth(db, name, p.variants(m.stored)), m
    svg = db.board_svg(name, s)
    assert f"depth {depth}" in svg and ET.fromstring(svg) is not None


def _solution(db: pipeline.Database, p: Puzzle, name: str, s: int) -> None:
    """A solve is a legal line to a root of the table that answers, as long as its depth
    there; or one line saying why there is none (a lost peg position)."""
    sol = ask(lambda: db.solve(name, s))
    walked = p.solved_by or name
    if isinstance(sol, Refused):
        assert sql_depth(db, walked, p.variants(s)) is None, sol
        return
    judge = db.puzzle(walked).in_folder(db.data)
    for a, b in zip(sol.line, sol.line[1:], strict=False):
        assert one_move(judge, a, b), (p.text(a), p.text(b))
    end = sol.line[-1] if sol.origin.towards else sol.line[0]
    assert sql_depth(db, walked, judge.variants(end)) == 0
    assert sol.moves == sql_depth(db, walked, judge.variants(s))
    assert ET.fromstring(db.solution_svg(sol)) is not None


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_the_sql_macros_answer_as_the_api(mdb: pipeline.Database, kind: Kind) -> None:
    name = kind.table
    p = mdb.puzzle(name)
    macros = re.findall(r"CREATE OR REPLACE MACRO (\w+)\(puzzle, (\w+)\)", _family_sql(mdb))
    for s in probes(mdb, name):
        row = mdb.query(
            "SELECT b, d, state_of($t, b) AS back FROM (SELECT board($t, $s::UBIGINT) AS b, "
            "drawing($t, $s::UBIGINT) AS d)".replace("$t", "getvariable('t')").replace(
                "$s", "getvariable('s')"
            ),
            {"t": name, "s": s},
        ).row(0, named=True)
        assert row["b"] == p.text(s) and row["d"] == p.draw(s) and row["back"] == s
        cells = ask_sql(mdb, "SELECT cells(getvariable('t'), getvariable('s')::UBIGINT)", name, s)
        if p.cells.count:
            assert cells == p.cells.values(s)
        else:  # a state that is no cells (twisty ranks): one line says so, never []
            assert isinstance(cells, Refused) and "not cells" in cells, cells
        walk = mdb.walk(name, s)
        path = mdb.query(
            "SELECT state FROM path(getvariable('t'), getvariable('s'))", {"t": name, "s": s}
        )
        assert path["state"].to_list() == ([] if walk is None else _stored(p, walk, s))
        for macro, _ in macros:  # a family's macros: answer, or one DuckDB error line
            ask_sql(mdb, f"SELECT {macro}(getvariable('t'), getvariable('s')::UBIGINT)", name, s)
        if p.canonical is not None:
            got = ask_sql(
                mdb, "SELECT canonical(getvariable('t'), getvariable('s')::UBIGINT)", name, s
            )
            assert got == mdb.canonical(name, s)


def _stored(p: Puzzle, walk: Any, s: int) -> list[int]:
    """The states the table stores along a walk (a class's smallest image on -sym tables)."""
    return [p.variants(x)[0] if p.canonical is not None else x for x in walk.states]


def _family_sql(db: pipeline.Database) -> str:
    made = family_sql(list(db.folder.tables()[0].values()))  # SQL, or SQL and its bound rows
    return "\n".join(m if isinstance(m, str) else m[0] for m in made)


def ask_sql(db: pipeline.Database, sql: str, name: str, s: int) -> Any:
    """One value, or the one line DuckDB's error says (a family's macro on a table not of
    its family answers with ``error(...)``)."""
    import duckdb

    try:
        return db.query(sql, {"t": name, "s": s}).row(0)[0]
    except duckdb.Error as e:
        assert str(e).strip(), e
        return Refused(str(e).splitlines()[0])


def _same(ran: Ran, answer: Any) -> None:
    """The CLI says what the API says: its JSON, or the same one line and exit 1."""
    if isinstance(answer, Refused):
        assert ran.code == 1 and ran.err.strip() == f"puzzledb: {answer}", ran
    else:
        assert ran.code == 0 and "Traceback" not in ran.err, ran


@pytest.mark.parametrize("kind", CLI_KINDS, ids=str)
def test_the_cli_verbs_answer_as_the_api(
    mdb: pipeline.Database, matrix: Path, kind: Kind, tmp_path: Path
) -> None:
    name = kind.table
    p = mdb.puzzle(name)
    ran = cli("histogram", name, "--json", data=matrix)
    assert ran.code == 0 and json.loads(ran.out)["histogram"] == mdb.histogram(name).rows(
        named=True
    )
    longest = ask(lambda: mdb.longest(name))
    ran = cli("longest", name, "--json", data=matrix)
    _same(ran, longest)
    if not isinstance(longest, Refused):
        assert json.loads(ran.out)["positions"] == longest["position"].to_list()
    for s in probes(mdb, name):
        text = p.text(s)
        ran = cli("show", name, text, "--json", data=matrix)
        assert ran.code == 0 and json.loads(ran.out)["depth"] == mdb.depth(name, s), ran
        sol = ask(lambda s=s: mdb.solve(name, s))
        ran = cli("solve", name, text, "--json", data=matrix)
        _same(ran, sol)
        if not isinstance(sol, Refused):
            assert json.loads(ran.out)["path"] == sol.path
        assert cli("solve", name, text, data=matrix).code == ran.code
    chart = tmp_path / "chart.svg"
    ran = cli("plot", "histogram", name, "--out", str(chart), data=matrix)
    assert ran.code == 0, ran
    counts = [int(x) for x in re.findall(r'data-count="(\d+)"', chart.read_text())]
    assert counts == mdb.histogram(name)["positions"].to_list()
    ran = cli("verify", name, data=matrix)
    assert ran.code == 0 and ran.out.startswith(f"{name}: ok"), ran
    ran = cli("query", f'SELECT count(*) AS n FROM "{name}"', "--format", "json", data=matrix)
    assert json.loads(ran.out) == [{"n": mdb.table_summary(name).positions}]


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_the_explorer_answers_as_the_api(mdb: pipeline.Database, server: str, kind: Kind) -> None:
    name = kind.table
    p = mdb.puzzle(name)
    q = quote(name, safe="")
    for path in (f"/t/{q}", f"/t/{q}?log=1", f"/pick/{q}?depth=0&n=0", f"/pick/{q}?depth=1"):
        status, page = get(server + path)
        assert status == 200, (path, page[:300])
    status, body = get(f"{server}/api/histogram/{q}")
    assert json.loads(body)["histogram"] == mdb.histogram(name).rows(named=True)
    for s in probes(mdb, name):
        text = quote(p.text(s), safe="")
        for path in (f"/p/{q}?s={text}", f"/strip/{q}?s={text}"):
            status, page = get(server + path)
            assert status == 200, (path, page[:300])
        status, body = get(f"{server}/api/position/{q}?s={text}")
        answer = json.loads(body)
        assert status == 200 and answer["depth"] == mdb.depth(name, s)
        assert [m["depth"] for m in answer["moves"]] == [
            m.depth for m in mdb.position(name, s).moves
        ]
        status, body = get(f"{server}/api/solve/{q}?s={text}")
        sol = ask(lambda s=s: mdb.solve(name, s))
        if isinstance(sol, Refused):
            assert 400 <= status < 500 and json.loads(body)["error"] == sol
        else:
            assert status == 200 and json.loads(body)["path"] == sol.path


def _scrambles() -> list[str]:
    """Turns from solved: none, one, three, and seeded ones of six and eight."""
    rng = random.Random(43)
    turns = ["A", "A2", "A'", "B", "B2", "B'", "A3", "B3"]
    return ["", "A", "A B2 A'", *(" ".join(rng.choice(turns) for _ in range(n)) for n in (6, 8))]


def test_a_puzzle_solved_by_search_answers_on_every_surface(
    mdb: pipeline.Database, matrix: Path, server: str
) -> None:
    """crossed (past 64 bits) through the API, the CLI and the explorer: each solution a
    legal line to solved, no longer than its scramble, the distance to solved as long;
    random positions of its group; histogram and longest refused in one line naming its
    pattern tables (each of them a kind of the matrix)."""
    name, q = SEARCHED_NAME, quote(SEARCHED_NAME)
    p = mdb.puzzle(name)
    assert p.search_tables() == list(SEARCHED_TABLES) and name not in mdb.built()
    solved = p.root_texts[0]
    for scramble in _scrambles():
        s = mdb.from_turns(name, scramble)
        sol = mdb.solve(name, s)
        assert sol.line[0] == s and p.text(sol.line[-1]) == solved
        assert all(one_move(p, a, b) for a, b in zip(sol.line, sol.line[1:], strict=False))
        assert sol.moves <= len(scramble.split()) and sol.moves == len(sol.line) - 1
        assert mdb.distance(name, p.text(s), solved).moves == sol.moves
        ran = cli("solve", name, p.text(s), "--json", data=matrix)
        assert ran.code == 0 and json.loads(ran.out)["path"] == sol.path, ran
        ran = cli("distance", name, p.text(s), solved, "--json", data=matrix)
        assert ran.code == 0 and json.loads(ran.out)["moves"] == sol.moves, ran
        answer = position(server, name, p.text(s))
        assert answer["depth"] is None and answer["search"]["moves"] == sol.moves
        assert [m["state"] for m in answer["moves"]] == [
            m.made for m in mdb.position(name, s).moves
        ]
        status, body = get(f"{server}/api/solve/{q}?s={quote(p.text(s))}")
        assert status == 200 and json.loads(body)["path"] == sol.path
        status, page = get(f"{server}/p/{q}?s={quote(p.text(s))}")
        assert status == 200 and f'data-moves="{sol.moves}"' in page
    drawn = {mdb.random_position(name, seed) for seed in range(4)}
    assert len(drawn) == 4 and all(p.text(p.parse(t)) == t for t in drawn)
    ran = cli("random", name, "--seed", "2", "--json", data=matrix)
    assert ran.code == 0 and mdb.random_position(name, 2) in ran.out, ran
    for verb in ("histogram", "longest"):
        refused = ask(lambda verb=verb: getattr(mdb, verb)(name))
        assert isinstance(refused, Refused) and "solved by search" in refused
        assert all(t in refused for t in SEARCHED_TABLES)
        _same(cli(verb, name, data=matrix), refused)
    for path in (f"/api/histogram/{q}", f"/t/{q}"):
        status, body = get(server + path)
        assert status == 404 and "is solved by search, not tabulated" in body


def test_every_table_is_on_the_home_page_and_in_the_report(
    mdb: pipeline.Database, matrix: Path, server: str, tmp_path: Path
) -> None:
    rows = {r["puzzle"]: r for r in json.loads(get(server + "/api/tables")[1])}
    assert set(rows) == {k.table for k in KINDS} and not any("error" in r for r in rows.values())
    for k in KINDS:
        assert rows[k.table]["positions"] == mdb.table_summary(k.table).positions
    status, page = get(server + "/")
    assert status == 200 and all(f'href="/t/{quote(k.table, safe="")}"' in page for k in KINDS)
    ran = cli("report", "--out", str(tmp_path), data=matrix)
    assert ran.code == 0, ran
    html = (tmp_path / "report.html").read_text()
    shown = set(
        re.findall(r'<section class="(?:derived-)?table" id="t-[^"]+" data-table="([^"]+)"', html)
    )
    assert shown == {k.table for k in KINDS} and 'class="error"' not in html


def test_the_matrix_is_every_kind_of_the_registry() -> None:
    """A puzzle class of the registry, each family's name suffixes and typed roots, the
    build options and the specs: all in the matrix, each built as it says."""
    from pipeline.puzzles.builtin import FAMILIES
    from tests.matrix import tabulated

    whys = " ".join(k.why for k in KINDS)
    assert all(type(p).__name__ in whys for p in tabulated())
    assert all(
        f"{f.name}, typed root" in whys for f in FAMILIES if f.variants and f.variants.rooted
    )
    assert {"Hanoi, reversible", "PocketCube, reversible", "PocketCube, bipartite"} <= {
        k.why for k in KINDS
    }
    assert len(KINDS) >= 28


def test_each_family_a_spec_defines_is_in_the_matrix() -> None:
    """A family a spec can define (tiles, pegs, twisty) has an example spec the matrix
    builds: a twisty table is asked through every surface like the others."""
    from pipeline.puzzles.spec import parse
    from tests.matrix import _spec_files

    made = set()
    for path in _spec_files():
        own = [k for k, f in parse.families().items() if f.suffix == path.suffix]
        made |= set(own) if own else {parse.read(path, follow=True).family}
    assert made == set(parse.families()) and "twisty" in made
    assert {"spec floppy.tws", "spec rings_quarter.toml"} <= {k.why for k in KINDS}


def _macro_questions(db: pipeline.Database, name: str) -> dict[str, str]:
    """Each macro of the catalog asked of table ``name`` with its deepest probe typed as a
    constant (as a person types it, and ``path``'s state must be one): a statement each."""
    p = db.puzzle(name)
    family = re.findall(r"CREATE OR REPLACE MACRO (\w+)\(puzzle, (\w+)\)", _family_sql(db))
    t, state = sql_str(name), f"state_of({sql_str(name)}, {sql_str(p.text(probes(db, name)[-1]))})"
    out = {f"{name}|state_of": f"SELECT CAST({state} AS VARCHAR) AS v"}
    for macro in ("board", "drawing", "cells", *(m for m, _ in family)):
        # the state named first: a macro's argument is bound into each of its arms
        out[f"{name}|{macro}"] = (
            f"SELECT CAST({macro}({t}, s) AS VARCHAR) AS v FROM (SELECT {state} AS s)"
        )
    out[f"{name}|path"] = (
        f"SELECT count(*)::VARCHAR || ' ' || coalesce(max(step), -1)::VARCHAR || ' ' || "
        f"coalesce(last(state ORDER BY step)::VARCHAR, '') AS v FROM path({t}, {state})"
    )
    return out


def test_every_macro_answers_with_every_kind_in_one_catalog(
    mdb: pipeline.Database, matrix: Path
) -> None:
    """Every table of the matrix in one catalog, every macro asked of each with typed
    positions (the README's `path(t, state_of(t, '...'))`): the DuckDB CLI on the catalog
    file answers what the API answers, and path walks as the API walks. A twisty
    table's state_of once made every path() fail ("Table function cannot contain
    subqueries"), whatever the table asked."""
    import subprocess
    import sys

    import duckdb

    asked = {k: v for kind in KINDS for k, v in _macro_questions(mdb, kind.table).items()}
    api: dict[str, Any] = {}
    for key, sql in asked.items():
        try:
            api[key] = mdb.query(sql)["v"][0]
        except duckdb.Error as e:  # a macro refusing a table not of its family
            api[key] = Refused(str(e).splitlines()[0])
    walks = [k for k in asked if k.endswith("|path")]
    assert len(walks) == len(KINDS) and not any(isinstance(api[k], Refused) for k in walks)
    for key in walks:
        name = key.removesuffix("|path")
        s = probes(mdb, name)[-1]
        walk = mdb.walk(name, s)
        stored = _stored(mdb.puzzle(name), walk, s) if walk is not None else []
        want = f"{len(stored)} {len(stored) - 1} {stored[-1] if stored else ''}"
        assert api[key] == want, (key, api[key], want)
        assert api[f"{name}|state_of"] == str(s) and api[f"{name}|board"] == mdb.puzzle(name).text(
            s
        )
    refused = [k for k, v in api.items() if isinstance(v, Refused)]
    assert not [k for k in refused if k.split("|")[1] in ("state_of", "board", "drawing")]
    script = ".mode jsonlines\n" + "".join(
        f"SELECT {sql_str(k)} AS k, v FROM ({sql});\n" for k, sql in asked.items()
    )
    duckdb = Path(sys.prefix) / "bin" / "duckdb"
    ran = subprocess.run(
        [str(duckdb), str(matrix / "puzzles.duckdb")],
        input=script,
        capture_output=True,
        text=True,
        cwd="/",
    )
    got = {r["k"]: r["v"] for r in map(json.loads, ran.stdout.splitlines())}
    assert got == {k: v for k, v in api.items() if not isinstance(v, Refused)}
    assert ran.stderr.count("Error") == len(refused) and "subqueries" not in ran.stderr


def _duckdb_rows(path: Path) -> Any:
    import duckdb

    got = duckdb.connect().sql(f"SELECT * FROM read_parquet({sql_str(str(path))})").arrow()
    return got.read_all() if hasattr(got, "read_all") else got  # a batch reader in DuckDB 2


def _text(low: Any, high: Any, known: bool = True) -> tuple[str | None, str | None]:
    return (str(low), str(high)) if known and low is not None else (None, None)


def _statistics(path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Each row group's and column's (min, max, null count), as pyarrow reads them from
    the footer and as DuckDB does (``parquet_metadata``), both as text."""
    import duckdb
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    arrow = [
        (g, meta.schema.column(c).name, *_text(s.min, s.max, s.has_min_max), s.null_count)
        for g in range(meta.num_row_groups)
        for c in range(meta.num_columns)
        for s in [meta.row_group(g).column(c).statistics]
    ]
    duck = (
        duckdb.connect()
        .sql(
            "SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, "
            f"stats_null_count FROM parquet_metadata({sql_str(str(path))}) ORDER BY 1, column_id"
        )
        .fetchall()
    )
    return arrow, [tuple(r) for r in duck]


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_every_file_reads_alike_in_pyarrow_polars_and_duckdb(matrix: Path, kind: Kind) -> None:
    """The readers the project depends on read every file of each kind of table alike:
    pyarrow checking every page's CRC, polars and DuckDB give the same rows; pyarrow's
    and DuckDB's statistics agree, and are the rows' own minimum, maximum and nulls.
    (DataFusion, Spark and older versions: tools/read_everywhere.py, by hand.)"""
    import polars as pl
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    files = sorted((matrix / kind.table).glob("*.parquet"))
    assert files and len(files) == len(pipeline.open(matrix).table(kind.table).files)
    rows = 0
    for path in files:
        table = pq.read_table(path, page_checksum_verification=True)
        for other in (pl.read_parquet(path).to_arrow(), _duckdb_rows(path)):
            assert other.column_names == table.column_names
            assert all(other[c].equals(table[c]) for c in table.column_names), path
        arrow, duck = _statistics(path)
        assert arrow == duck, path
        groups = pq.ParquetFile(path)
        for g, name, low, high, nulls in arrow:
            values = groups.read_row_group(g, columns=[name])[name]
            found = pc.min_max(values).as_py()
            assert (*_text(found["min"], found["max"]), values.null_count) == (low, high, nulls)
        rows += table.num_rows
    assert rows == pipeline.open(matrix).table_summary(kind.table).positions
