"""The commands an error message tells the user to run, as they must type them.

A hint names the data folder (``--data D``) whenever it is not the one the
command would use anyway (``data/`` or $PUZZLEDB_DATA), so that copying it
works on a table built elsewhere.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from pipeline.words import size_of

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


#: Bytes a position of a table takes on disk, about (2x6 5.74, 3x4 5.39: docs/DATA.md).
BYTES_A_POSITION = 5


def not_built(name: str, data: Path, positions: int | None, patterns: str | None) -> str:
    """Why table ``name`` answers nothing and what to run: its build, or, when its
    ``positions`` would not fit the free disk, ``solve`` with its pattern tables (the
    group ``patterns``, None when it has none) and a build of its first levels."""
    if fits(data, positions):
        return f"{name} is not built yet: run {build(name, data)}"
    need, free = (positions or 0) * BYTES_A_POSITION, _free(data) or 0
    ways = [f"{command(f'build {name} --max-depth N', data)} builds its first levels"]
    if patterns is not None:
        ways.insert(
            0,
            f"{command(f'solve {name} POSITION', data)} finds an optimal line with its "
            f"pattern tables (built on first use, or by {build(patterns, data)})",
        )
    return (
        f"{name} is not built, nor can it be here: its {positions:,} positions would take about "
        f"{size_of(need)}, more than the {size_of(free)} free; " + ", and ".join(ways)
    )


def fits(data: Path, positions: int | None) -> bool:
    """Whether a table of ``positions`` (None: not known) would fit the free disk."""
    free = _free(data)
    return positions is None or free is None or positions * BYTES_A_POSITION <= free


def _free(data: Path) -> int | None:
    """The free bytes where ``data`` is (or would be made); None when unknown."""
    for p in (data, *Path(os.path.abspath(data)).parents):
        try:
            return shutil.disk_usage(p).free
        except OSError:
            continue
    return None
