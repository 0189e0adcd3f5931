"""A plain (non-editable) install finds its SQL: query/sql/ ships inside the package;
and the wheel holds the package only (no benchmark, no helper program, no test)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


#: What a checkout holds at its top that is not source: build output, environments.
NOT_SOURCE = {".git", ".venv", "build", "data", "bench-results"}


def _not_source(folder: str, names: list[str]) -> set[str]:
    """The names ``copytree`` leaves out: the top's build output, caches anywhere
    (``pipeline/build/`` is source: only the top's ``build/`` is output)."""
    top = NOT_SOURCE if Path(folder) == ROOT else set()
    return {
        n for n in names if n in top or n == "__pycache__" or n.endswith((".egg-info", "_cache"))
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip wheel`` of a copy of the working tree's sources (a few seconds): not of
    the tree itself, whose ``build/lib`` from an older build setuptools would reuse.
    The build runs isolated: pip fetches the setuptools pyproject.toml asks for."""
    out = tmp_path_factory.mktemp("wheel")
    src = tmp_path_factory.mktemp("src") / "puzzledb"
    shutil.copytree(ROOT, src, ignore=_not_source, symlinks=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        check=True,
        cwd=out,
        capture_output=True,
    )
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_holds_the_package_only(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"pipeline"}  # no benchmarks/, tools/ nor tests/
    assert [n for n in names if "bench" in n or "korf" in n] == []
    assert "pipeline/query/sql/path.sql" in names


def test_a_plain_install_answers_longest_and_summary(
    data: Path, tmp_path: Path, wheel: Path
) -> None:
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    site = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()
    # The dependencies, pip included, come from this environment (a path, not its
    # .pth files: the editable install of the working tree stays out; pip is told
    # to ignore its dist-info, or it would take the wheel's version as installed).
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(wheel)],
        check=True,
        cwd=tmp_path,
        capture_output=True,
    )
    script = (
        "import pipeline, sys; db = pipeline.open(sys.argv[1]); "
        "print(pipeline.__file__); "
        "print(sorted(db.longest('3x3')['position'].to_list())); "
        "print(db.summary().filter(puzzle='2x5').row(0))"
    )
    # Without PYTHONPATH, which may point at the working tree (PYTHONPATH=$PWD pytest).
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [python, "-c", script, str(data)], cwd=tmp_path, capture_output=True, text=True, env=alone
    )
    assert out.returncode == 0, out.stderr
    where, longest, summary = out.stdout.splitlines()
    assert where.startswith(site)  # the installed copy, not the working tree
    assert longest == "['6 4 7 8 5 0 3 2 1', '8 6 7 2 5 4 3 0 1']"
    assert summary == "('2x5', 1814400, 55, 2, None)"  # None: complete (not --max-depth)
