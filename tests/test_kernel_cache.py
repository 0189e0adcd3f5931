"""The compiled kernels' cache is named for the kernels' sources (kernel_cache.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pipeline.engine.kernel_cache import ROOT, kernel_digest


def test_the_digest_follows_kernel_sources_only(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    kernel, other = tmp_path / "engine" / "core.py", tmp_path / "cli.py"
    kernel.write_text("from numba import njit\n@njit\ndef f(x):\n    return x\n")
    other.write_text("print('hello')\n")
    first = kernel_digest(tmp_path)
    other.write_text("print('hello, world')\n")
    assert kernel_digest(tmp_path) == first  # no kernel there: the cache stays
    kernel.write_text("from numba import njit\n@njit\ndef f(x):\n    return x + 1\n")
    assert kernel_digest(tmp_path) != first  # an inlined kernel changed: all compile anew


def test_importing_the_package_points_numba_at_this_versions_folder() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    code = "import pipeline, numba; print(numba.config.CACHE_DIR)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == str(ROOT / f"numba-{kernel_digest()}")
    env["NUMBA_CACHE_DIR"] = "/tmp/mine"  # the user's choice is kept
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "/tmp/mine"


def test_a_home_that_cannot_be_written_falls_back_to_the_temporary_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".cache").write_text("a file where the cache folder would go")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = str(home)
    code = "import pipeline, os; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith(f"puzzledb/numba-{kernel_digest()}")
    assert not out.stdout.startswith(str(home))
