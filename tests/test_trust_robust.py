"""A hostile data folder gives one line and exit 1, never a hang, a traceback or a crash:
FIFOs and /dev/zero as its small files, a spec nested 100,000 deep; Ctrl-C on a build."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import pipeline
from pipeline.solvers import ida_c, optimal
from pipeline.storage import files

#: Long enough for a CLI run on a busy machine; a hang shows as a timeout.
TIMEOUT = 60
DEEP = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
PLUS = Path(__file__).resolve().parent.parent / "examples" / "specs" / "plus.toml"


@pytest.fixture
def copy(copy_of: Callable[..., Path]) -> Path:
    """A data folder with copies of 3x3 and 2x4 (and a cache of checked files of its own)."""
    return copy_of("3x3", "2x4")


def cli(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    """The CLI as a subprocess; a hang fails the test instead of stalling the suite."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "pipeline.cli", *args, "--data", str(data)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"puzzledb {' '.join(args)} hung for {TIMEOUT} s")


#: The line Spark's start announces before the JVM starts (progress, not an error).
SPARK_STARTS = "puzzledb: starting Spark ("


def one_line(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 1, r.stdout + r.stderr
    lines = [ln for ln in r.stderr.strip().splitlines() if not ln.startswith(SPARK_STARTS)]
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _zero(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


# The module itself: only a regular file, never more than its limit.


def test_files_read_a_regular_file_and_refuse_the_rest(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text('{"a": 1}')
    assert files.read_json(f, 100) == {"a": 1}
    link = tmp_path / "link.json"
    link.symlink_to(f)
    assert files.read_bytes(link, 100, follow=True) == b'{"a": 1}'
    cases = {
        link: "a symbolic link, not followed",
        tmp_path: "a folder, not a regular file",
        f: "larger than 7 bytes",
    }
    _fifo(tmp_path / "fifo")
    cases[tmp_path / "fifo"] = "a FIFO, not a regular file"
    zero = tmp_path / "zero"
    _zero(zero)
    cases[zero] = "a symbolic link, not followed"
    for path, why in cases.items():
        with pytest.raises(files.NotReadable, match=why):
            files.read_bytes(path, 7)
    with pytest.raises(files.NotReadable, match="a character device, not a regular file"):
        files.read_bytes(zero, 7, follow=True)  # /dev/zero itself: not read at all


def test_json_nested_too_deep_is_a_value_error(tmp_path: Path) -> None:
    f = tmp_path / "deep.json"
    f.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        files.read_json(f, files.MANIFEST_LIMIT)


# Manifests.


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize(
    "args", [("longest", "3x3"), ("histogram", "3x3"), ("solve", "3x3", "8 6 7 2 5 4 3 0 1")]
)
def test_a_fifo_or_dev_zero_as_manifest_is_one_line(copy: Path, make, args) -> None:
    manifest = copy / "3x3" / "_manifest.json"
    make(manifest)
    why = "a FIFO, not a regular file" if make is _fifo else "a symbolic link, not followed"
    one_line(cli(*args, data=copy), f"{manifest} cannot be read ({why})", "build 3x3 --force")


@pytest.mark.parametrize("command", ["list", "report", "query"])
def test_a_fifo_manifest_is_taken_as_a_damaged_one(copy: Path, command: str) -> None:
    # list, report and query answer with a damaged table as they do (not built,
    # left out, a warning): a FIFO is one more damaged manifest, not a hang.
    args = [command, *(['SELECT count(*) AS n FROM "2x4"'] if command == "query" else [])]
    manifest = copy / "3x3" / "_manifest.json"
    manifest.write_text("{garbage")
    damaged = cli(*args, data=copy)
    _fifo(manifest)
    r = cli(*args, data=copy)
    assert (r.returncode, r.stdout) == (damaged.returncode, damaged.stdout)
    assert "Traceback" not in r.stderr
    if command == "list":
        rows = {line.split()[0]: line.split()[2] for line in r.stdout.splitlines()[1:]}
        assert (rows["3x3"], rows["2x4"]) == ("damaged", "yes")
    if command == "query":
        assert "20160" in r.stdout


def test_a_manifest_over_the_limit_is_not_read(copy: Path) -> None:
    manifest = copy / "3x3" / "_manifest.json"
    with open(manifest, "r+b") as f:
        f.truncate(files.MANIFEST_LIMIT + 1)  # sparse: no disk used
    one_line(cli("longest", "3x3", data=copy), "larger than 67,108,864 bytes")


# Specs kept in the data folder, and a spec given on the command line.


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize("args", [("list",), ("longest", "plus"), ("build", "--spec", str(PLUS))])
def test_a_fifo_or_dev_zero_as_kept_spec_is_one_line(copy: Path, make, args) -> None:
    kept = copy / "specs" / "plus.toml"
    kept.parent.mkdir()
    make(kept)
    why = "a FIFO, not a regular file" if make is _fifo else "a symbolic link, not followed"
    r = cli(*args, data=copy)
    if args == ("list",):  # the others listed, this one left out and said so (issue #44)
        assert r.returncode == 0 and "3x3 " in r.stdout, r.stderr
        assert f"warning: specs/plus.toml left out of the specs: {kept}: cannot read" in r.stderr
        assert why in r.stderr
        return
    one_line(r, f"{kept}: cannot read the spec: {why}")


def test_a_spec_nested_100000_deep_is_one_line(copy: Path, tmp_path: Path) -> None:
    spec = tmp_path / "deep.toml"
    spec.write_text(DEEP)
    one_line(cli("build", "--spec", str(spec), data=copy), f"{spec}: not valid TOML: nested")
    assert not (copy / "specs").exists()
    kept = copy / "specs" / "deep.toml"
    kept.parent.mkdir()
    kept.write_text(DEEP)
    r = cli("list", data=copy)  # listed without it, and said so (issue #44)
    assert r.returncode == 0 and f"{kept}: not valid TOML: nested too deeply" in r.stderr


def test_a_spec_over_the_limit_is_not_read(copy: Path, tmp_path: Path) -> None:
    spec = tmp_path / "big.toml"
    spec.write_text(PLUS.read_text() + "#" * files.SPEC_LIMIT)
    one_line(cli("build", "--spec", str(spec), data=copy), "larger than 1,048,576 bytes")


# A build's staging area.


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
def test_a_fifo_progress_file_is_a_build_started_afresh(copy: Path, make) -> None:
    staging = copy / ".staging" / "3x3"
    staging.mkdir(parents=True)
    make(staging / "progress.json")
    r = cli("build", "3x3", "--force", data=copy)
    assert r.returncode == 0, r.stderr
    assert "3x3: 181,440 positions, max depth 31 (2 there)" in r.stderr
    assert not staging.exists()


@pytest.mark.parametrize(
    "make",
    [_fifo, _zero, lambda p: p.write_text("[" * 100_000 + "]" * 100_000)],
    ids=["fifo", "dev-zero", "deep"],
)
def test_a_hostile_progress_file_records_no_root(copy: Path, make) -> None:
    # A typed root's name is looked up in its manifest, else a build in progress.
    staging = copy / ".staging" / "3x3~1b2c3d4e"
    staging.mkdir(parents=True)
    make(staging / "progress.json")
    one_line(cli("longest", "3x3~1b2c3d4e", data=copy), "unknown puzzle '3x3~1b2c3d4e'")


# Ctrl-C.


def test_ctrl_c_on_build_says_how_to_resume(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    env = dict(os.environ, PUZZLEDB_CACHE=str(tmp_path / "cache"))
    cmd = [sys.executable, "-m", "pipeline.cli", "build", "pocket", "--data", str(folder)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    progress = folder / ".staging" / "pocket" / "progress.json"
    start = time.monotonic()
    while not progress.exists() and p.poll() is None and time.monotonic() - start < TIMEOUT:
        time.sleep(0.05)
    time.sleep(0.3)  # into its first levels (the whole build takes 5 s or more)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=TIMEOUT)
    assert (p.returncode, out, err) == (
        130,
        "",
        "puzzledb: interrupted (rerun the same build to resume)\n",
    )
    assert progress.is_file() and not (folder / "pocket").exists()


# The C kernel in the user's cache.


@pytest.fixture(scope="module")
def pdb3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with the 3x3's pattern databases (what solve --method optimal reads)."""
    folder = tmp_path_factory.mktemp("pdb3")
    pipeline.open(folder).build([p.name for p in optimal.patterns("3x3")])
    return folder


def test_a_truncated_c_kernel_is_built_again(
    pdb3: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Loading a library cut short killed the solve with SIGBUS (exit 135; -7 here).
    monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(ida_c.ENV, raising=False)
    folder = pdb3
    install = [sys.executable, "-m", "pipeline.solvers.ida_c"]
    assert subprocess.run(install, capture_output=True).returncode == 0
    (so,) = (tmp_path / "cache").glob("ida-*.so")
    whole = so.read_bytes()
    record = {"bytes": len(whole), "sha256": hashlib.sha256(whole).hexdigest()}
    assert json.loads(so.with_suffix(".json").read_text()) == record

    so.write_bytes(whole[: len(whole) // 2])
    solve = ["solve", "3x3", "6 4 7 8 5 0 3 2 1", "--method", "optimal", "--json"]
    r = cli(*solve, data=folder)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["moves"] == 31
    assert so.read_bytes() == whole

    so.write_bytes(whole[: len(whole) // 2])  # the install step sees it too
    r = subprocess.run(install, capture_output=True, text=True)
    assert r.stdout == f"IDA* kernel: {so}\n"
    assert so.read_bytes() == whole
    assert json.loads(so.with_suffix(".json").read_text()) == record


@pytest.mark.parametrize("cache", [".cache/3x3-pdb.npy", "3x3-pdb-4a/_pdb.npy"])
@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
def test_a_fifo_or_dev_zero_as_pattern_cache_is_derived_again(
    pdb3: Path, tmp_path: Path, cache: str, make
) -> None:
    folder = tmp_path / "data"
    shutil.copytree(pdb3, folder)
    solve = ["solve", "3x3", "6 4 7 8 5 0 3 2 1", "--method", "optimal", "--json"]
    assert json.loads(cli(*solve, data=folder).stdout)["moves"] == 31  # the caches made
    make(folder / cache)
    if cache.endswith("_pdb.npy"):  # read only when the joined arrays are made again
        (folder / ".cache" / "3x3-pdb.npy").unlink()
    r = cli(*solve, data=folder)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["moves"] == 31
    assert (folder / cache).is_file() and not (folder / cache).is_symlink()


# --engine spark: a master Spark would refuse is refused before its JVM starts.


@pytest.mark.parametrize(
    "master, why",
    [
        ("garbage", "--master 'garbage' is not a Spark master"),
        ("local[0]", "--master 'local[0]' is not a Spark master"),
        ("yarn", "--master yarn needs HADOOP_CONF_DIR or YARN_CONF_DIR"),
    ],
)
def test_a_bad_spark_master_is_one_line_before_java(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, master: str, why: str
) -> None:
    pytest.importorskip("pyspark")
    # No Java here: the master is refused before Java is even looked for.
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nojava"))
    for name in ("HADOOP_CONF_DIR", "YARN_CONF_DIR"):
        monkeypatch.delenv(name, raising=False)
    r = cli("build", "2x3", "--engine", "spark", "--master", master, data=tmp_path / "data")
    one_line(r, why)
    assert not (tmp_path / "data" / "2x3").exists()


@pytest.mark.spark
def test_a_failed_spark_start_shows_no_java_stack(tmp_path: Path) -> None:
    # Spark refuses a worker smaller than an executor (1024 MiB) once its JVM runs:
    # that JVM's stack trace (16 lines) is dropped, its first line kept.
    pytest.importorskip("pyspark")
    master = "local-cluster[1,1,512]"
    r = cli("build", "2x3", "--engine", "spark", "--master", master, data=tmp_path / "data")
    one_line(r, f"Spark did not start on master {master}", "512 MiB/worker")
