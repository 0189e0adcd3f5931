"""The explorer's door: which Host it answers, and how long a client may take.

A page on another site can make a browser send requests to 127.0.0.1 under its
own name (DNS rebinding: ``attacker.example`` resolving to 127.0.0.1 after the
page loaded), and read the answers as its own: so a request whose Host is not
this machine's name (127.0.0.1, localhost, ::1) or the ``--host`` served gets
400 (:func:`hosts`). A client that opens connections and sends its request
headers slowly held them for ever: 20,000 of them used up the process's file
descriptors. So a connection that has not finished a request's headers within
``HEADER_SECONDS`` is closed, and beyond ``MAX_CONNECTIONS`` open ones a new
one is closed at once (:class:`Protocol`, uvicorn's h11 protocol with a timer).
"""

from __future__ import annotations

from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: How long a client may take to send a request's headers (a browser: milliseconds).
HEADER_SECONDS = 5.0
#: Open connections at most (a browser opens about six; the bench's load test 200).
MAX_CONNECTIONS = 512
#: The names of this machine a request may be addressed to.
LOCAL = ("127.0.0.1", "localhost", "::1")


def hosts(app: Any, host: str) -> Any:
    """``app`` answering only requests whose Host header names this machine or ``host``."""
    allowed = {h.lower() for h in (*LOCAL, host)}

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and _host(scope) not in allowed:
            await _refuse(send)
            return
        await app(scope, receive, send)

    return guarded


def _host(scope: dict[str, Any]) -> str:
    """The Host header's name, without its port or an IPv6 address's brackets."""
    raw = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").strip().lower()
    if raw.startswith("["):
        return raw[1 : raw.find("]")] if "]" in raw else raw
    return raw.rsplit(":", 1)[0] if raw.count(":") == 1 else raw


async def _refuse(send: Any) -> None:
    body = b"this explorer answers requests to this machine only (Host header refused)\n"
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", b"%d" % len(body)),
    ]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that is past the cap of open ones,
    or that has sent no whole request's headers for ``HEADER_SECONDS`` (checked every
    ``HEADER_SECONDS``: a request that began since the last check is given the next)."""

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            transport.close()
            return
        self._seen: object = None
        self._timer = self.loop.call_later(HEADER_SECONDS, self._check)

    def _check(self) -> None:
        waiting = self.conn.their_state is h11.IDLE  # its next request's headers not all in
        if waiting and self.scope is self._seen:
            self.transport.close()
            return
        self._seen = self.scope
        self._timer = self.loop.call_later(HEADER_SECONDS, self._check)

    def connection_lost(self, exc: Exception | None) -> None:
        timer = getattr(self, "_timer", None)
        if timer is not None:
            timer.cancel()
        super().connection_lost(exc)


#: What ``uvicorn.run`` takes besides the app: the guarded protocol.
OPTIONS: dict[str, Any] = {"http": Protocol, "timeout_keep_alive": HEADER_SECONDS}
