"""The fast level step: each move packed in one uint64 key and sorted by numpy.

A puzzle that can name the move into a child with a tag of a few bits, such
that the parent follows from the child and the tag, supplies :class:`Moves`:
a compiled kernel that expands states into keys ``child << tag_bits | tag``
and an inline function that turns a key back into its parent. A level's keys
then sort with numpy's plain ``np.sort`` (a SIMD sort, about ten times quicker
than the ``argsort`` that :func:`bfs.step` needs to carry parents along), and
one compiled pass (:func:`resolve`) keeps the unique children with the
smallest parent of each, minus those in the excluded levels: the very rows
of :func:`bfs.step`.

Sorting keys sorts children, so keys split into child ranges like children do
(bucketed.py spills keys, 8 bytes a move instead of 16).

Like bfs.py it knows no puzzle: the kernels come with the puzzle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from pipeline.bfs import States, absent

_EMPTY = np.empty(0, np.uint64)


@dataclass(frozen=True)
class Moves:
    """A puzzle's moves as compiled kernels.

    ``expand(states, skip, args)`` returns the keys of every move out of
    ``states`` (any order), leaving out a child equal to ``skip[i]`` when
    ``skip`` is not empty; ``undo(key, args)`` returns the parent a key came
    from (called inside the compiled resolve pass, so it must be ``@njit``).
    """

    tag_bits: int
    expand: Any
    undo: Any
    args: tuple[Any, ...]

    def keys(self, states: States, skip: States | None = None) -> States:
        """The keys of every move out of ``states``, unsorted.

        ``skip`` (the parents of ``states``, row for row) drops each move back
        to a parent: such a child always sits at a smaller depth.
        """
        return self.expand(states, _EMPTY if skip is None else skip, self.args)

    def children(self, keys: States) -> States:
        """The child states of some keys (sorted keys give sorted children)."""
        return keys >> np.uint64(self.tag_bits)

    def resolve(self, keys: States, exclude: tuple[States, ...] = ()) -> tuple[States, States]:
        """Sorted keys to (unique children, smallest parent of each), minus ``exclude``.

        ``exclude`` holds sorted arrays of states (the levels the graph needs):
        the compiled pass merges two, any further ones are looked up after.
        """
        ex = [*exclude, _EMPTY, _EMPTY]
        children, parents = _resolve(
            keys, np.uint64(self.tag_bits), ex[0], ex[1], self.undo, self.args
        )
        for done in exclude[2:]:
            keep = absent(children, done)
            children, parents = children[keep], parents[keep]
        return children, parents


@njit(nogil=True)
def _resolve(keys, shift, ex_a, ex_b, undo, args):
    n = len(keys)
    distinct = 0
    last = np.uint64(0)
    for i in range(n):
        c = keys[i] >> shift
        distinct += (i == 0) | (c != last)
        last = c
    children = np.empty(distinct, np.uint64)
    parents = np.empty(distinct, np.uint64)
    m = 0
    a = 0
    b = 0
    na = len(ex_a)
    nb = len(ex_b)
    i = 0
    while i < n:
        c = keys[i] >> shift
        p = undo(keys[i], args)
        i += 1
        while i < n and (keys[i] >> shift) == c:
            q = undo(keys[i], args)
            if q < p:
                p = q
            i += 1
        while a < na and ex_a[a] < c:
            a += 1
        while b < nb and ex_b[b] < c:
            b += 1
        children[m] = c
        parents[m] = p
        m += not ((a < na and ex_a[a] == c) or (b < nb and ex_b[b] == c))
    return children[:m], parents[:m]
