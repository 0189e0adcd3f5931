"""Where numba caches the compiled kernels: a folder named for their sources.

numba checks a cached kernel against the file it is defined in only, not the
files of the kernels it inlines: after a change to an engine kernel (say
``packed.resolve_with``) a puzzle's cached resolver would run the old code,
and the old code may write past buffers the new engine sizes differently.
So the cache folder is named for a hash of every source file that defines
kernels: any change to one compiles them all afresh.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path

#: The folder the versioned caches go under (one subfolder per kernel version).
ROOT = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "puzzledb"


#: A module that imports numba at its top level defines kernels (not this one).
_IMPORTS_NUMBA = re.compile(rb"^(from numba import|import numba)", re.MULTILINE)


def kernel_digest(package: Path = Path(__file__).parents[1]) -> str:
    """A short hash of the sources of every module that defines numba kernels."""
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        text = path.read_bytes()
        if _IMPORTS_NUMBA.search(text):
            h.update(str(path.relative_to(package)).encode() + b"\0" + text)
    return h.hexdigest()[:16]


def use_versioned_cache() -> None:
    """Point numba's cache at this version's folder (a folder the user set is kept;
    the temporary folder when the home folder cannot be written)."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    name = f"numba-{kernel_digest()}"
    for base in (ROOT, Path(tempfile.gettempdir()) / "puzzledb"):
        try:
            (base / name).mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(base / name, os.W_OK):
            break
    else:
        return  # nowhere to write: numba's own default
    folder = str(base / name)
    os.environ["NUMBA_CACHE_DIR"] = folder  # read when numba is imported
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us: set its configuration too
        numba.config.CACHE_DIR = folder
