"""A data folder is untrusted input, third round: what an API object kept open reads
after the folder changed under it (docs/TRUST.md)."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from tests.conftest import examples, one_line_error, run_cli


def test_a_long_lived_database_refuses_a_level_file_swapped_under_it(
    copy_of: Callable[..., Path],
) -> None:
    """The read-only catalog was checked when it was made: a level file replaced after
    (depth 19's rows in depth 20's place) is checked again before the next query reads
    it, and the table's view then says why instead of counting 366 rows."""
    data = copy_of("2x3")
    db = pipeline.open(data)
    assert db.query('SELECT count(*) AS n FROM "2x3"').item() == 360
    assert db.query('SELECT count(*) FROM "2x3" WHERE depth = 20').item() == 6
    shutil.copyfile(data / "2x3" / "d019-000.parquet", data / "2x3" / "d020-000.parquet")
    with pytest.raises(duckdb.Error, match=r"d020-000\.parquet does not match its checksum"):
        db.query('SELECT count(*) AS n FROM "2x3"')
    assert db.query("SELECT 1 AS one").item() == 1  # the rest of the catalog still answers


@pytest.mark.parametrize("named", ["../elsewhere/mixed.tws", "/tmp/mixed.tws", "sub/mixed.tws"])
def test_a_spec_names_its_definition_in_its_own_folder_only(tmp_path: Path, named: str) -> None:
    """``file =`` is a file name beside the spec: a path elsewhere is refused in one line,
    never read and copied into the kept spec."""
    spec = tmp_path / "zx.toml"
    spec.write_text(f'name = "zx"\n[twisty]\nfile = "{named}"\n')
    ran = run_cli("build", "--spec", str(spec), data=tmp_path / "data")
    one_line_error(ran, "twisty.file: the name of a .tws file in the spec's own folder")
    assert not (tmp_path / "data" / "specs").exists()


def test_a_spec_naming_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    """A FIFO beside the spec (nobody writes it) is no regular file: refused at once,
    where a plain open() waited for a writer for ever."""
    os.mkfifo(tmp_path / "wait.tws")
    spec = tmp_path / "zx.toml"
    spec.write_text('name = "zx"\n[twisty]\nfile = "wait.tws"\n')
    ran = run_cli("build", "--spec", str(spec), data=tmp_path / "data")  # 300 s at most
    one_line_error(ran, "a FIFO, not a regular file")


def _definition(sets: list[tuple[str, int, int]], moves: dict[str, list[list[int]]]) -> str:
    """A .tws text: each set solved in order with twists 0, each move a permutation a set
    (positions from 1; twists 0)."""
    out = [f"Set {n} {k} {o}" for n, k, o in sets]
    out += ["Solved"]
    for n, k, _ in sets:
        out += [n, " ".join(str(i) for i in range(1, k + 1)), " ".join("0" * k)]
    out += ["End"]
    for name, perms in moves.items():
        out.append(f"Move {name}")
        for (n, k, _), perm in zip(sets, perms, strict=True):
            out += [n, " ".join(map(str, perm)), " ".join("0" * k)]
        out.append("End")
    return "\n".join(out) + "\n"


def _keep(data: Path, name: str, definition: str) -> None:
    """Put a spec holding ``definition`` into ``data/specs`` as a build would have."""
    (data / "specs").mkdir(exist_ok=True)
    body = definition.replace("\\", "\\\\").replace('"', '\\"')
    (data / "specs" / f"{name}.toml").write_text(
        f'name = "{name}"\n[twisty]\ndefinition = """\n{body}"""\n'
    )


def _limited(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    """The CLI under a hang guard (300 s) and 6 GB of address space: a bound not met
    ends in a MemoryError or a timeout here, never in a machine that swaps."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))

    run = [sys.executable, "-m", "pipeline.cli", *args, "--data", str(data)]
    return subprocess.run(run, capture_output=True, text=True, timeout=300, preexec_fn=limit)


def test_a_kept_spec_of_many_sets_stops_no_other_table(copy_of: Callable[..., Path]) -> None:
    """64 sets and one move even on each: which sets' parities every move flips is a
    system over GF(2) (none here: the graph is reversible), not 1.7e11 subsets tried;
    the other tables answer as before."""
    data = copy_of("2x3")
    sets = [(f"S{i}", 2, 1) for i in range(64)]
    _keep(data, "floppy", _definition(sets, {"M": [[1, 2]] * 64}))
    for args in (["histogram", "2x3"], ["query", "SELECT 1 AS one"], ["verify", "2x3"]):
        ran = _limited(*args, data=data)
        assert ran.returncode == 0, (args, ran.stderr)
    assert pipeline.open(data).puzzle("floppy").graph.value == "reversible"


def test_a_kept_spec_of_200_pieces_is_read_and_said_in_figures(
    copy_of: Callable[..., Path],
) -> None:
    """200! arrangements is past a float: the size is said in three figures, never an
    OverflowError, and the other tables answer."""
    data = copy_of("2x3")
    cycle = [[*range(2, 201), 1]]
    _keep(data, "huge", _definition([("A", 200, 1)], {"M": cycle}))
    assert _limited("histogram", "2x3", data=data).returncode == 0
    ran = _limited("list", data=data)
    assert ran.returncode == 0 and "huge" in ran.stdout, ran.stderr
    ran = _limited("show", "huge", " ".join(map(str, range(1, 201))), data=data)
    assert "Traceback" not in ran.stderr and "OverflowError" not in ran.stderr, ran.stderr


def test_a_definition_whose_powers_fill_memory_is_one_line(tmp_path: Path) -> None:
    """250 moves of order 255 on 255 pieces: every power of every move kept would be 16
    million piece positions; refused in one line at once, within the memory limit."""
    cycle = [*range(2, 256), 1]
    text = _definition([("A", 255, 1)], {f"M{i}": [cycle] for i in range(250)})
    path = tmp_path / "powers.tws"
    path.write_text(text)
    ran = _limited("build", "--spec", str(path), data=tmp_path / "data")
    one_line_error(ran, "piece positions", "a definition this large is refused")


@settings(max_examples=examples(30), deadline=None, derandomize=True)
@given(st.data())
def test_generated_definitions_are_read_or_refused_in_one_line(data: st.DataObject) -> None:
    """Definitions drawn at random (a few sets, pieces, twists and moves, labels and
    twists of every value), each built to two levels and listed beside a table: exit 0,
    or one line and exit 1, within the hang guard and the memory limit."""
    sets = data.draw(
        st.lists(st.tuples(st.integers(1, 9), st.integers(1, 4)), min_size=1, max_size=4).map(
            lambda xs: [(f"S{i}", k, o) for i, (k, o) in enumerate(xs)]
        )
    )
    moves = {}
    for m in range(data.draw(st.integers(1, 4))):
        moves[f"M{m}"] = [data.draw(st.permutations(range(1, k + 1))) for _, k, _ in sets]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "drawn.tws"
        path.write_text(_definition(sets, moves))
        ran = _limited("build", "--spec", str(path), "--max-depth", "2", data=Path(folder) / "d")
        assert ran.returncode in (0, 1), ran.stderr
        assert "Traceback" not in ran.stderr, ran.stderr
        if ran.returncode == 1:
            assert len(ran.stderr.strip().splitlines()) == 1, ran.stderr
        listed = _limited("list", data=Path(folder) / "d")
        assert listed.returncode in (0, 1) and "Traceback" not in listed.stderr, listed.stderr
