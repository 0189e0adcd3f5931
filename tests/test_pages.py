"""Level files written by storage/pages.py: the rows, statistics and checksums every
reader takes from them are those Arrow's writer gives the same rows."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.engine.core import NO_PARENT
from pipeline.storage import format as fmt
from pipeline.storage import pages, writer
from pipeline.storage.integrity import row_group_bounds

META = fmt.metadata("t", "a test encoding")


def _rows(n: int, seed: int, roots: list[int] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique states of 48 bits and parents near them (as a level's are)."""
    rng = np.random.default_rng(seed)
    states = np.unique(rng.integers(0, 1 << 48, int(n * 1.01), dtype=np.uint64))[:n]
    parents = states ^ (np.uint64(1) << rng.integers(0, 48, len(states)).astype(np.uint64))
    parents[list(roots)] = NO_PARENT
    return states, parents


def _by_arrow(path: Path, depth: int, states: np.ndarray, parents: np.ndarray) -> None:
    """The same rows through Arrow's writer, with the format's settings."""
    roots = parents == NO_PARENT
    table = pa.table(
        {
            "state": pa.array(states, pa.uint64()),
            "depth": pa.array(np.full(len(states), depth, np.uint8)),
            "parent": pa.array(parents, pa.uint64(), mask=roots if roots.any() else None),
        },
        schema=fmt.SCHEMA.with_metadata({**META, "puzzledb.depth": str(depth)}),
    )
    with open(path, "wb") as f:
        writer._write_table(table, f)


# 1 row, a page and a bit, two row groups and a bit; roots first, in runs, last.
CASES = [
    (1, 0, [0]),
    (pages.PAGE_ROWS + 5, 3, []),
    (2 * fmt.ROW_GROUP_ROWS + 7, 9, []),
    (1000, 0, [0, 1, 2, 500, 999]),
    (pages.PAGE_ROWS + 1, 0, [pages.PAGE_ROWS]),
]


@pytest.mark.parametrize(("n", "depth", "roots"), CASES)
def test_every_reader_reads_our_pages_as_arrows(
    tmp_path: Path, n: int, depth: int, roots: list[int]
) -> None:
    states, parents = _rows(n, n, roots)
    entry = writer.write_part(tmp_path, depth, 0, states, parents, META)
    ours, theirs = tmp_path / entry["name"], tmp_path / "arrow.parquet"
    _by_arrow(theirs, depth, states, parents)
    a = pq.ParquetFile(ours, page_checksum_verification=True)
    b = pq.ParquetFile(theirs)
    assert a.read().equals(b.read())
    assert a.schema_arrow.metadata == b.schema_arrow.metadata
    assert a.schema_arrow == b.schema_arrow
    assert a.metadata.num_row_groups == b.metadata.num_row_groups == -(-n // fmt.ROW_GROUP_ROWS)
    for g in range(a.metadata.num_row_groups):
        for c in range(3):
            x, y = a.metadata.row_group(g).column(c), b.metadata.row_group(g).column(c)
            assert (x.statistics.min, x.statistics.max) == (y.statistics.min, y.statistics.max)
            assert x.statistics.null_count == y.statistics.null_count
            assert x.compression == "ZSTD" and x.encodings == y.encodings
    assert row_group_bounds(a.metadata) == row_group_bounds(b.metadata)
    figures = "select count(*), count(parent), sum(state::hugeint), sum(parent::hugeint), "
    figures += "min(depth), max(depth), bit_xor(hash(state, parent)) from read_parquet(?)"
    got = duckdb.execute(figures, [str(ours)]).fetchall()
    assert got == duckdb.execute(figures, [str(theirs)]).fetchall()
    assert got[0][:2] == (n, n - len(roots))
    assert pl.read_parquet(ours).equals(pl.read_parquet(theirs))


def test_a_point_look_up_in_duckdb_finds_a_row_by_its_statistics(tmp_path: Path) -> None:
    states, parents = _rows(3 * fmt.ROW_GROUP_ROWS, 7)
    entry = writer.write_part(tmp_path, 5, 0, states, parents, META)
    i = 2 * fmt.ROW_GROUP_ROWS + 12345
    row = duckdb.execute(
        "select depth, parent from read_parquet(?) where state = ?",
        [str(tmp_path / entry["name"]), int(states[i])],
    ).fetchall()
    assert row == [(5, int(parents[i]))]


def test_a_flipped_byte_in_a_page_fails_its_checksum(tmp_path: Path) -> None:
    states, parents = _rows(50_000, 3)
    path = tmp_path / writer.write_part(tmp_path, 4, 0, states, parents, META)["name"]
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x40  # inside the state column's frame
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="CRC"):
        pq.ParquetFile(path, page_checksum_verification=True).read()


