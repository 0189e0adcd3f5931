"""The explorer's door (pipeline/serve/guard.py) against clients that hold its connections:
real sockets against a real uvicorn server. The slow bodies of the hostile issue go to
`puzzledb serve` itself, at its own limits; the other ways of holding a connection go
to a server of the door made here with short limits, over the real explorer or, for
a large answer, a small app of its own.

A connection the server has dropped reads as the end of the stream or a reset, after
whatever answer it was sent (:func:`closed`).
"""

from __future__ import annotations

import json
import resource
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

import pipeline
from pipeline.serve import guard
from pipeline.serve.app import create_app
from tests.test_serve import START, position, serving

#: The door's limits in the tests of a server made here.
SHORT = guard.Limits(header_seconds=1.0, send_seconds=1.0, idle_seconds=1, connections=64)


def drained(s: socket.socket, within: float) -> bytes | None:
    """What the server sent on ``s`` before it closed it, if it does within ``within``
    seconds (None: still open)."""
    s.settimeout(within)
    got = b""
    try:
        while chunk := s.recv(1 << 16):
            got += chunk
    except TimeoutError:
        return None
    except OSError:  # reset: dropped
        pass
    return got


def closed(s: socket.socket, within: float) -> bool:
    """Whether the server closes ``s`` within ``within`` seconds (its answer read first)."""
    return drained(s, within) is not None


def request(path: str = "/api/tables", extra: str = "", port: int = 0) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}\r\n".encode()


@contextmanager
def more_files(wanted: int) -> Iterator[None]:
    """The soft limit of open files raised to ``wanted`` for this process and the server
    it starts (skipped where the hard limit is lower)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"{wanted} open files wanted, the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_slow_request_bodies_lock_no_one_out(data: Path) -> None:
    """The hostile issue's attack on `puzzledb serve`: more connections than its cap send
    whole headers with a large Content-Length, then a body byte every 2 s. Each is
    refused at once (413, closed, its body never read), and a normal request during
    the attack gets its answer. (It was: every normal request failed while they lasted.)"""
    n = guard.Limits().connections + 8
    with more_files(3 * n), serving(data) as base:
        port = int(base.rsplit(":", 1)[1])
        head = request(extra="Content-Length: 1000000\r\n", port=port)
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
        for s in slow:
            s.sendall(head)
        depths = []
        for _ in range(3):  # 6 s of the attack
            time.sleep(2)
            for s in slow:
                with suppress(OSError):  # dropped
                    s.send(b"x")
            depths.append(position(base, "3x3", START)["depth"])
        assert depths == [31, 31, 31]
        got = [drained(s, 1) for s in slow]
        for s in slow:
            s.close()
    assert None not in got  # each closed
    # 413 (the body refused), 503 (uvicorn's, while all the connections were open), or
    # reset before the answer was read: none answered, none kept
    statuses = {a.split(b" ", 2)[1] if a else b"" for a in got if a is not None}
    assert statuses <= {b"413", b"503", b""} and statuses - {b""}


@contextmanager
def door(app: Any, limits: guard.Limits = SHORT) -> Iterator[int]:
    """A server of ``app`` behind the door on a free port of 127.0.0.1, in a thread."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = guard.server(app, "127.0.0.1", port, limits)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def explorer(data: Path) -> Iterator[int]:
    """The explorer over the default tables behind the door with :data:`SHORT` limits."""
    with door(create_app(pipeline.open(data))) as port:
        yield port


def get(port: int, path: str = "/api/tables", host: str = "") -> tuple[int, bytes]:
    """Status and body of a GET on a fresh connection (Connection: close)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        head = f"GET {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n"
        s.sendall(f"{head}Connection: close\r\n\r\n".encode())
        got = b""
        while chunk := s.recv(1 << 16):
            got += chunk
    status, _, rest = got.partition(b"\r\n\r\n")
    return int(status.split()[1]), rest


def test_slow_headers_and_silent_clients_are_dropped(explorer: int) -> None:
    """A connection that sends nothing, or a request's headers a line a second, is closed
    within header_seconds of its opening; a normal request meanwhile gets its answer."""
    port = explorer
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
    trickle = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
    for s in trickle:
        s.sendall(b"GET /api/tables HTTP/1.1\r\n")
    opened = time.monotonic()
    for _ in range(3):
        time.sleep(0.5)
        for s in trickle:
            with suppress(OSError):
                s.sendall(b"X-Slow: 1\r\n")
        status, body = get(port, "/api/position/3x3?s=" + START.replace(" ", "%20"))
        assert status == 200 and json.loads(body)["depth"] == 31
    left = SHORT.header_seconds + 1 - (time.monotonic() - opened)
    assert all(closed(s, max(left, 0.1)) for s in silent + trickle)


def test_an_idle_connection_and_a_slow_next_request_are_dropped(explorer: int) -> None:
    """After an answer: an idle connection is closed by uvicorn's keep-alive timeout, one
    that starts its next request and never ends it by the door."""
    port = explorer
    idle, slow = (socket.create_connection(("127.0.0.1", port)) for _ in range(2))
    for s in (idle, slow):
        s.sendall(request(port=port))
        assert s.recv(1 << 16).startswith(b"HTTP/1.1 200")
    slow.sendall(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    assert closed(idle, SHORT.idle_seconds + 1)
    assert closed(slow, SHORT.header_seconds + 1)


def test_a_client_that_does_not_read_its_answer_is_dropped() -> None:
    """A client that asks for a large answer and reads none of it loses its connection
    send_seconds after the server's buffer filled (it held it for ever)."""
    big = b"x" * (64 << 20)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = [(b"content-length", b"%d" % len(big))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": big})

    with door(app) as port, socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port))
        s.sendall(request(port=port))
        time.sleep(SHORT.send_seconds + 1.5)
        got = drained(s, 10)  # what the kernel held, then the end: the rest thrown away
    assert got is not None and got.startswith(b"HTTP/1.1 200")
    assert len(got) < len(big) // 4


def test_a_request_with_a_body_is_refused_at_once(explorer: int) -> None:
    port = explorer
    for extra in ("Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n"):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(request(extra=extra, port=port))  # and no body
            answer = drained(s, 1)  # closed at once
            assert answer is not None and answer.startswith(b"HTTP/1.1 413"), answer
            assert answer.endswith(b"\r\n\r\n" + guard.NO_BODY + b"\n")
    assert get(port, "/api/tables")[0] == 200  # a GET without one is answered


def test_the_host_is_this_machine_or_the_host_served(explorer: int) -> None:
    port = explorer
    for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.2", "[::2]"):
        status, body = get(port, host=host)
        assert (status, body) == (400, guard.HOST_REFUSED + b"\n"), host
    for host in (f"127.0.0.1:{port}", "localhost", f"[::1]:{port}", "LOCALHOST"):
        status, body = get(port, host=host)
        assert status == 200 and b'"3x3"' in body, host


def test_past_the_cap_a_new_connection_is_closed_at_once(explorer: int) -> None:
    port = explorer
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(SHORT.connections)]
    time.sleep(0.2)
    extra = socket.create_connection(("127.0.0.1", port))
    assert closed(extra, 0.5)  # no slot: closed before it sent anything
    assert all(closed(s, SHORT.header_seconds + 1) for s in held)
    assert get(port)[0] == 200  # the slots free again
    for s in [*held, extra]:
        s.close()
