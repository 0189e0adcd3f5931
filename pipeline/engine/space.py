"""A dense space: what a puzzle declares to be searched by the dense engine (dense.py).

A puzzle whose states number densely, ranks ``0 .. size - 1`` in the order of
the states (the states themselves when they fill that range: the twisty
puzzles; a rank of the arrangement: the sliding tiles), declares a
:class:`DenseSpace`: its size, the most moves out of a state, and the
compiled kernels of the engine's strategies it can take: the marks
(:class:`MarkKernels`, marks.py) and the bitmaps (:class:`BitmapKernels`,
bitmaps.py). The engine picks between them by the moves a state has
(dense.py says why). Plain data: each kernel is a module-level numba function
of the family's ``*moves.py``, with a strategy's core inlined and the
family's own functions (its rank, its children, its undo) named in it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

#: A compiled kernel (a numba dispatcher): its arguments are in its docstring.
Kernel = Callable[..., Any]  # Any: numba types a kernel's result by its arguments


@dataclass(frozen=True)
class MarkKernels:
    """The marks' kernels (marks.py), over keys ``rank(child) << 2 | tag``.

    A key's tag (2 bits) must be the number of the child's own move back to the
    parent, so that the tags marked at a rank name the moves of that state that
    go back to a parent (its ``back`` bits). ``keys(states, skip, back, out,
    scratch, args)`` writes a key (uint32) for each move out of ``states``, in any
    order, into ``out`` (room for ``DenseSpace.moves`` a state; ``scratch``: three
    uint64 a state), and :data:`marks.NO_KEY` instead for a move to ``skip[i]``
    or a move ``k`` with bit ``k`` of ``back[i]`` set (either may be empty);
    returns how many. ``scan`` is :func:`marks.scan_core` and ``mark(states,
    seen, args)`` :func:`marks.mark_core`, each with the family's rank, unrank
    and undo inlined.
    """

    keys: Kernel
    scan: Kernel
    mark: Kernel
    args: tuple[Any, ...]  # Any: the family's arrays and numbers, its kernels' to read


@dataclass(frozen=True)
class BitmapKernels:
    """The bitmaps' kernels (bitmaps.py): ``forward``, ``backward`` and ``rows`` are
    :func:`bitmaps.forward_core`, :func:`bitmaps.backward_core` and
    :func:`bitmaps.rows_core` with the family's functions inlined. Ranks are the
    states, read in increasing order, and a family may share a move's terms across
    a block of them (the twisty states that differ in their last digit only):
    ``block(s, base, args)`` fills ``base`` for the block of ``s`` and returns its
    bounds ``(lo, hi)``; ``near(s, lo, base, out, args)`` then writes each move's
    child of ``s`` (``~0`` where a move is blocked) for the forward kernel, or ``s``
    moved back by each move's inverse for the backward one, and ``undo(c, lo,
    base, t, args)`` is ``c`` moved back by move t's inverse for the rows.

    ``groups[t]``: the group of move t, when its group is closed (two of its moves
    in a row make one of them or none: the powers F, F2, F' of one turn), else -1.
    A state reached by a move of a group never makes a new state by another
    (its parent makes it in one move), so the forward step skips them: 3 moves
    of 18 on the 2x2x2 cube. Each child keeps its smallest parent all the same:
    the moves skipped reach no new state.
    """

    forward: Kernel
    backward: Kernel
    rows: Kernel
    args: tuple[Any, ...]  # Any: the family's arrays and numbers, its kernels' to read
    groups: np.ndarray


@dataclass(frozen=True)
class DenseSpace:
    """A puzzle's moves over its ranks ``0 .. size - 1`` (module docstring): ``moves``
    is the most moves out of a state (its branching, the engine's rule reads it),
    and each strategy's kernels are given where the family has them."""

    size: int
    moves: int
    marks: MarkKernels | None = None
    bitmaps: BitmapKernels | None = None


@dataclass(frozen=True)
class DenseStep:
    """What one level step of the dense engine did: the states it found, the moves it
    made (None: not counted, the bitmaps'), the seconds it took finding them and
    handing their rows over, and flags saying how (``dense``; ``backward``: the
    bitmaps' step that looks for parents)."""

    found: int
    pairs: int | None
    expand: float
    rows: float
    flags: dict[str, bool]
