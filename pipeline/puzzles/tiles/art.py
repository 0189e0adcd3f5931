"""How sliding tiles are drawn: numbered tiles in their grid (or hexagon), a board on a
graph as its graph, and a pattern database's abstract board."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pipeline.draw import geometry
from pipeline.draw.art import Art, Drawable, Move, distance
from pipeline.draw.svg import el
from pipeline.puzzles.tiles.slides import slid_label

if TYPE_CHECKING:
    from pipeline.puzzles.tiles.patterns import PatternPuzzle


class TileArt(Art):
    """Numbered tiles in their grid (or hexagon); the blank is an empty slot.

    A board whose moves are not its lattice's (a spec on a graph: cells side by
    side that are not neighbours, or neighbours apart) is drawn as its graph:
    smaller cells, a line for each pair of neighbours.
    """

    squares = True

    board_fill = "#37474f"
    pad = 0.6

    def __init__(self, puzzle: Drawable) -> None:
        super().__init__(puzzle)
        self.edges = graph_edges(puzzle, self.spots)
        self.sizes = (0.62, 0.54) if self.edges else (0.96, 0.88)  # slot's and tile's sides

    def underlay(self) -> str:
        """The graph's edges, when they are not the lattice's."""
        lines = []
        for a, b in self.edges:
            (x1, y1), (x2, y2) = self.xy(a, self.pad), self.xy(b, self.pad)
            ends = {"x1": x1, "y1": y1, "x2": x2, "y2": y2}
            lines.append(el("line", {**ends, "class": "edge", "data_cells": f"{a} {b}"}))
        return el("g", {"stroke": "#b0bec5", "stroke_width": 4}, *lines) if lines else ""

    def slot(self, spot: int, x: float, y: float) -> str:
        return self.square(x, y, "#1a2327", self.sizes[0])

    def piece(self, content: int, x: float, y: float) -> str:
        if content == 0:
            return ""
        tile = self.square(x, y, "#f6e7c8", self.sizes[1], stroke="#a1887f")
        return tile + self.label(x, y, str(content), "#3e2723")

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        m = super().move(before, after)
        tile = [after[i] for i in m.to]
        if len(tile) != 1:
            return m
        return Move(m.frm, m.to, label=slid_label(before, after) if tile[0] > 0 else "another tile")


def graph_edges(puzzle: Drawable, spots: geometry.Spots) -> tuple[tuple[int, int], ...]:
    """The pairs of neighbouring cells (a < b), or none when they are exactly the
    pairs one step apart on the drawing's lattice (a grid, the hexagon)."""
    adjacency = getattr(puzzle, "adjacency", None)
    if adjacency is None or len(adjacency) != len(spots.xy):
        return ()
    edges = {(a, b) for a, nbrs in enumerate(adjacency) for b in nbrs if a < b}
    xy = spots.xy
    lattice = {
        (a, b)
        for a in range(len(xy))
        for b in range(a + 1, len(xy))
        if abs(distance(xy[a], xy[b]) - 1) < 0.01
    }
    return () if edges == lattice else tuple(sorted(edges))


class PatternArt(TileArt):
    """A pattern database: the board with the pattern tiles numbered, the others plain."""

    puzzle: PatternPuzzle

    def layout(self) -> geometry.Spots:
        return geometry.grid(self.puzzle.rows, self.puzzle.cols)

    def contents(self, values: Sequence[int]) -> list[int]:
        p = self.puzzle
        board = [-1] * p.size  # -1: a tile outside the pattern
        for tile, cell in zip(p.tiles, values[:-1], strict=True):
            board[cell] = tile
        board[values[-1]] = 0
        return board

    def tags(self, values: Sequence[int]) -> list[tuple[int, int] | None]:
        out: list[tuple[int, int] | None] = [None] * len(self.spots.xy)
        for i, cell in enumerate(values):
            out[cell] = (i, cell)
        return out

    def piece(self, content: int, x: float, y: float) -> str:
        if content == -1:
            return self.square(x, y, "#90a4ae", 0.88)
        return super().piece(content, x, y)
