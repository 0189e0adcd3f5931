"""The explorer's answers as plain dicts: the service's answers (pipeline/service/), with
what only a page needs added (where a click on the board picks each move, arrow keys).
The JSON endpoints return them as they are."""

from __future__ import annotations

import contextlib
from typing import NotRequired, TypedDict

from pipeline.answers import MethodSolution, Origin, Position, SearchProgress
from pipeline.api import Database
from pipeline.errors import CorruptTable, NotBuilt, PuzzleDBError
from pipeline.pictures.boards import spots_moved
from pipeline.puzzles.base import Puzzle

#: One move of a position: what it makes, its depth, and where a click picks it.
MoveDoc = TypedDict(
    "MoveDoc",
    {
        "position": str,
        "state": int,
        "depth": int | None,
        "move": str | None,
        "verdict": str,
        "from": list[int],
        "to": list[int],
    },
)


class SearchDoc(TypedDict):
    """A position's optimal solution, searched over the puzzle's pattern tables
    (``tables``: those the search read; ``moves`` its length, ``notation`` its moves),
    or ``refused``: the line saying why there is none here (the tables to build, or a
    search longer than a page waits)."""

    tables: list[str]
    moves: int | None
    notation: str | None
    nodes: int | None
    refused: str | None


class PositionDoc(TypedDict):
    """A position as ``/api/position`` answers it (the page draws the same); a puzzle
    solved by search has no depth, and ``search`` holds its optimal solution."""

    puzzle: str
    position: str
    caption: str
    state: int
    typed: str | None
    classes: bool
    origin: str
    depth: int | None
    winnable: str | None
    properties: dict[str, int | bool | None]
    moves: list[MoveDoc]
    search: NotRequired[SearchDoc]


class TableDoc(TypedDict):
    """A table of the folder as ``/api/tables`` lists it: its numbers, or its error."""

    puzzle: str
    derived: bool
    error: NotRequired[str]
    positions: NotRequired[int]
    max_depth: NotRequired[int]
    partial_depth: NotRequired[int | None]
    orbit_positions: NotRequired[int | None]
    histogram: NotRequired[list[dict[str, int]]]


def line(e: PuzzleDBError) -> str:
    """An error as the one line a page or a JSON answer shows."""
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def tables(db: Database) -> list[TableDoc]:
    """Every table of the folder: its numbers and histogram, or the line that says why it
    cannot be read (one damaged table never hides the others)."""
    rows: list[TableDoc] = []
    for t in db.listing():
        if t.damaged is not None:
            rows.append({"puzzle": t.name, "derived": False, "error": t.damaged})
        elif t.built:
            try:
                rows.append(_summary(db, t.name))
            except PuzzleDBError as e:
                rows.append({"puzzle": t.name, "derived": False, "error": line(e)})
    rows += [  # damaged tables of no name known here (listed by the folder's scan only)
        {"puzzle": n, "derived": False, "error": why}
        for n, why in db.broken().items()
        if n not in {r["puzzle"] for r in rows}
    ]
    return sorted(rows, key=lambda r: r["puzzle"])


def _summary(db: Database, name: str) -> TableDoc:
    s = db.table_summary(name)
    return {
        "puzzle": name,
        "positions": s.positions,
        "max_depth": s.max_depth,
        "derived": s.derived,
        "partial_depth": s.partial_depth,
        "orbit_positions": s.orbit_positions,
        "histogram": db.levels(name).rows(),
    }


def built_puzzle(db: Database, name: str) -> Puzzle:
    """The puzzle of a built table; NotBuilt (a 404) for any other name."""
    if name not in db.built():
        if name in (broken := db.broken()):  # damaged: says why
            raise CorruptTable(broken[name])
        if _searched(db, name) is not None:  # no table of its own: says so
            raise NotBuilt(db.not_built(name))
        raise NotBuilt(f"no table named {name!r} is built in this folder")
    return db.puzzle(name)


def shown_puzzle(db: Database, name: str) -> Puzzle:
    """The puzzle of a built table, or of a puzzle solved by search (no table of its
    own: cube3, a definition past 64 bits kept here); NotBuilt (a 404) for any other."""
    if name not in db.built():
        searched = _searched(db, name)
        if searched is not None:
            return searched
    return built_puzzle(db, name)


def _searched(db: Database, name: str) -> Puzzle | None:
    """The puzzle of ``name`` if it is one solved by search, else None."""
    with contextlib.suppress(PuzzleDBError):  # no such puzzle: None
        p = db.puzzle(name)
        if p.search_tables():
            return p
    return None


def histogram(db: Database, name: str) -> dict[str, object]:
    """The shape of ``puzzledb histogram NAME --json``."""
    built_puzzle(db, name)
    return {"puzzle": name, "histogram": db.levels(name).rows()}


def deepest(db: Database, name: str, limit: int) -> list[str]:
    """Up to ``limit`` positions of the deepest level built (a partial table's last)."""
    built_puzzle(db, name)
    return db.deepest(name, limit)


def at_depth(db: Database, name: str, depth: int, nth: int | None) -> str:
    """The n-th position at a depth (a random one when ``nth`` is None), as text."""
    built_puzzle(db, name)
    return db.at_depth(name, depth, nth)


