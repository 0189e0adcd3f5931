"""The explorer's routes: HTML pages and JSON endpoints over one read-only Database.

Requests run one at a time in a worker thread (a lock): point look-ups take
milliseconds, and the tables' readers and matplotlib are then never shared.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from functools import lru_cache

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from pipeline.api import Database
from pipeline.errors import BadPosition, CorruptTable, NotBuilt, PuzzleDBError, UnknownPuzzle
from pipeline.pictures import boards
from pipeline.serve import documents, pages
from pipeline.serve.documents import PositionDoc, TableDoc


def _status(e: PuzzleDBError) -> int:
    if isinstance(e, NotBuilt | UnknownPuzzle):
        return 404
    if isinstance(e, CorruptTable):
        return 500
    if isinstance(e, documents.SearchTooLong):
        return 503
    return 400


def _line(e: PuzzleDBError, name: str | None) -> str:
    """One line; a damaged table names the command that rebuilds it."""
    text = documents.line(e)
    if isinstance(e, CorruptTable) and name and "rebuild" not in text:
        text += f" (rebuild it: puzzledb build {name} --force)"
    return text


def _retype(request: Request, name: str | None, status: int) -> tuple[str, str] | None:
    """The table and the text typed, when the error is the position's (a bad one on a
    table that is there): the error page then holds it in a box to mend."""
    if name is None or status != 400 or not request.url.path.startswith(("/p/", "/pick/")):
        return None
    return name, request.query_params.get("s", "")[:1000]


def create_app(db: Database) -> Starlette:
    """The explorer over ``db``'s data folder."""
    lock = threading.Lock()

    def locked(work: Callable[[], Response]) -> Response:
        with lock:
            return work()

    def route(
        work: Callable[[Request], Response], json: bool
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            name = request.path_params.get("name")
            try:
                return await run_in_threadpool(locked, lambda: work(request))
            except PuzzleDBError as e:
                status, line = _status(e), _line(e, name)
                if json:
                    return JSONResponse({"error": line}, status_code=status)
                page = pages.error(status, line, _retype(request, name, status))
                return HTMLResponse(page, status_code=status)

        return endpoint

    # Keyed by the folder's reads too: a table rebuilt while serving is drawn anew.
    chart = lru_cache(maxsize=64)(lambda name, log, _reads: _chart(db, name, log))
    views = _views(db, chart, lru_cache(maxsize=2)(lambda _reads: documents.tables(db)))
    routes = [Route(path, route(fn, path.startswith("/api")), name=None) for path, fn in views]
    routes.append(Route("/favicon.ico", lambda r: Response(status_code=204)))  # the icon: inline
    return Starlette(routes=routes)


def _chart(db: Database, name: str, log: bool) -> str:
    from matplotlib import pyplot as plt

    from pipeline.pictures import charts

    fig = db.plot_histogram(name, log=log)
    text = charts.svg(fig)
    plt.close(fig)
    return text


def _text(request: Request, db: Database, name: str) -> str:
    """The position a request names (``?s=``), or the table's first root."""
    text = request.query_params.get("s")
    if text is None or not text.strip():
        p = documents.shown_puzzle(db, name)
        return p.root_texts[0] if p.search_tables() else p.text(p.roots()[0])
    if len(text) > 1000:
        raise BadPosition("a position is at most 1000 characters")
    return text


def _int(request: Request, key: str) -> int | None:
    raw = request.query_params.get(key, "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:  # int() takes full-width digits
        raise BadPosition(f"{key} is a whole number, not {raw[:40]!r}")
    return int(raw)


def _views(
    db: Database, chart: Callable[[str, bool, int], str], listed: Callable[[int], list[TableDoc]]
) -> list[tuple[str, Callable[[Request], Response]]]:
    def tables() -> list[TableDoc]:
        return listed(db.snapshot)  # the folder looked at again: read anew only if it changed

    def home(r: Request) -> Response:
        return HTMLResponse(pages.home(tables()))

    def table(r: Request) -> Response:
        name = r.path_params["name"]
        documents.built_puzzle(db, name)
        log = r.query_params.get("log") == "1"
        deepest = documents.deepest(db, name, 10)
        drawn = chart(name, log, db.snapshot)  # a table rebuilt while serving: drawn anew
        return HTMLResponse(pages.table(name, drawn, log, deepest))

    def pick(r: Request) -> Response:
        name = r.path_params["name"]
        depth = _int(r, "depth")
        if depth is None:
            raise BadPosition("give a depth")
        text = documents.at_depth(db, name, depth, _int(r, "n"))
        return RedirectResponse(pages.position_url(name, text), status_code=303)

    def position(r: Request) -> Response:
        name = r.path_params["name"]
        answer = documents.position(db, name, _text(r, db, name))
        return HTMLResponse(_position_page(db, answer))

    def strip(r: Request) -> Response:
        name = r.path_params["name"]
        answer = documents.position(db, name, _text(r, db, name))
        return HTMLResponse(pages.strip_part(answer, _strip(db, answer)))

    def api_position(r: Request) -> Response:
        name = r.path_params["name"]
        return JSONResponse(documents.position(db, name, _text(r, db, name)))

    return [
        ("/", home),
        ("/t/{name}", table),
        ("/pick/{name}", pick),
        ("/p/{name}", position),
        ("/strip/{name}", strip),
        ("/api/tables", lambda r: JSONResponse(tables())),
        (
            "/api/histogram/{name}",
            lambda r: JSONResponse(documents.histogram(db, r.path_params["name"])),
        ),
        ("/api/position/{name}", api_position),
        ("/api/solve/{name}", lambda r: JSONResponse(_solve(db, r))),
    ]


def _solve(db: Database, r: Request) -> dict[str, object]:
    name = r.path_params["name"]
    return documents.solve(db, name, _text(r, db, name))


def _position_page(db: Database, answer: PositionDoc) -> str:
    """The position's page: board and moves; the walk comes after (``/strip``: one
    look-up a level, a second on 3x4's deepest positions when nothing is cached)."""
    name, state = answer["puzzle"], answer["state"]
    p = db.puzzle(name)
    board = boards.board_at(p, state, answer["depth"])
    keys = documents.arrow_keys(p, state, [m["state"] for m in answer["moves"]])
    return pages.position(answer, board, keys)


def _strip(db: Database, answer: PositionDoc) -> str:
    """The walk along parents (to the goal, or here from the start) as a strip of boards."""
    walked = db.walk(answer["puzzle"], answer["state"]) if answer["depth"] else None
    return db.solution_svg(walked) if walked is not None and walked.moves <= 60 else ""
