"""Running a DuckDB query so that Ctrl-C stops it.

While DuckDB runs a query the calling thread sits in C code: Python's SIGINT
handler (KeyboardInterrupt, or one of our own) only runs when it returns, and
a long join returns after minutes. So the query runs in a worker thread; the
calling thread waits, takes the KeyboardInterrupt at once, interrupts the
connection and gives the query a moment to stop before passing the interrupt
on. A query that ignores the interrupt is left to its (daemon) thread: the CLI
then ends the process (cli.query), a notebook simply goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import duckdb

T = TypeVar("T")

#: Seconds an interrupted query is given to stop before the interrupt is passed on.
GRACE = 2.0
#: How often the waiting thread wakes (a wait with a timeout is what lets
#: KeyboardInterrupt through at once).
TICK = 0.2


def run(connection: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
    """``work()`` (a query on ``connection``) in a worker thread; its result or its error.

    Ctrl-C interrupts ``connection`` and raises KeyboardInterrupt here, at most
    GRACE seconds later."""
    done = threading.Event()
    values: list[T] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            values.append(work())
        except BaseException as e:  # handed to the caller's thread
            errors.append(e)
        finally:
            done.set()

    threading.Thread(target=worker, name="puzzledb-query", daemon=True).start()
    try:
        while not done.wait(TICK):
            pass
    except KeyboardInterrupt:
        connection.interrupt()
        done.wait(GRACE)
        raise
    if errors:
        raise errors[0]
    return values[0]
