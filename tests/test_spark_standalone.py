"""A `--data` the Spark workers cannot see: one line, exit 1, nothing built touched.

In local mode every worker shares the driver's disk, so the refusal is tested on
a real standalone cluster (a master and a worker started from the pyspark
install) whose driver runs in a mount namespace of its own (``unshare -m``, or
``unshare -rm`` for a user without CAP_SYS_ADMIN), where another folder is
bind-mounted over its ``--data``: the workers look at the same path and find
the folder underneath, without the driver's files. Skipped, with the reason,
where no private mount namespace can be made.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

#: Seconds the master may take to listen.
START_SECONDS = 120


def _unshare(tmp: Path) -> list[str]:
    """The command that runs a program in a private mount namespace here (or skip)."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare (util-linux): cannot hide the driver's files from the workers")
    why = ""
    (tmp / "probe").mkdir()
    for cmd in (["unshare", "-m"], ["unshare", "-rm"]):
        p = subprocess.run(
            [*cmd, "mount", "-t", "tmpfs", "none", str(tmp / "probe")],
            capture_output=True,
            text=True,
        )
        if p.returncode == 0:
            return cmd
        why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    pytest.skip(f"no private mount namespace for this user ({why})")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _daemon(cls: str, args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    import pyspark

    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"
    with open(log, "w") as out:
        return subprocess.Popen(
            [str(spark_class), cls, *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # the worker's executors too: stopped as a group
        )


@contextlib.contextmanager
def _standalone(tmp: Path) -> Iterator[str]:
    """A standalone master and one worker (1 core, 2 GB) on this machine; its URL."""
    from pipeline.executors.spark.java import java_home

    tmp.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    env = {
        **os.environ,
        "JAVA_HOME": java_home(),
        "SPARK_LOG_DIR": str(tmp / "logs"),
        "SPARK_WORKER_DIR": str(tmp / "work"),
    }
    master = _daemon(
        "org.apache.spark.deploy.master.Master",
        ["--host", "127.0.0.1", "--port", str(port), "--webui-port", "0"],
        tmp / "master.log",
        env,
    )
    started = [master]
    worker = [url, "--host", "127.0.0.1", "--cores", "1", "--memory", "2g", "--webui-port", "0"]
    try:
        started.append(
            _daemon(
                "org.apache.spark.deploy.worker.Worker",
                [*worker, "--work-dir", str(tmp / "work")],
                tmp / "worker.log",
                env,
            )
        )
        _wait_port(port, master)
        yield url
    finally:
        for p in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=60)


def _wait_port(port: int, master: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline and master.poll() is None:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.2)
    raise AssertionError(f"the standalone master did not listen on {port}")


def _snapshot(folder: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
    )


def test_workers_that_cannot_see_data_are_one_line(data: Path, tmp_path: Path) -> None:
    unshare = _unshare(tmp_path)
    seen = tmp_path / "data"  # --data: what the workers see at that path (nothing)
    hidden = tmp_path / "driver-data"  # what the driver sees there: a built table
    seen.mkdir()
    shutil.copytree(data / "hex6", hidden / "hex6")
    before = _snapshot(hidden / "hex6")
    mount = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
    with _standalone(tmp_path / "cluster") as url:
        build = ["build", "hex6", "--force", "--engine", "spark", "--master", url]
        cmd = [*unshare, "sh", "-c", mount, "sh", str(hidden), str(seen), sys.executable]
        p = subprocess.run(
            [*cmd, "-m", "pipeline.cli", *build, "--data", str(seen)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    starts = "puzzledb: starting Spark ("  # the announcement before the JVM: progress
    lines = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith(starts)]
    assert p.returncode == 1, p.stderr
    assert len(lines) == 1, p.stderr
    assert f"cannot read the data folder {seen}/.staging" in lines[0], lines[0]
    assert "give --data a path every node mounts the same" in lines[0]
    assert _snapshot(hidden / "hex6") == before  # the built table untouched
    assert not list((hidden / ".staging").iterdir())  # the probe file removed
    assert not list(seen.iterdir())  # and nothing written where the workers look
