"""The commands an error message tells the user to run, as they must type them.

A hint names the data folder (``--data D``) whenever it is not the one the
command would use anyway (``data/`` or $PUZZLEDB_DATA), so that copying it
works on a table built elsewhere.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

#: The environment variable that names the data folder.
DATA_ENV = "PUZZLEDB_DATA"


def default_data() -> Path:
    """The data folder when none is given: $PUZZLEDB_DATA, else ``data``."""
    return Path(os.environ.get(DATA_ENV) or "data")


def where_data() -> str:
    """Where the data folder is looked for, for a line about a missing one."""
    return (
        f"the data folder is `data/` in the current folder unless --data DIR or ${DATA_ENV} "
        "names another: give the folder `make build-db` built"
    )


def command(args: str, data: Path | None = None) -> str:
    """```puzzledb ARGS``` in backquotes, with ``--data`` when ``data`` is not the default."""
    extra = ""
    if data is not None and _where(data) != _where(default_data()):
        extra = f" --data {shlex.quote(str(data))}"
    return f"`puzzledb {args}{extra}`"


def build(name: str, data: Path | None = None, force: bool = False) -> str:
    """The command that builds (``force``: rebuilds) table ``name`` in ``data``."""
    return command(f"build {name}" + (" --force" if force else ""), data)


def _where(path: Path) -> str:
    return os.path.abspath(path)
