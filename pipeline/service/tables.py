"""A table as a whole: its histogram, its numbers, its deepest positions."""

from __future__ import annotations

from pipeline import hints
from pipeline.answers import DepthCount, Histogram, Summary
from pipeline.errors import NotBuilt
from pipeline.puzzles import registry
from pipeline.service.folder import Folder


def histogram(folder: Folder, name: str) -> Histogram:
    """Positions at every depth; on a table of symmetry classes each level also gives
    the positions of the whole board its classes stand for."""
    table = folder.table(name)
    levels = table.histogram()
    orbits = table.orbit_sums() or [None] * len(levels)
    return Histogram(name, [DepthCount(d, n, o) for (d, n), o in zip(levels, orbits, strict=True)])


def summary(folder: Folder, name: str) -> Summary:
    """The table's numbers (its manifest's, the files checked against it)."""
    table = folder.table(name)
    m = table.manifest
    orbits = table.orbit_sums()
    return Summary(
        name,
        m.puzzle["title"],
        m.total,
        m.max_depth,
        m.max_depth_positions,
        float(m.build.get("seconds", 0.0)),
        sum(f.bytes for f in m.files),
        registry.derived(name),
        m.partial_depth,
        None if orbits is None else sum(orbits),
    )


def deepest(
    folder: Folder, name: str, limit: int | None = None, distinct: bool = True
) -> list[int]:
    """The states of the deepest level built, in state order, at most ``limit``;
    ``distinct``: one per typed text (a moves board's last-jump variants print alike)."""
    table = folder.table(name)
    p = folder.puzzle(name)
    out: list[int] = []
    seen: set[str] = set()
    for states, _, _ in table.level(table.max_depth).chunks(1 << 16):
        for s in states.tolist():
            text = p.text(s) if distinct else str(s)
            if text not in seen:
                seen.add(text)
                out.append(int(s))
            if len(out) == limit:
                return out
    return out


def longest(folder: Folder, name: str, limit: int | None = None) -> list[int]:
    """The positions farthest from the roots; NotBuilt on a table of the first levels
    only, whose deepest positions are not known."""
    partial = folder.table(name).manifest.partial_depth
    if partial is not None:
        more = hints.build(f"{name} --max-depth {partial + 10}", folder.data)
        raise NotBuilt(
            f"{name} holds the first levels only (to depth {partial}): its longest "
            f"positions are not known yet; build more levels with {more}"
        )
    return deepest(folder, name, limit, distinct=False)
