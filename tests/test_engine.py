"""The engine on its own: graph kinds, chunking, determinism and zero-cost moves."""

from __future__ import annotations

import heapq

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.engine import reference
from pipeline.engine.core import NO_PARENT, Expander, Graph, Level
from pipeline.puzzles import registry as puzzles


def table_expander(edges: dict[int, list[int]]) -> Expander:
    """An expander over an explicit adjacency list (for made-up graphs)."""

    def expand(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        src = [i for i, s in enumerate(states.tolist()) for _ in edges.get(s, [])]
        dst = [c for s in states.tolist() for c in edges.get(s, [])]
        return np.array(src, dtype=np.intp), np.array(dst, dtype=np.uint64)

    return expand


def dijkstra(n: int, ones: dict[int, list[int]], zeros: dict[int, list[int]], root: int) -> dict:
    dist = {root: 0}
    heap = [(0, root)]
    while heap:
        d, s = heapq.heappop(heap)
        if d > dist[s]:
            continue
        for cost, edges in ((1, ones), (0, zeros)):
            for c in edges.get(s, []):
                if d + cost < dist.get(c, 1 << 30):
                    dist[c] = d + cost
                    heapq.heappush(heap, (d + cost, c))
    return dist


def rows(levels: list[Level]) -> list[tuple[int, int, int]]:
    return [
        (int(s), lv.depth, int(p))
        for lv in levels
        for s, p in zip(lv.states, lv.parents, strict=True)
    ]


def test_declared_graph_gives_the_same_rows_as_general_search() -> None:
    # Checking a new level against fewer levels (Korf's frontier search) must
    # not change a single row.
    for name in ("oshidori", "hex6", "2x4", "3x3"):
        p = puzzles.get(name)
        declared = rows(list(reference.search(p.roots(), p.expand, p.graph)))
        general = rows(list(reference.search(p.roots(), p.expand, Graph.GENERAL)))
        assert declared == general, name


def test_oshidori_is_not_bipartite() -> None:
    # Searched as if bipartite, states reappear: the declared kind matters.
    p = puzzles.get("oshidori")
    wrong = rows(list(reference.search(p.roots(), p.expand, Graph.BIPARTITE)))
    assert len(wrong) > 140
    assert len({s for s, _, _ in wrong}) == 140


def test_step_on_chunks_equals_step_on_the_whole() -> None:
    # The level step is pure: buckets of a frontier give the same children
    # and smallest parents once merged (what bucketed levels will rely on).
    p = puzzles.get("3x3")
    levels = list(reference.search(p.roots(), p.expand, p.graph))
    prev, frontier = levels[14], levels[15]
    whole = reference.step(frontier.states, p.expand, [prev.states])
    kids, parents = [], []
    for chunk in np.array_split(frontier.states, 7):
        k, q = reference.step(chunk, p.expand, [prev.states])
        kids.append(k)
        parents.append(q)
    k = np.concatenate(kids)
    q = np.concatenate(parents)
    order = np.lexsort((q, k))
    k, q = k[order], q[order]
    first = np.concatenate(([True], k[1:] != k[:-1]))
    assert np.array_equal(k[first], whole[0])
    assert np.array_equal(q[first], whole[1])
    assert np.array_equal(whole[0], levels[16].states)


def test_parent_is_the_smallest_predecessor() -> None:
    p = puzzles.get("2x4")
    levels = list(reference.search(p.roots(), p.expand, p.graph))
    for d in (5, 20, 30):
        up, here = levels[d - 1], levels[d]
        src, child = p.expand(up.states)
        # Brute force: for every child in this level, the minimum parent state.
        best: dict[int, int] = {}
        for s, c in zip(up.states[src].tolist(), child.tolist(), strict=True):
            if c not in best or s < best[c]:
                best[c] = s
        got = dict(zip(here.states.tolist(), here.parents.tolist(), strict=True))
        assert got == {c: best[c] for c in got}


def test_two_searches_are_identical() -> None:
    p = puzzles.get("3x3")
    a = list(reference.search(p.roots(), p.expand, p.graph))
    b = list(reference.search(p.roots(), p.expand, p.graph))
    assert all(
        np.array_equal(x.states, y.states) and np.array_equal(x.parents, y.parents)
        for x, y in zip(a, b, strict=True)
    )


def test_zero_cost_moves_on_a_made_up_graph() -> None:
    # 0 -1-> 1 -1-> 2 -1-> 3, and free moves 0 -> 5 -> 6 -> 3, 1 -> 4.
    ones = {0: [1], 1: [2], 2: [3], 6: [7]}
    zeros = {0: [5], 5: [6], 6: [3], 1: [4]}
    levels = list(
        reference.search(
            [0], table_expander(ones), Graph.GENERAL, expand_free=table_expander(zeros)
        )
    )
    got = {s: (d, None if p == int(NO_PARENT) else p) for s, d, p in rows(levels)}
    assert got == {
        0: (0, None),
        5: (0, 0),  # a parent at the same depth
        6: (0, 5),
        3: (0, 6),  # three free moves beat three paid ones
        1: (1, 0),
        4: (1, 1),
        7: (1, 6),
        2: (2, 1),
    }


def test_zero_cost_moves_need_a_general_graph() -> None:
    import pytest

    with pytest.raises(ValueError, match="GENERAL"):
        list(reference.search([0], table_expander({}), Graph.BIPARTITE, table_expander({})))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2, max_value=25).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n),
        )
    )
)
def test_zero_one_bfs_matches_dijkstra(graph: tuple) -> None:
    n, one_edges, zero_edges = graph
    ones: dict[int, list[int]] = {}
    zeros: dict[int, list[int]] = {}
    for a, b in one_edges:
        ones.setdefault(a, []).append(b)
    for a, b in zero_edges:
        zeros.setdefault(a, []).append(b)
    levels = list(
        reference.search(
            [0], table_expander(ones), Graph.GENERAL, expand_free=table_expander(zeros)
        )
    )
    found = rows(levels)
    dist = dijkstra(n, ones, zeros, 0)
    assert {s: d for s, d, _ in found} == dist
    assert len(found) == len(dist)  # each state once
    depth = {s: d for s, d, _ in found}
    for s, d, p in found:
        if p == int(NO_PARENT):
            assert s == 0
        elif depth[p] == d:
            assert s in zeros.get(p, [])
        else:
            assert depth[p] == d - 1 and s in ones.get(p, [])
    # Walking parents always ends at the root (no cycles among free moves).
    parent = {s: p for s, _, p in found}
    for s in parent:
        seen = set()
        while parent[s] != int(NO_PARENT):
            assert s not in seen
            seen.add(s)
            s = parent[s]