def test_the_bytes_depend_only_on_the_rows(tmp_path: Path) -> None:
    # A thread's contexts and a part's choice of zstd's way are its own: the same
    # rows give the same bytes in any thread, after any other part.
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    states, parents = _rows(pages.PAGE_ROWS * 2, 11)
    first = writer.write_part(tmp_path / "a", 3, 0, states, parents, META)
    other_states, other_parents = _rows(5000, 12)
    writer.write_part(tmp_path / "b", 3, 1, other_states, other_parents, META)
    out: list[dict] = []
    t = threading.Thread(
        target=lambda: out.append(writer.write_part(tmp_path / "b", 3, 0, states, parents, META))
    )
    t.start()
    t.join()
    assert out[0]["sha256"] == first["sha256"]


def test_each_column_of_a_part_takes_the_way_its_first_page_compresses_smaller() -> None:
    # Sorted states take the fast way. Parents that differ from their dense states in
    # three high bits, the same for runs of rows (as a peg's jump does), come out
    # over 3% larger so on the probe: they take the double-fast way.
    rng = np.random.default_rng(1)
    n = pages.PAGE_ROWS
    states = np.unique(rng.integers(0, 1 << 28, n * 6 // 5, dtype=np.uint64))[:n]
    states |= np.uint64(1 << 32)
    masks = np.array([7 << k for k in range(28, 33)], np.uint64)
    parents = states ^ masks[np.repeat(rng.integers(0, len(masks), n // 16), 16)]
    for values, way in ((states, pages._contexts.fast), (parents, pages._contexts.double)):
        column = pages.Column("x", values)
        frame = column.frame(values.view(np.uint8))
        assert column.zstd is way
        assert frame == way.compress(values.view(np.uint8))
    probe = parents.view(np.uint8)[: pages.PROBE]
    fast, double = (len(w.compress(probe)) for w in (pages._contexts.fast, pages._contexts.double))
    assert fast > double * (1 + pages.MARGIN)


def _written(tmp_path: Path, columns: list[pages.Column], schema: pa.Schema) -> Path:
    path = tmp_path / "t.parquet"
    with open(path, "wb") as f:
        pages.write(columns, schema, f.write)
    return path


@pytest.mark.parametrize(
    ("values", "nulls"),
    [
        ([1, 2, 3], [False, True, False]),  # the repro: pyarrow "Number of decoded rep / def
        ([5, 5, 5, 5], [True, False, False, True]),  # levels do not match", DuckDB "Out of
        ([7, 9], None),  # buffer"; one value (a level's depth) and no null at all as well
        ([0, 255] * (pages.PAGE_ROWS + 3), "every third"),  # pages and a second row group
    ],
)
def test_an_optional_uint8_column_writes_its_definition_levels(
    tmp_path: Path, values: list[int], nulls: list[bool] | str | None
) -> None:
    """The 8-bit branch wrote a nullable column's values without their definition levels:
    no reader read the file. pyarrow (page CRCs checked), polars and DuckDB read the rows
    and the nulls back, with each row group's statistics."""
    v = np.array(values, np.uint8)
    mask = None
    if nulls is not None:
        mask = np.arange(len(v)) % 3 == 0 if nulls == "every third" else np.array(nulls)
    path = _written(
        tmp_path,
        [pages.Column("depth", v, optional=True, nulls=mask)],
        pa.schema([pa.field("depth", pa.uint8())]),
    )
    want = [None if mask is not None and mask[i] else int(x) for i, x in enumerate(v)]
    f = pq.ParquetFile(path, page_checksum_verification=True)
    assert f.read()["depth"].to_pylist() == want
    assert pl.read_parquet(path)["depth"].to_list() == want
    assert duckdb.execute("select depth from read_parquet(?)", [str(path)]).fetchall() == [
        (x,) for x in want
    ]
    for g in range(f.metadata.num_row_groups):
        stats = f.metadata.row_group(g).column(0).statistics
        rows = want[g * fmt.ROW_GROUP_ROWS : (g + 1) * fmt.ROW_GROUP_ROWS]
        kept = [x for x in rows if x is not None]
        assert (stats.min, stats.max, stats.null_count) == (
            min(kept),
            max(kept),
            len(rows) - len(kept),
        )


def test_a_column_the_pages_cannot_say_is_refused() -> None:
    """Another type than uint64 or uint8, or nulls on a required column, would make a file
    whose schema says otherwise than its bytes."""
    with pytest.raises(ValueError, match="uint64 or uint8 values, not uint16"):
        pages.Column("x", np.zeros(3, np.uint16))
    with pytest.raises(ValueError, match="nulls go with optional=True"):
        pages.Column("x", np.zeros(3, np.uint8), nulls=np.zeros(3, bool))
    with pytest.raises(ValueError, match="nulls go with optional=True"):
        pages.Column("x", np.zeros(3, np.uint64), optional=True, nulls=np.zeros(2, bool))
