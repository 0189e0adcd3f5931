"""A table as a whole: its histogram, its numbers, its deepest positions."""

from __future__ import annotations

from pipeline import hints
from pipeline.answers import DepthCount, Histogram, Listed, Summary
from pipeline.errors import NotBuilt
from pipeline.puzzles.base import Puzzle
from pipeline.service.folder import Folder


def listing(folder: Folder) -> list[Listed]:
    """Every puzzle known here (built-ins, the specs kept here, every table built),
    each with its table's positions or the line saying why its table is damaged."""
    sound, broken = folder.tables()
    rows = []
    for p in folder.listed():
        m = sound[p.name].manifest if p.name in sound else None
        rows.append(
            Listed(
                p.name,
                p.title,
                str(p.graph),
                str(p.origin),
                p.default,
                p.derived,
                None if m is None else m.total,
                None if m is None else m.partial_depth,
                broken.get(p.name),
            )
        )
    return rows


def histogram(folder: Folder, p: Puzzle) -> Histogram:
    """Positions at every depth; on a table of symmetry classes each level also gives
    the positions of the whole board its classes stand for."""
    table = folder.table(p)
    levels = table.histogram()
    sums = table.orbit_sums()
    orbits: list[int | None] = [None] * len(levels) if sums is None else list(sums)
    counts = [DepthCount(d, n, o) for (d, n), o in zip(levels, orbits, strict=True)]
    return Histogram(p.name, counts)


def summary(folder: Folder, p: Puzzle) -> Summary:
    """The table's numbers (its manifest's, the files checked against it)."""
    table = folder.table(p)
    m = table.manifest
    orbits = table.orbit_sums()
    return Summary(
        p.name,
        m.puzzle["title"],
        m.total,
        m.max_depth,
        m.max_depth_positions,
        float(m.build.get("seconds", 0.0)),
        sum(f.bytes for f in m.files),
        p.derived,
        m.partial_depth,
        None if orbits is None else sum(orbits),
    )


def deepest(
    folder: Folder, p: Puzzle, limit: int | None = None, distinct: bool = True
) -> list[int]:
    """The states of the deepest level built, in state order, at most ``limit``;
    ``distinct``: one per typed text (a moves board's last-jump variants print alike)."""
    table = folder.table(p)
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


def longest(folder: Folder, p: Puzzle, limit: int | None = None) -> list[int]:
    """The positions farthest from the roots; NotBuilt on a table of the first levels
    only, whose deepest positions are not known."""
    table = folder.table(p)
    if table.manifest.partial_depth is not None:
        raise NotBuilt(partial_line(folder, p))
    return deepest(folder, p, limit, distinct=False)


def partial_line(folder: Folder, p: Puzzle) -> str:
    """Why a partial table has no longest positions, and what two more levels would
    cost (the last level's growth, twice): never "build it all" on a 10^13 board."""
    name = p.name
    table = folder.table(p)
    m, levels = table.manifest, [n for _, n in table.histogram()]
    depth, last = m.partial_depth or m.max_depth, levels[-1]
    growth = last / levels[-2] if len(levels) > 1 and levels[-2] else 1.0
    more = m.total + last * (growth + growth * growth)
    whole = p.expected_total
    of = f" of the whole board's {whole:,}" if whole else ""
    return (
        f"{name} holds the first levels only (depths 0..{depth}: {m.total:,} positions{of}): "
        f"its longest positions are not known; its deepest level built, depth {depth}, holds "
        f"{last:,}; two more levels: {hints.build(f'{name} --max-depth {depth + 2}', folder.data)}"
        f" (about {_rounded(more)} positions)"
    )


def _rounded(n: float) -> str:
    """``n`` to two significant figures, with thousands separators: ``62,000``."""
    digits = max(len(str(int(n))) - 2, 0)
    return f"{round(int(n), -digits):,}"
