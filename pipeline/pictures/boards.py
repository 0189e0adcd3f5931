"""A position as an SVG board, and a solution as a strip of boards with each move marked.

Each cell is a ``<g class="cell" data-cell="i" data-value="v">`` (the puzzle's
cell i holds value v, as in the state encoding), so the position can be read
back from the picture; the ``<svg>`` (or each board of a strip) also carries
``data-state`` and ``data-text``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.answers import Solution
from pipeline.draw.art import ACCENT, FONT, UNIT, Art, Move
from pipeline.draw.svg import document, el, esc, num, text
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.registry import art_of
from pipeline.words import plural

CAPTION = 20  # pixels under a board for each line of its caption
CHAR = 7.5  # pixels a caption character takes at most, about (12 px system-ui)
GAP = 12  # pixels between the boards of a strip
STRIP_WIDTH = 1200  # a strip wraps into rows of at most this many pixels


@dataclass(frozen=True)
class Drawn:
    """A board's SVG body and its size in pixels."""

    body: str
    width: float
    height: float


def draw(
    art: Art,
    state: int,
    *,
    before: int | None = None,
    history: Sequence[int] | None = None,
) -> Drawn:
    """The board of ``state``; with ``before``, the move from it marked."""
    values = art.values(int(state))
    contents = art.contents(values)
    parts = [_background(art), art.underlay()]
    for spot, tag in enumerate(art.tags(values)):
        x, y = art.xy(spot, art.pad)
        cell = {"data_cell": tag[0], "data_value": tag[1]} if tag else {}
        body = art.slot(spot, x, y) + art.piece(contents[spot], x, y)
        parts.append(el("g", {"class": "cell", "data_spot": spot, **cell}, body))
    parts.append(art.extras(contents, history))
    if before is not None:
        earlier = art.contents(art.values(int(before)))
        parts.append(_marks(art, earlier, contents))
    width = (art.spots.width + 2 * art.pad) * UNIT
    height = (art.spots.height + 2 * art.pad) * UNIT
    return Drawn("".join(parts), width, height)


def board(
    puzzle: Puzzle,
    state: int,
    *,
    caption: str | None = None,
    before: int | None = None,
    history: Sequence[int] | None = None,
) -> str:
    """A standalone SVG of one position (with ``before``: the move into it marked);
    the caption may hold several lines, and the picture widens to fit them."""
    d = draw(art_of(puzzle), state, before=before, history=history)
    return _standalone(puzzle, state, d, caption)


def board_at(puzzle: Puzzle, state: int, depth: int | None) -> str:
    """A position captioned with its puzzle, its text and its depth (when known)."""
    head = puzzle.name if depth is None else f"{puzzle.name}, depth {depth}"
    return board(puzzle, state, caption=f"{head}\n{puzzle.text(state)}")


def solution(puzzle: Puzzle, sol: Solution) -> str:
    """A solution as a strip, in playing order, titled with its moves."""
    return strip(puzzle, sol.line, title=f"{puzzle.name}: {plural(sol.moves, 'move')}")


def figures(puzzle: Puzzle, states: Sequence[int]) -> list[str]:
    """A line of play as one standalone SVG a position (for a page that wraps them)."""
    drawn = steps(art_of(puzzle), states)
    return [_standalone(puzzle, s, d, c) for s, (c, d) in zip(states, drawn, strict=True)]


def _standalone(puzzle: Puzzle, state: int, d: Drawn, caption: str | None) -> str:
    lines = caption.split("\n") if caption else []
    width = max([d.width, *(CHAR * len(line) + 2 * GAP for line in lines)])
    body = d.body
    if width > d.width:  # a caption wider than the board: centre the board over it
        body = el("g", {"transform": f"translate({num((width - d.width) / 2)},0)"}, body)
    for i, line in enumerate(lines):
        body += _caption(width / 2, d.height + (i + 0.5) * CAPTION, line)
    return document(
        width,
        d.height + CAPTION * len(lines),
        el("title", {}, esc(f"{puzzle.name}: {puzzle.text(state)}")) + body,
        class_="board",
        data_puzzle=puzzle.name,
        data_state=int(state),
        data_text=puzzle.text(state),
    )


