"""The reference search: whole levels in memory, the executable specification.

Every executor must give exactly the rows :func:`search` gives (tests compare
them). It is also how small searches run where no table is written (tests,
independent counts).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from pipeline.engine.core import (
    NO_PARENT,
    Expander,
    Graph,
    Level,
    States,
    excluded_depths,
    merge_sorted,
    resolve_sorted,
    unique,
)


def step(
    frontier: States, expand: Expander, exclude: Sequence[States] = ()
) -> tuple[States, States]:
    """Expand a sorted chunk of states into its new children and their parents.

    Pure: the result depends only on the arguments, so the same function serves
    a whole level, a range of one, or a worker of a distributed engine.
    Returns the children sorted and unique, minus those in any array of
    ``exclude`` (each sorted), and for each child its smallest parent.
    """
    children, parents, _ = step_counted(frontier, expand, exclude)
    return children, parents


def step_counted(
    frontier: States,
    expand: Expander,
    exclude: Sequence[States] = (),
    weights: States | None = None,
) -> tuple[States, States, States | None]:
    """:func:`step`, and with ``weights`` (one per frontier state) their sums per child.

    With the path counts of the frontier as weights the sums are the path
    counts of the children.
    """
    src, child = expand(frontier)
    order = np.argsort(child)  # the smallest parent is a minimum: no stability needed
    src = src[order]
    w = weights[src] if weights is not None else None
    children, first, sums = resolve_sorted(child[order], src, w, exclude)
    return children, frontier[first], sums


def close(level: Level, expand_free: Expander, exclude: Sequence[States]) -> Level:
    """Close a level under its zero-cost moves (the 0-1 BFS inner loop).

    Rounds run until nothing new appears; a state found in round r+1 keeps its
    smallest parent among round r, so walking parents never cycles.
    """
    parts = [level]
    current = level.states
    inside = level.states
    while len(current):
        children, parents = step(current, expand_free, [*exclude, inside])
        if len(children) == 0:
            break
        parts.append(Level(level.depth, children, parents))
        inside = merge_sorted(inside, children)
        current = children
    if len(parts) == 1:
        return Level(level.depth, level.states, level.parents)
    states = np.concatenate([p.states for p in parts])
    parents = np.concatenate([p.parents for p in parts])
    order = np.argsort(states)  # disjoint parts: no ties
    return Level(level.depth, states[order], parents[order])


def roots_level(roots: Sequence[int] | States, expand_free: Expander | None = None) -> Level:
    """Depth 0: the roots (sorted, without parents), closed under zero-cost moves."""
    states = unique(np.asarray(roots, dtype=np.uint64))
    level = Level(0, states, np.full(len(states), NO_PARENT, dtype=np.uint64))
    return close(level, expand_free, []) if expand_free else level


def search(
    roots: Sequence[int] | States,
    expand: Expander,
    graph: Graph,
    expand_free: Expander | None = None,
    counts: bool = False,
) -> Iterator[Level]:
    """Yield every level, depth 0 first, until a level comes out empty.

    Puzzles with zero-cost moves need ``Graph.GENERAL``: a state may be reached
    at a smaller depth along a longer run of free moves. With ``counts`` every
    level carries its path counts (roots count 1).
    """
    if expand_free is not None and graph is not Graph.GENERAL:
        raise ValueError("zero-cost moves need Graph.GENERAL (dedup against every level)")
    if counts and expand_free is not None:
        raise ValueError("path counts are not defined for boards with zero-cost moves")
    current = roots_level(roots, expand_free)
    if counts:
        current = Level(0, current.states, current.parents, np.ones(len(current), np.uint64))
    kept = {0: current.states}
    yield current
    while len(current):
        exclude = [kept[d] for d in excluded_depths(graph, current.depth)]
        children, parents, sums = step_counted(
            current.states, expand, exclude, current.counts if counts else None
        )
        level = Level(current.depth + 1, children, parents, sums)
        if expand_free is not None:
            level = close(level, expand_free, exclude)
        if len(level) == 0:
            return
        yield level
        kept[level.depth] = level.states
        needed = {level.depth, *excluded_depths(graph, level.depth)}
        kept = {d: s for d, s in kept.items() if d in needed}
        current = level