def position(db: Database, name: str, text: str) -> PositionDoc:
    """A position, its depth and every move from it with the depth it leads to. On a
    table of symmetry classes the position is its class's board (``typed`` says
    what was typed when that differs)."""
    p = shown_puzzle(db, name)
    answer = db.position(name, text)
    found = search(db, name, text) if p.search_tables() else None
    doc: PositionDoc = {
        "puzzle": name,
        "position": p.text(answer.state),
        "caption": p.caption(answer.state),
        "state": answer.state,
        "typed": p.text(answer.typed) if answer.typed != answer.state else None,
        "classes": answer.classes,
        "origin": str(answer.origin),
        "depth": answer.depth,
        "winnable": answer.judge,
        "properties": db.properties(name, answer.state),  # depth, solved, the family's own
        "moves": _moves(p, answer),
    }
    if found is not None:
        doc["search"] = found
    return doc


#: Seconds a page waits for a search (one request at a time: the explorer waits too).
SEARCH_SECONDS = 10.0


class SearchTooLong(PuzzleDBError):
    """A search a page stopped after :data:`SEARCH_SECONDS` (its line: the bound reached)."""


def searched(db: Database, name: str, text: str) -> MethodSolution:
    """The optimal solution of a position of a puzzle solved by search, from the API's
    ``solve_by``: its pattern tables never built from a page (NotBuilt names them), the
    search stopped after :data:`SEARCH_SECONDS` (SearchTooLong)."""

    def waited(progress: SearchProgress) -> None:
        if progress.seconds > SEARCH_SECONDS:
            raise SearchTooLong(
                f"{name}: its optimal solution is at least {progress.bound} moves long (the "
                f"search stopped after {SEARCH_SECONDS:g} s): puzzledb solve {name} searches on"
            )

    return db.solve_by(name, text, build=False, on_search=waited)


def search(db: Database, name: str, text: str) -> SearchDoc:
    """:func:`searched` as the position's document has it (the line, when refused)."""
    tables = db.puzzle(name).search_tables()
    doc: SearchDoc = {"tables": tables, "moves": None, "notation": None, "nodes": None,
                      "refused": None}  # fmt: skip
    try:
        sol = searched(db, name, text)
    except (NotBuilt, SearchTooLong) as e:
        return {**doc, "refused": line(e)}
    read = sol.heuristic.split(", ") if sol.heuristic else tables  # a stronger set, once built
    return {**doc, "tables": read, "moves": sol.moves, "notation": sol.notation,
            "nodes": sol.nodes}  # fmt: skip


def _moves(p: Puzzle, answer: Position) -> list[MoveDoc]:
    out: list[MoveDoc] = []
    for m in answer.moves:
        frm, to = spots_moved(p, answer.state, m.made)
        out.append(
            {
                "position": p.text(m.stored),
                "state": m.stored,
                "depth": m.depth,
                "move": m.notation,
                "verdict": m.verdict,
                "from": frm,
                "to": to,
            }
        )
    return out


def best(answer: PositionDoc) -> MoveDoc | None:
    """The move marked best: nearest the goal on a goal-rooted table (first of ties)."""
    near = [m for m in answer["moves"] if m["verdict"] == "nearer"]
    return near[0] if near else None


def solve(db: Database, name: str, text: str) -> dict[str, object]:
    """The shape of ``puzzledb solve NAME POSITION --json`` (a puzzle solved by search:
    :func:`searched`, nothing built)."""
    if shown_puzzle(db, name).search_tables():
        return searched(db, name, text).as_dict()
    return db.solve(name, text).as_dict()


def _spots(p: Puzzle) -> dict[int, tuple[int, int]]:
    """Each cell's (line, column) in the puzzle's drawing layout."""
    spots: dict[int, tuple[int, int]] = {}
    for y, text in enumerate(p.cells.layout.splitlines()):
        for i in range(p.cells.count):
            x = text.find("{" + str(i) + "}")
            if x >= 0:
                spots[i] = (y, x)
    return spots


ARROWS = {(0, 1): "ArrowRight", (0, -1): "ArrowLeft", (1, 0): "ArrowDown", (-1, 0): "ArrowUp"}


def arrow_keys(p: Puzzle, state: int, kids: list[int]) -> dict[str, str]:
    """Arrow key of each move that slides one tile into the blank, by the tile's direction
    (goal-rooted boards only: a key moves towards or away from the goal)."""
    if p.origin is not Origin.GOAL:
        return {}
    spots = _spots(p)
    before = p.cells.values(state)
    keys: dict[str, str] = {}
    for kid in kids:
        after = p.cells.values(kid)
        changed = [i for i in range(len(before)) if before[i] != after[i]]
        if len(changed) != 2 or 0 not in (before[changed[0]], before[changed[1]]):
            continue
        hole, tile = changed if before[changed[0]] == 0 else changed[::-1]
        if hole not in spots or tile not in spots:
            continue
        (y0, x0), (y1, x1) = spots[tile], spots[hole]
        step = ((y1 > y0) - (y1 < y0), (x1 > x0) - (x1 < x0))
        if step in ARROWS:
            keys[p.text(kid)] = ARROWS[step]
    return keys