def strip(puzzle: Puzzle, states: Sequence[int], *, title: str | None = None) -> str:
    """A standalone SVG of a line of play, first position first, each move marked."""
    art = art_of(puzzle)
    boards = steps(art, states)
    cell_w = max(b.width for _, b in boards) + GAP
    cell_h = max(b.height for _, b in boards) + CAPTION + GAP
    columns = max(1, min(len(boards), int(STRIP_WIDTH // cell_w)))
    rows = math.ceil(len(boards) / columns)
    parts = [el("title", {}, esc(title or f"{puzzle.name}: {len(states) - 1} moves"))]
    for i, (caption, d) in enumerate(boards):
        x, y = (i % columns) * cell_w, (i // columns) * cell_h
        inner = d.body + _caption(d.width / 2, d.height + CAPTION / 2, caption)
        parts.append(
            el(
                "g",
                {
                    "class": "board",
                    "transform": f"translate({num(x)},{num(y)})",
                    "data_step": i,
                    "data_state": int(states[i]),
                    "data_text": puzzle.text(states[i]),
                },
                inner,
            )
        )
    return document(
        columns * cell_w - GAP,
        rows * cell_h - GAP,
        "".join(parts),
        class_="strip",
        data_puzzle=puzzle.name,
        data_moves=len(states) - 1,
    )


def steps(art: Art, states: Sequence[int]) -> list[tuple[str, Drawn]]:
    """(caption, board) for each position of a line, the move into it marked."""
    out = []
    trail: list[int] = []
    for i, s in enumerate(states):
        contents = art.contents(art.values(int(s)))
        spot = art.mover(contents)
        if spot is not None:
            trail.append(spot)
        before = states[i - 1] if i else None
        label = _label(art, before, contents) if before is not None else "start"
        out.append((f"{i}: {label}" if i else label, draw(art, s, before=before, history=trail)))
    return out


def _label(art: Art, before: int, contents: list[int]) -> str:
    return art.move(art.contents(art.values(int(before))), contents).label


def _caption(x: float, y: float, label: str) -> str:
    return text(x, y, label, font_size=12, fill="#333", style=FONT, class_="caption")


def _background(art: Art) -> str:
    """The board under the cells: on a square lattice the cells widened by the margin
    (a cross stays a cross), else the cells' convex hull widened with round corners."""
    points = [art.xy(i, art.pad) for i in range(len(art.spots.xy))]
    fill = art.board_fill
    if not art.spots.triangular:
        half = art.pad * UNIT
        squares = "".join(
            el("rect", {"x": x - half, "y": y - half, "width": 2 * half, "height": 2 * half})
            for x, y in points
        )
        return el("g", {"class": "ground", "fill": fill}, squares)
    pts = " ".join(f"{num(x)},{num(y)}" for x, y in _hull(points))
    width = 2 * (art.pad - 0.02) * UNIT
    values = {"points": pts, "fill": fill, "stroke": fill, "stroke_width": width}
    return el("polygon", {**values, "stroke_linejoin": "round", "class": "ground"})


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The convex hull (monotone chain), corners in order."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2 and _cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out[:-1]

    return half(pts) + half(pts[::-1])


def _cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _marks(art: Art, before: list[int], after: list[int]) -> str:
    """Rings on the cells a move changed, and an arrow from where a piece left to where it went."""
    if len(before) != len(after):
        return ""
    move = art.move(before, after)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    changed += [i for i in (*move.frm, *move.to) if i not in changed]
    rings = "".join(art.ring(*art.xy(i, art.pad), i in move.over) for i in changed)
    return el(
        "g", {"class": "mark", "data_spots": " ".join(map(str, changed))}, rings, _arrow(art, move)
    )


def _arrow(art: Art, move: Move) -> str:
    if not move.frm or not move.to:
        return ""
    (x1, y1), (x2, y2) = _centre(art, move.frm), _centre(art, move.to)
    length = math.hypot(x2 - x1, y2 - y1)
    if length < 1:
        return ""
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    trim = 0.22 * UNIT
    x1, y1, x2, y2 = x1 + ux * trim, y1 + uy * trim, x2 - ux * trim, y2 - uy * trim
    head = 0.24 * UNIT
    bx, by = x2 - ux * head, y2 - uy * head
    wing = (-uy * head * 0.55, ux * head * 0.55)
    corners = [(x2, y2), (bx + wing[0], by + wing[1]), (bx - wing[0], by - wing[1])]
    tip = " ".join(f"{num(x)},{num(y)}" for x, y in corners)
    line = {"x1": x1, "y1": y1, "x2": bx, "y2": by, "stroke": ACCENT, "stroke_width": 3}
    return el(
        "g",
        {
            "class": "arrow",
            "data_from": " ".join(map(str, move.frm)),
            "data_to": " ".join(map(str, move.to)),
        },
        el("line", line),
        el("polygon", {"points": tip, "fill": ACCENT}),
    )


def _centre(art: Art, spots: Sequence[int]) -> tuple[float, float]:
    pts = [art.xy(i, art.pad) for i in spots]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def spots_moved(p: Puzzle, state: int, made: int) -> tuple[list[int], list[int]]:
    """The board's spots a move empties and fills, as drawn (a click on the board picks
    the move: the first click where a piece leaves, a second where it lands)."""
    art = art_of(p)
    before = art.contents(art.values(state))
    after = art.contents(art.values(made))
    m = art.move(before, after)
    return list(m.frm), list(m.to)
