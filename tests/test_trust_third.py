"""A data folder is untrusted input, third round: what an API object kept open reads
after the folder changed under it (docs/TRUST.md)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

import pipeline


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
