"""The symmetries of a peg board's picture and their byte tables (numpy only).

The symmetries fixing the start hole are found from the picture's geometry
(:func:`symmetries`): every isometry of the plane about the start hole
(rotations by multiples of 30 degrees, mirrors at multiples of 15) that maps the
holes onto the holes and the jump lines onto jump lines. A symmetry permutes
the bits of a state, applied a byte at a time (:func:`byte_tables`): by the
symmetric tables (sym.py) and their compiled kernels (sym_moves.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pipeline.engine.core import States
from pipeline.puzzles.pegs.board import Board


def _plane(board: Board) -> list[tuple[float, float]]:
    """Each hole's place in the plane: the picture scaled so every step has length 1."""
    horizontal = [dc for dr, dc in board.steps if dr == 0]
    sx = 1 / abs(horizontal[0]) if horizontal else 1.0
    dr, dc = next((dr, dc) for dr, dc in board.steps if dr != 0)
    sy = math.sqrt(max(0.0, 1 - (dc * sx) ** 2)) / abs(dr)
    return [(c * sx, r * sy) for r, c in board.holes]


def symmetries(board: Board, start: int) -> list[tuple[int, ...]]:
    """The symmetries fixing hole ``start``, each as the image of every hole (identity first)."""
    places = _plane(board)
    x0, y0 = places[start]
    rel = [(x - x0, y - y0) for x, y in places]
    jumps = {(f, t) for f, _, t in board.jumps}
    found: list[tuple[int, ...]] = []
    for k in range(12):
        a = math.pi * k / 6
        cos, sin = math.cos(a), math.sin(a)
        for mirror in (1, -1):
            moved = [(cos * x - sin * mirror * y, sin * x + cos * mirror * y) for x, y in rel]
            image = tuple(_hole_at(rel, u, v) for u, v in moved)
            if -1 in image or image in found:
                continue
            if {(image[f], image[t]) for f, t in jumps} == jumps:
                found.append(image)
    identity = tuple(range(board.count))
    return [identity, *(p for p in found if p != identity)]


def _hole_at(places: list[tuple[float, float]], u: float, v: float) -> int:
    """The hole at (u, v), or -1 (a symmetry moving a hole off the board)."""
    return next((i for i, (x, y) in enumerate(places) if abs(x - u) + abs(y - v) < 1e-6), -1)


def byte_tables(perms: Sequence[tuple[int, ...]], inverse: bool = False) -> np.ndarray:
    """``T[g, b, v]``: the image under symmetry g of byte b of a state holding value v
    (a permutation of bits is the OR of its bytes' images)."""
    n = len(perms[0])
    nbytes = (n + 7) // 8
    out = np.zeros((len(perms), nbytes, 256), np.uint64)
    for g, perm in enumerate(perms):
        to = [perm.index(i) for i in range(n)] if inverse else list(perm)
        for b in range(nbytes):
            for v in range(256):
                bits = 0
                for k in range(8):
                    if v >> k & 1 and 8 * b + k < n:
                        bits |= 1 << to[8 * b + k]
                out[g, b, v] = bits
    return out


def images(tables: np.ndarray, states: States) -> np.ndarray:
    """Every image of every state: shape (symmetries, states)."""
    out = np.zeros((tables.shape[0], len(states)), np.uint64)
    for b in range(tables.shape[1]):
        byte = ((states >> np.uint64(8 * b)) & np.uint64(255)).astype(np.intp)
        out |= tables[:, b, :][:, byte]
    return out
