"""Run one ``puzzledb`` command under a profile hook and count what it calls.

    python -m tests.profile_cli OUT.json solve 3x3 "8 6 7 2 5 4 3 0 1" --data DIR

Writes to OUT.json: ``across``, the calls from a function in one folder of the
package into a function in another (the package's top-level modules are the
folder ``pipeline`` itself), ``pairs``, those counted by (caller's folder,
callee's folder), and ``calls``, how many times each function of the package
and of tomllib ran, by ``module.qualname``. A separate process: no module
cache of a test worker counts or hides a call.
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pipeline

PACKAGE = Path(pipeline.__file__).resolve().parent


def folder(filename: str) -> str | None:
    """The package folder a source file is in (``pipeline`` for the top-level modules),
    or None outside the package."""
    path = Path(filename)
    if PACKAGE not in path.parents:
        return None
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else "pipeline"


def main(out: str, args: list[str]) -> None:
    from pipeline.cli import app

    pairs: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    where: dict[str, str | None] = {}

    def place(filename: str) -> str | None:
        if filename not in where:
            where[filename] = folder(filename)
        return where[filename]

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        name = f"{frame.f_globals.get('__name__')}.{code.co_qualname}"
        if name.startswith(("pipeline.", "tomllib.")):
            calls[name] += 1
        callee = place(code.co_filename)
        caller = place(frame.f_back.f_code.co_filename) if frame.f_back else None
        if callee is not None and caller is not None and caller != callee:
            pairs[f"{caller} -> {callee}"] += 1

    sys.argv = ["puzzledb", *args]
    sys.setprofile(hook)
    try:
        app.main()
    except SystemExit:
        pass
    finally:
        sys.setprofile(None)
        doc = {"across": sum(pairs.values()), "pairs": dict(pairs), "calls": dict(calls)}
        Path(out).write_text(json.dumps(doc))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
