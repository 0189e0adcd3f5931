"""The explorer's answers as plain dicts: the JSON endpoints return them as they are."""

from __future__ import annotations

import random
from typing import Any

from pipeline.answers import Solution
from pipeline.api import Database
from pipeline.errors import BadPosition, CorruptTable, NotBuilt
from pipeline.pictures.art import art_of
from pipeline.puzzles.base import Puzzle


def tables(db: Database) -> list[dict[str, Any]]:
    """Every built table: positions, deepest depth, histogram; derived ones marked."""
    rows = [{"puzzle": n, "derived": False, "error": why} for n, why in db.broken().items()]
    for name in db.built():
        try:
            rows.append(_summary(db, name))
        except CorruptTable as e:
            line = f"{e} (rebuild it: puzzledb build {name} --force)"
            rows.append({"puzzle": name, "derived": False, "error": line})
    return rows


def _summary(db: Database, name: str) -> dict[str, Any]:
    hist = db.table(name).histogram()
    return {
        "puzzle": name,
        "positions": sum(n for _, n in hist),
        "max_depth": max((d for d, _ in hist), default=0),
        "derived": bool(db.puzzle(name).derived),
        "histogram": [{"depth": d, "positions": n} for d, n in hist],
    }


def built_puzzle(db: Database, name: str) -> Puzzle:
    """The puzzle of a built table; NotBuilt (a 404) for any other name."""
    if name not in db.built():
        if name in (broken := db.broken()):  # damaged: says why (issue #44)
            raise CorruptTable(broken[name])
        raise NotBuilt(f"no table named {name!r} is built in this folder")
    return db.puzzle(name)


def histogram(db: Database, name: str) -> dict[str, Any]:
    """The shape of ``puzzledb histogram NAME --json``."""
    built_puzzle(db, name)
    rows = db.table(name).histogram()
    return {"puzzle": name, "histogram": [{"depth": d, "positions": n} for d, n in rows]}


def at_depth(db: Database, name: str, depth: int, nth: int | None) -> str:
    """The n-th position at a depth (a random one when ``nth`` is None), as text."""
    p = built_puzzle(db, name)
    counts = dict(db.table(name).histogram())
    if depth not in counts:
        raise BadPosition(f"{name} has no positions at depth {depth}")
    n = random.randrange(counts[depth]) if nth is None else nth
    if not 0 <= n < counts[depth]:
        raise BadPosition(f"depth {depth} of {name} has {counts[depth]} positions, not {n + 1}")
    rows = db.query(
        "SELECT state FROM query_table(getvariable('puzzle')) WHERE depth = getvariable('depth') "
        "ORDER BY state LIMIT 1 OFFSET getvariable('n')",
        {"puzzle": name, "depth": depth, "n": n},
    )
    return p.text(int(rows["state"][0]))


def found_depth(db: Database, name: str, state: int, near: int | None = None) -> int | None:
    """The depth of a state in table ``name`` (any of its symmetric images), or None;
    ``near``: a depth to look around first (a move from a position at that depth)."""
    p = db.puzzle(name)
    table = db.table(name)
    hits = [h for h in (table.find(s, p.depth_parity(s), near) for s in p.variants(state)) if h]
    return min(h.depth for h in hits) if hits else None


def spots_moved(p: Puzzle, state: int, made: int) -> tuple[list[int], list[int]]:
    """The board's spots a move empties and fills, as drawn (a click on the board picks
    the move: the first click where a piece leaves, a second where it lands)."""
    art = art_of(p)
    before = art.contents(p.cells.values(state))
    after = art.contents(p.cells.values(made))
    m = art.move(before, after)
    return list(m.frm), list(m.to)


def _verdict(origin: str, depth: int | None, child: int | None, won: bool | None) -> str:
    """How a move is coloured: nearer/same/farther from the goal, or won/lost/unknown."""
    if origin == "goal":
        if depth is None or child is None:
            return "unknown"
        return "nearer" if child < depth else "same" if child == depth else "farther"
    return "unknown" if won is None else "won" if won else "lost"


def position(db: Database, name: str, text: str) -> dict[str, Any]:
    """A position, its depth and every move from it with the depth it leads to. On a
    table of symmetry classes the position is its class's board (``typed`` says
    what was typed when that differs)."""
    p = built_puzzle(db, name).bind(db.data)
    typed = db.state(name, text)
    state = p.variants(typed)[0] if p.canonical is not None else typed
    depth = found_depth(db, name, state)
    judge = _winnable(db, p)
    moves = []
    for made, stored in p.moves_from(state):
        d = found_depth(db, name, stored, near=depth)
        won = None if judge is None else found_depth(db, judge, stored) is not None
        frm, to = spots_moved(p, state, made)
        moves.append(
            {
                "position": p.text(stored),
                "state": stored,
                "depth": d,
                "move": p.notation([state, made]),
                "verdict": _verdict(p.origin, depth, d, won),
                "from": frm,
                "to": to,
            }
        )
    return {
        "puzzle": name,
        "position": p.text(state),
        "state": state,
        "typed": p.text(typed) if typed != state else None,
        "classes": p.canonical is not None,
        "origin": p.origin,
        "depth": depth,
        "winnable": judge,
        "moves": moves,
    }


def _winnable(db: Database, p: Puzzle) -> str | None:
    """The built table saying won/lost for a start-rooted board, or None."""
    judge = p.solved_by
    if p.origin != "start" or judge is None or judge == p.name:
        return None
    return judge if judge in db.built() else None


def best(answer: dict[str, Any]) -> dict[str, Any] | None:
    """The move marked best: nearest the goal on a goal-rooted table (first of ties)."""
    if answer["origin"] != "goal":
        return None
    near = [m for m in answer["moves"] if m["verdict"] == "nearer"]
    return near[0] if near else None


def walk(db: Database, name: str, state: int) -> Solution | None:
    """The walk along parents in the table itself: to the goal, or here from the start.

    Not ``Database.solve``, which answers a peg board through its winnable
    table: a lost position still has a way here from the start.
    """
    p = db.puzzle(name)
    table = db.table(name)
    for s in p.variants(state):
        rows = table.walk(s, p.depth_parity(s))
        if rows:  # a table of classes: the line as positions one move apart
            states = p.as_typed(state, [r.state for r in rows], forward=p.origin == "goal")
            line = states if p.origin == "goal" else states[::-1]
            return Solution(name, p.origin, states, [p.text(x) for x in states], p.notation(line))
    return None


def solve(db: Database, name: str, text: str) -> dict[str, Any]:
    """The shape of ``puzzledb solve NAME POSITION --json``."""
    built_puzzle(db, name)
    return db.solve(name, text).as_dict()


def _spots(p: Puzzle) -> dict[int, tuple[int, int]]:
    """Each cell's (line, column) in the puzzle's drawing layout."""
    spots: dict[int, tuple[int, int]] = {}
    for y, line in enumerate(p.cells.layout.splitlines()):
        for i in range(p.cells.count):
            x = line.find("{" + str(i) + "}")
            if x >= 0:
                spots[i] = (y, x)
    return spots


ARROWS = {(0, 1): "ArrowRight", (0, -1): "ArrowLeft", (1, 0): "ArrowDown", (-1, 0): "ArrowUp"}


def arrow_keys(p: Puzzle, state: int, kids: list[int]) -> dict[str, str]:
    """Arrow key of each move that slides one tile into the blank, by the tile's direction."""
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
