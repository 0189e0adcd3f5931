"""A data folder is untrusted input, third round: what an API object kept open reads
after the folder changed under it (docs/TRUST.md)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

import pipeline
from tests.conftest import one_line_error, run_cli


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
