"""A plain (non-editable) install finds its SQL: query/sql/ ships inside the package."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_plain_install_answers_longest_and_summary(data: Path, tmp_path: Path) -> None:
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    site = subprocess.check_output(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()
    # The dependencies, pip included, come from this environment (a path, not its
    # .pth files: the editable install of the working tree stays out). The build
    # itself runs isolated: pip fetches the setuptools pyproject.toml asks for.
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", str(ROOT)],
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
    out = subprocess.run(
        [python, "-c", script, str(data)], cwd=tmp_path, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    where, longest, summary = out.stdout.splitlines()
    assert where.startswith(site)  # the installed copy, not the working tree
    assert longest == "['6 4 7 8 5 0 3 2 1', '8 6 7 2 5 4 3 0 1']"
    assert summary == "('2x5', 1814400, 55, 2, None)"  # None: complete (not --max-depth)
