"""The explorer's door: which Host it answers, and how long a client may hold a connection.

A page on another site can make a browser send requests to 127.0.0.1 under its
own name (DNS rebinding: ``attacker.example`` resolving to 127.0.0.1 after the
page loaded), and read the answers as its own: so a request whose Host is not
this machine's name (127.0.0.1, localhost, ::1) or the ``--host`` served gets
400 (Starlette's ``TrustedHostMiddleware``).

Every open connection holds one of the server's slots (a file descriptor; uvicorn
answers 503 once ``limit_concurrency`` of them are open), so none may be held by
a client that does not finish its request or read its answer:

- a request with a body (Content-Length above 0, or a Transfer-Encoding) is
  refused at once with 413, its connection closed, its body never read: every
  route is a GET, and uvicorn would wait for the body for ever;
- a connection has ``header_seconds`` to bring a whole request's headers to the
  explorer, from its opening and again from each answer (uvicorn has no such
  timeout: a client that sends nothing, or a byte at a time, would hold it for ever);
  an idle one after an answer is closed by uvicorn's own ``timeout_keep_alive``;
- a client that stops reading its answer (the write buffer full) has
  ``send_seconds`` to read again, or its connection is dropped;
- past ``connections`` open, a new one is closed at once (no descriptor held);
  at that many, uvicorn answers 503 (``limit_concurrency``);
- request headers are at most ``header_bytes`` (h11's limit; 400 past it).

uvicorn's own settings hold the keep-alive timeout, the 503 at the cap and the
headers' size. The rest is the door's, on public interfaces: :class:`Door`, an
ASGI app around the explorer (it sees each request's headers: the body refused,
the Host checked), and :class:`Connection`, an asyncio protocol around uvicorn's
HTTP protocol, given to uvicorn as its ``http`` (it sees a connection open and its
writes pause and resume: the cap and the timers).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import uvicorn
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import HTTP_PROTOCOLS
from uvicorn.importer import import_from_string

#: How long a client may take to send a request's headers (a browser: milliseconds).
HEADER_SECONDS = 5.0
#: The names of this machine a request may be addressed to (IPv6 in brackets, as in Host).
LOCAL = ("127.0.0.1", "localhost", "[::1]")

#: The answers of the door's refusals (one line each).
HOST_REFUSED = (
    b"this explorer answers requests to this machine only (127.0.0.1, localhost, ::1) "
    b"or the --host it serves: Host header refused"
)
NO_BODY = b"this explorer takes no request body (every page is a GET)"

Peer = tuple[str, int]


@dataclass(frozen=True)
class Limits:
    """How long and how much a client may hold; the tests pass smaller ones."""

    #: From a connection's opening, or its last answer, to a whole request's headers.
    header_seconds: float = HEADER_SECONDS
    #: How long a client may leave its answer unread once the write buffer is full.
    send_seconds: float = 10.0
    #: How long an idle connection is kept after an answer (uvicorn's keep-alive).
    idle_seconds: int = 5
    #: Open connections at most (a browser opens about six; the bench's load test 200).
    connections: int = 512
    #: The bytes of a request's line and headers at most (a position is 1000 characters).
    header_bytes: int = 16 * 1024


def server(app: ASGIApp, host: str, port: int, limits: Limits = Limits()) -> uvicorn.Server:
    """A uvicorn server of ``app`` on ``host``:``port`` behind the door."""
    door = Door(app, host)
    inner = import_from_string(HTTP_PROTOCOLS["h11"])  # h11's: header_bytes is its limit
    protocol = functools.partial(Connection, door, inner, limits)
    config = uvicorn.Config(
        door,
        host=host,
        port=port,
        log_level="warning",
        http=cast("type[asyncio.Protocol]", protocol),  # made one a connection, as a class is
        ws="none",
        lifespan="off",
        limit_concurrency=limits.connections,
        timeout_keep_alive=limits.idle_seconds,
        h11_max_incomplete_event_size=limits.header_bytes,
    )
    return uvicorn.Server(config)


class Door:
    """The ASGI side of the door: a request with a body refused, the Host checked, and
    each open :class:`Connection` told when a request reaches the explorer and when
    its answer has gone."""

    def __init__(self, app: ASGIApp, host: str) -> None:
        self.open: dict[Peer, Connection] = {}
        allowed = sorted({*LOCAL, f"[{host}]" if ":" in host else host})
        self.app = _in_words(TrustedHostMiddleware(_passed(app), allowed, www_redirect=False))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        conn = self.open.get((client[0], client[1])) if client else None
        if conn is not None:
            conn.request_began()
        try:
            if _has_body(scope):
                await _answer(send, 413, NO_BODY)
                return
            await self.app(scope, receive, send)
        finally:
            if conn is not None:
                conn.request_ended()


def _has_body(scope: Scope) -> bool:
    """Whether a request says a body follows (h11 has checked Content-Length's digits)."""
    headers = dict(scope["headers"])
    return b"transfer-encoding" in headers or int(headers.get(b"content-length", b"0")) > 0


#: The scope's key that says a request passed the Host check.
_PASSED = "puzzledb.host"


def _passed(app: ASGIApp) -> ASGIApp:
    async def passed(scope: Scope, receive: Receive, send: Send) -> None:
        scope[_PASSED] = True
        await app(scope, receive, send)

    return passed


def _in_words(guarded: ASGIApp) -> ASGIApp:
    """``guarded``, its refusal of a Host answered in the explorer's words."""

    async def words(scope: Scope, receive: Receive, send: Send) -> None:
        async def answer(message: Message) -> None:
            if scope.get(_PASSED) or scope["type"] != "http":
                await send(message)
            elif message["type"] == "http.response.start":
                await _answer(send, 400, HOST_REFUSED)

        await guarded(scope, receive, answer)

    return words


async def _answer(send: Send, status: int, line: bytes) -> None:
    """One line, the connection closed after it."""
    body = line + b"\n"
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", b"%d" % len(body)),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Connection(asyncio.Protocol):
    """One client's connection: uvicorn's HTTP protocol inside, and the door's timers.

    ``header_seconds`` from the opening and from each answer until the next request
    reaches the explorer (:meth:`request_began`); ``send_seconds`` while the
    transport's write buffer is full (asyncio's ``pause_writing``). Past them the
    connection is dropped.
    """

    def __init__(
        self,
        door: Door,
        inner: Callable[..., asyncio.Protocol],
        limits: Limits,
        **uvicorn: object,
    ) -> None:
        self.door = door
        self.limits = limits
        self.inner: asyncio.Protocol = inner(**uvicorn)
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.peer: Peer | None = None
        self._waiting: asyncio.TimerHandle | None = None
        self._sending: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)
        if len(self.door.open) >= self.limits.connections:
            transport.close()  # past the cap: no slot, no descriptor held
            return
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = (peer[0], peer[1]) if peer else None
        if self.peer is not None:
            self.door.open[self.peer] = self
        self.inner.connection_made(transport)
        self.request_ended()

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self._cancel("_sending")
        self._sending = self.loop.call_later(self.limits.send_seconds, self._drop)
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self._cancel("_sending")
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is None:
            return  # closed at its opening: uvicorn never saw it
        self._cancel("_waiting")
        self._cancel("_sending")
        if self.peer is not None and self.door.open.get(self.peer) is self:
            del self.door.open[self.peer]
        self.inner.connection_lost(exc)

    def request_began(self) -> None:
        """A request's headers reached the explorer: no deadline while it is answered."""
        self._cancel("_waiting")

    def request_ended(self) -> None:
        """Its answer has gone (or the connection opened): the next headers are due."""
        self._cancel("_waiting")
        self._waiting = self.loop.call_later(self.limits.header_seconds, self._drop)

    def _cancel(self, timer: str) -> None:
        handle = getattr(self, timer)
        if handle is not None:
            handle.cancel()
            setattr(self, timer, None)

    def _drop(self) -> None:
        """The connection closed now, what the client has not read thrown away (a close
        would wait for it to be read)."""
        if self.transport is not None:
            self.transport.abort()
