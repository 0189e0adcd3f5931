"""Read tables' files with every Parquet reader installed here; say whether they agree.

    python tools/read_everywhere.py data/3x3 [data/2x5 ...]

The manual recipe of docs/DATA.md ("Other readers, by hand") runs this in a
virtual environment of its own holding DataFusion, Spark and older versions of the
readers the project depends on (pyarrow, polars, DuckDB); tests/test_matrix.py holds
those three to every kind of table in every run. Each reader found reads every file
of the folder, and the figures are computed from the rows it returned: the rows, the
least and greatest state and parent, their sums modulo 2^64, the null parents and
the depths' sum. One line a reader with the types it gives; exit 1 if any differs
from pyarrow's. Imports nothing of puzzledb: it reads the files as anyone would.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

Figures = tuple[int, ...]


def _arrow(table: Any) -> tuple[Figures, str]:
    """The figures of a pyarrow table of the three columns, and their types."""
    import pyarrow.compute as pc

    state = table["state"].to_numpy().astype(np.uint64)
    parent = table["parent"]
    nulls = parent.null_count
    kept = pc.drop_null(parent).to_numpy().astype(np.uint64)
    depth = table["depth"].to_numpy().astype(np.int64)
    types = ", ".join(f"{f.name} {f.type}" for f in table.schema)
    return _figures(state, kept, nulls, depth), types


def _figures(state: np.ndarray, parent: np.ndarray, nulls: int, depth: np.ndarray) -> Figures:
    with np.errstate(over="ignore"):
        return (
            len(state),
            int(state.min()),
            int(state.max()),
            int(state.sum(dtype=np.uint64)),
            int(parent.min()) if len(parent) else -1,
            int(parent.max()) if len(parent) else -1,
            int(parent.sum(dtype=np.uint64)),
            nulls,
            int(depth.sum()),
        )


def read_pyarrow(folder: Path) -> tuple[Figures, str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted(map(str, folder.glob("*.parquet")))
    try:  # every data page's CRC32 checked (pyarrow 13 and later)
        tables = [pq.read_table(f, page_checksum_verification=True) for f in files]
        how = "page CRCs checked"
    except TypeError:
        tables = [pq.read_table(f) for f in files]
        how = "no page CRC check in this version"
    figures, types = _arrow(pa.concat_tables(tables))
    return figures, f"{types}; {how}"


def read_polars(folder: Path) -> tuple[Figures, str]:
    import polars as pl

    df = pl.read_parquet(str(folder / "*.parquet"))
    return _arrow(df.to_arrow())[0], ", ".join(f"{k} {v}" for k, v in df.schema.items())


def read_duckdb(folder: Path) -> tuple[Figures, str]:
    import duckdb

    rel = duckdb.sql(f"SELECT state, depth, parent FROM read_parquet('{folder}/*.parquet')")
    types = ", ".join(f"{c} {t}" for c, t in zip(rel.columns, rel.types, strict=True))
    got = rel.arrow()  # a table in DuckDB 1.x, a reader of batches in 2.x
    return _arrow(got.read_all() if hasattr(got, "read_all") else got)[0], types


def read_pandas(folder: Path) -> tuple[Figures, str]:
    import pandas as pd
    import pyarrow as pa

    df = pd.read_parquet(folder, dtype_backend="pyarrow")
    types = ", ".join(f"{k} {v}" for k, v in df.dtypes.items())
    table = pa.table({c: pa.array(df[c]) for c in ("state", "depth", "parent")})
    return _arrow(table)[0], f"{types} (dtype_backend='pyarrow')"


def read_datafusion(folder: Path) -> tuple[Figures, str]:
    from datafusion import SessionContext

    ctx = SessionContext()
    ctx.register_parquet("t", str(folder))
    table = ctx.sql("SELECT state, depth, parent FROM t").to_arrow_table()
    return _arrow(table)


def read_spark(folder: Path) -> tuple[Figures, str]:
    """Spark reads UINT64 as decimal(20,0): the figures come from its own aggregates."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
    spark = spark.config("spark.ui.showConsoleProgress", "false")
    session = spark.getOrCreate()
    try:
        df = session.read.parquet(str(folder))
        row = df.selectExpr(
            "count(*)", "min(state)", "max(state)", "sum(state)", "min(parent)",
            "max(parent)", "sum(parent)", "count(*) - count(parent)", "sum(depth)",
        ).collect()[0]  # fmt: skip
        sums = {3, 6}
        figures = tuple(int(v) % 2**64 if i in sums else int(v) for i, v in enumerate(row))
        return figures, ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in df.schema)
    finally:
        session.stop()


READERS: dict[str, tuple[str, Callable[[Path], tuple[Figures, str]]]] = {
    "pyarrow": ("pyarrow", read_pyarrow),
    "polars": ("polars", read_polars),
    "duckdb": ("duckdb", read_duckdb),
    "pandas": ("pandas", read_pandas),
    "datafusion": ("datafusion", read_datafusion),
    "spark": ("pyspark", read_spark),
}


def _version(module: str) -> str | None:
    import importlib

    try:
        return str(getattr(importlib.import_module(module), "__version__", "?"))
    except ImportError:
        return None


def check(folder: Path) -> bool:
    """One line a reader installed here; whether every reader agrees with pyarrow."""
    base: Figures | None = None
    agree = True
    for name, (module, read) in READERS.items():
        version = _version(module)
        if version is None:
            print(f"{folder}: {name}: not installed")
            continue
        figures, types = read(folder)
        base = figures if base is None else base
        same = figures == base
        agree &= same
        word = "agrees" if same else f"DIFFERS: {figures} against {base}"
        print(f"{folder}: {name} {version}: {figures[0]:,} rows, {word} ({types})")
    return agree


def main(folders: list[str]) -> int:
    if not folders:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    return 0 if all([check(Path(f)) for f in folders]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
