"""``remove``: a table, or a spec with its tables, out of the data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.shared import DataOpt, JsonOpt, db, emit


def remove(
    name: Annotated[str, typer.Argument(help="A built table, or a spec kept in DATA/specs/.")],
    data: DataOpt = Path("data"),
    as_json: JsonOpt = False,
) -> None:
    """Remove a table, or a spec with the tables built from it; then rewrite the catalog."""
    gone = db(data).remove(name)
    if as_json:
        emit({"removed": gone})
        return
    typer.echo(f"removed {', '.join(gone)}")
