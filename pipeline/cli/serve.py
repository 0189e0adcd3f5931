"""``puzzledb serve``: the explorer in the browser (docs/EXPLORER.md)."""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from pipeline.cli.shared import DataOpt, db
from pipeline.errors import PuzzleDBError

HostOpt = Annotated[
    str, typer.Option("--host", help="Address to listen on (127.0.0.1: this machine only).")
]
PortOpt = Annotated[int, typer.Option("--port", help="Port to listen on.", min=1, max=65535)]


def serve(data: DataOpt = Path("data"), host: HostOpt = "127.0.0.1", port: PortOpt = 8037) -> None:
    """Explore the built tables in a browser: positions, moves and their depths."""
    from pipeline.serve import guard
    from pipeline.serve.app import create_app

    base = db(data)
    base.require_folder()
    if host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(f"warning: serving on {host}: other machines can reach it", err=True)
    _free(host, port)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"puzzledb explorer on http://{shown}:{port}/ (Ctrl-C stops it)")
    server = guard.server(create_app(base), host, port)  # Host checked, slow clients dropped
    # uvicorn raises SIGTERM again once stopped: exiting instead runs the finalizers
    # that remove the read-only catalog's temp folder (pipeline/query/readonly.py)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    server.run()


def _free(host: str, port: int) -> None:
    """One line, not uvicorn's log, when the address cannot be listened on."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as e:
        raise PuzzleDBError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
