"""Starting Spark for a build: Java, pyspark, a master that answers, a data folder
the workers see. Each failure is one line (SparkUnavailable) before anything is built.

One session a process: a second build (or the test suite) reuses the active one.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import secrets
import socket
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from pipeline.engine.kernel_cache import kernel_digest
from pipeline.errors import PuzzleDBError
from pipeline.executors.spark import jvm_stderr
from pipeline.executors.spark.java import java_home
from pipeline.executors.spark.tasks import probe
from pipeline.storage import files

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: The JVM's start, the build's longest silence, said to whoever runs it (the CLI prints it).
log = logging.getLogger(__name__)

#: Seconds to wait for a spark:// or k8s:// master to accept a connection.
CONNECT_SECONDS = 5.0
#: Spark's local masters (SparkMasterRegex), thread and worker counts from 1.
_LOCAL = re.compile(r"local(\[(\*|[1-9][0-9]*)(\s*,\s*[1-9][0-9]*)?\])?")
_LOCAL_CLUSTER = re.compile(r"local-cluster\[\s*[1-9][0-9]*(\s*,\s*[1-9][0-9]*){2}\s*\]")
#: Where each node of a cluster keeps its compiled kernels (a path every node can
#: write, named for the kernels' sources: kernel_cache.py).
NUMBA_CACHE = os.path.join(tempfile.gettempdir(), f"puzzledb-numba-{kernel_digest()}")


class SparkUnavailable(PuzzleDBError):
    """Spark cannot run the build: no pyspark, no master, no shared data folder."""


def session(master: str = "local[*]", conf: dict[str, str] | None = None) -> SparkSession:
    """The process's SparkSession on ``master`` (the active one when there is one)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable(
            "--executor spark needs pyspark: pip install 'puzzledb[spark]' "
            "(pyspark and a Java runtime, about 490 MB to download)"
        ) from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if "PYSPARK_GATEWAY_PORT" in os.environ:  # under spark-submit: its master and settings
        return _started(SparkSession.builder.appName("puzzledb"), conf or {}, "spark-submit's")
    check_master(master)
    os.environ["JAVA_HOME"] = java_home()
    # The JVM's start is the build's longest silence (measured: docs/CLUSTER.md).
    log.info(f"starting Spark ({master}): about 30 s the first time")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # local-cluster's workers would otherwise keep their logs inside pyspark's package.
    os.environ.setdefault("SPARK_WORKER_DIR", os.path.join(tempfile.gettempdir(), "puzzledb-spark"))
    quiet = f"-Dlog4j2.configurationFile={_log_config()}"
    settings = {
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.extraJavaOptions": quiet,
        "spark.executor.extraJavaOptions": quiet,
        "spark.executorEnv.PYSPARK_PYTHON": os.environ["PYSPARK_PYTHON"],
        # The shuffle moves byte arrays: Kryo writes them quicker than Java's
        # serializer (measured: docs/CLUSTER.md).
        "spark.serializer": "org.apache.spark.serializer.KryoSerializer",
        **(conf or {}),
    }
    return _started(SparkSession.builder.master(master).appName("puzzledb"), settings, master)


def _started(builder: SparkSession.Builder, settings: dict[str, str], master: str) -> SparkSession:
    """The session of ``builder`` with ``settings``; numba's cache on every executor."""
    local = master.startswith("local")  # workers of local mode share the driver's cache
    cache = os.environ.get("NUMBA_CACHE_DIR", NUMBA_CACHE) if local else NUMBA_CACHE
    for k, v in {"spark.executorEnv.NUMBA_CACHE_DIR": cache, **settings}.items():
        builder = builder.config(k, v)
    try:
        with jvm_stderr.held():
            spark = builder.getOrCreate()
    except Exception as e:  # py4j and JVM errors have no common base
        raise SparkUnavailable(f"Spark did not start on master {master}: {_first(e)}") from None
    spark.sparkContext.setLogLevel("ERROR")
    # Stopped before Python exits: a local-cluster's workers would otherwise log
    # errors while the JVM shuts down under them.
    atexit.register(_stop, spark)
    return spark


def _stop(spark: SparkSession) -> None:
    with contextlib.suppress(Exception):
        spark.stop()


_LOG4J = """# puzzledb: Spark's own log, errors only (a build prints its own progress)
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = spark: %p %c{1}: %m%n
# pyspark starts Spark as a shell, which prints "Setting default log level" (two
# lines) unless the logger that starts it has a level of its own equal to the root's.
logger.spark.name = org.apache.spark
logger.spark.level = error
# A one-way RPC message that reaches the driver after it stopped (a refused build's
# stop racing the master's last message) is logged here as an error with a page of
# stack: the build's own line has said what went wrong.
logger.rpc.name = org.apache.spark.network.server.TransportRequestHandler
logger.rpc.level = off
"""


def _log_config() -> Path:
    """A log4j2 configuration that keeps Spark's log to errors (written once)."""
    path = Path(tempfile.gettempdir()) / f"puzzledb-log4j2-{os.getuid()}.properties"
    if not path.exists() or path.read_text() != _LOG4J:
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(_LOG4J)
        os.replace(tmp, path)
    return path


def check_master(master: str) -> None:
    """A master URL Spark takes, checked before its JVM starts (Spark's own refusal
    is a page of Java stack); a standalone or Kubernetes master must accept a
    connection within seconds (Spark itself would retry for minutes)."""
    if not master.startswith(("spark://", "k8s://")):
        _check_form(master)
        return
    url = urlparse(master.removeprefix("k8s://"))
    hosts = url.netloc.split(",") if master.startswith("spark://") else [url.netloc]
    for host in hosts:
        name, _, port = host.rpartition(":")
        try:
            with socket.create_connection((name, int(port)), CONNECT_SECONDS):
                return
        except (OSError, ValueError):
            continue
    raise SparkUnavailable(
        f"the Spark master {master} does not answer (waited {CONNECT_SECONDS:g} s): "
        "start it, or give --master a running one (default local[*])"
    )


def _check_form(master: str) -> None:
    if master == "yarn":
        dirs = [os.environ.get(k, "") for k in ("HADOOP_CONF_DIR", "YARN_CONF_DIR")]
        if not any(d and os.path.isdir(d) for d in dirs):
            raise SparkUnavailable(
                "--master yarn needs HADOOP_CONF_DIR or YARN_CONF_DIR set to a folder: "
                "the cluster's Hadoop configuration, which says where YARN is"
            )
    elif not (_LOCAL.fullmatch(master) or _LOCAL_CLUSTER.fullmatch(master)):
        raise SparkUnavailable(
            f"--master {master!r} is not a Spark master: give local, local[N], local[*], "
            "local[N,F], local-cluster[N,C,MB], spark://HOST:PORT, k8s://URL or yarn "
            "(N, C, F, MB from 1)"
        )


def check_shared(spark: SparkSession, folder: Path) -> None:
    """Every executor must see ``folder`` as this driver does (a shared POSIX path):
    a file written here is read back by a task on each executor."""
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(8)
    path = folder / f".spark-probe-{os.getpid()}"
    files.replace(path, token, sync=False)  # never through a link planted in the folder
    try:
        sc = spark.sparkContext
        n = max(2, sc.defaultParallelism)
        seen = sc.parallelize(range(n), n).map(lambda _: probe(str(path), token)).collect()
    except Exception as e:
        raise SparkUnavailable(f"Spark could not run a task: {_first(e)}") from None
    finally:
        path.unlink(missing_ok=True)
    bad = [s for s in seen if s is not None]
    if bad:
        raise SparkUnavailable(
            f"the Spark workers cannot read the data folder {folder} ({bad[0]}): give --data "
            "a path every node mounts the same (NFS or another shared POSIX filesystem)"
        )


def _first(e: BaseException) -> str:
    """The first line of an error; of a JVM one, its Java exception's (py4j's own
    says only which call failed)."""
    lines = [ln.strip() for ln in str(getattr(e, "java_exception", e)).splitlines() if ln.strip()]
    return lines[0][:300] if lines else type(e).__name__
