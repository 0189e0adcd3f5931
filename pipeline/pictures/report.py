"""One self-contained HTML page for a data folder (no scripts, no network: inline SVG and CSS).

For every built table: its numbers (positions, maximum depth, build time,
positions a second, bytes a position on disk), its positions per depth, and up
to 12 of its deepest positions drawn; then a solution or two drawn as strips;
last, the derived tables (pattern databases, made for a solver) with their
numbers and histograms only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import hints
from pipeline.draw.svg import esc
from pipeline.errors import BadOutput, NotBuilt, PuzzleDBError
from pipeline.pictures import boards, charts, output
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.base import Puzzle
from pipeline.storage.manifest import Manifest
from pipeline.storage.table import Table
from pipeline.words import plural

REPORT = "report.html"
DEEPEST = 12
#: The tables whose deepest position is drawn solved, the first built of each group.
SOLUTIONS = (("3x3", "hex6", "2x4", "2x3", "2x5"), ("knight14",))

CSS = """
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, 'DejaVu Sans', sans-serif; color: #212121; margin: 0;
  background: #fafafa; }
header, main { max-width: 1100px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 20px; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.25em; margin: 28px 0 4px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 1em; margin: 16px 0 4px; }
p { margin: 4px 0 8px; }
nav a { margin-right: 10px; white-space: nowrap; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e0e0e0; text-align: right;
  white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
figure { margin: 0; }
.chart svg { width: 100%; height: auto; max-width: 640px; display: block; }
.boards { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.boards svg { max-width: 100%; height: auto; display: block; }
.muted { color: #666; }
@media (max-width: 600px) {
  body { font-size: 14px; }
  th, td { padding: 3px 5px; }
  th { white-space: normal; }
}
"""


@dataclass(frozen=True)
class Summary:
    """The numbers of one built table, from its manifest."""

    name: str
    title: str
    positions: int
    max_depth: int
    at_max: int
    seconds: float
    bytes: int
    derived: bool = False

    @property
    def rate(self) -> float:
        return self.positions / self.seconds if self.seconds else 0.0

    @property
    def bytes_per_position(self) -> float:
        return self.bytes / self.positions if self.positions else 0.0


def summary(m: Manifest) -> Summary:
    return Summary(
        m.table,
        m.puzzle["title"],
        m.total,
        m.max_depth,
        m.max_depth_positions,
        float(m.build.get("seconds", 0.0)),
        sum(f.bytes for f in m.files),
        puzzles.derived(m.table),
    )


def deepest(table: Table, puzzle: Puzzle, limit: int = DEEPEST) -> list[int]:
    """Up to ``limit`` positions of the deepest level, in state order (one per typed text)."""
    out: list[int] = []
    seen: set[str] = set()
    for states, _, _ in table.level(table.max_depth).chunks(1 << 16):
        for s in states.tolist():
            text = puzzle.text(s)
            if text not in seen:
                seen.add(text)
                out.append(int(s))
            if len(out) == limit:
                return out
    return out


def html(db: Any) -> str:
    """The report page for the tables built under ``db.data``."""
    found = summaries(db)
    shown = [s for s in found if not s.derived]
    derived = [s for s in found if s.derived]
    nav = " ".join(f'<a href="#t-{esc(s.name)}">{esc(s.name)}</a>' for s in shown)
    also = f" and {len(derived)} derived" if derived else ""
    parts = [
        "<header>",
        f"<h1>puzzledb: {plural(len(shown), 'table')}{also}</h1>",
        f'<p class="muted">data folder {esc(db.data)}</p>',
        f'<nav>{nav} <a href="#solutions">solutions</a>'
        + (' <a href="#derived">derived tables</a>' if derived else "")
        + "</nav>",
        "</header><main>",
        _summary_table(shown),
        *(_table_section(db, s) for s in shown),
        _solutions(db, [s.name for s in shown]),
        _derived_section(db, derived),
        "</main>",
    ]
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>puzzledb report</title><style>{CSS}</style></head><body>"
    )
    return head + "\n".join(parts) + "\n</body></html>\n"


def write(db: Any, out: Path) -> Path:
    """Write ``out/report.html`` (the folder is made when missing, before the page is drawn)."""
    summaries(db)  # nothing built: say so before making a folder
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadOutput(f"cannot write to {out}: {e.strerror or e}") from None
    return output.write(out / REPORT, html(db))


def summaries(db: Any) -> list[Summary]:
    """The built tables' numbers; NotBuilt when there are none."""
    from pipeline.query import catalog

    found = [summary(m) for m in catalog.manifests(db.data)]
    if not found:
        raise NotBuilt(
            f"no tables built in {db.data}: run {hints.command('build --default', db.data)}"
        )
    return found


def _summary_table(found: list[Summary]) -> str:
    return f'<section id="summary"><h2>Summary</h2>{_numbers(found)}</section>'


def _numbers(found: list[Summary]) -> str:
    """The tables' numbers, a row a table."""
    head = (
        "<tr><th>table</th><th>positions</th><th>max depth</th><th>at max depth</th>"
        "<th>build s</th><th>positions/s</th><th>bytes/position</th></tr>"
    )
    rows = "".join(
        f'<tr data-table="{esc(s.name)}"><td><a href="#t-{esc(s.name)}">{esc(s.name)}</a></td>'
        f"<td>{s.positions:,}</td><td>{s.max_depth}</td><td>{s.at_max:,}</td>"
        f"<td>{s.seconds:.2f}</td><td>{s.rate:,.0f}</td><td>{s.bytes_per_position:.2f}</td></tr>"
        for s in found
    )
    return f'<div class="scroll"><table>{head}{rows}</table></div>'


def _table_section(db: Any, s: Summary) -> str:
    fig = charts.histogram([charts.Series(s.name, db.histogram(s.name).rows())])
    chart = charts.svg(fig)
    parts = [
        f'<section class="table" id="t-{esc(s.name)}" data-table="{esc(s.name)}">',
        f"<h2>{esc(s.name)}</h2><p>{esc(s.title)}: {s.positions:,} positions</p>",
        f'<div class="chart">{chart}</div>',
        _deepest_boards(db, s),
        "</section>",
    ]
    return "\n".join(parts)


def _derived_section(db: Any, found: list[Summary]) -> str:
    """The tables made for a solver, last: their numbers and histograms, no boards."""
    if not found:
        return ""
    parts = [
        '<section id="derived"><h2>Derived tables</h2>',
        "<p>Made for a solver, not for reading: pattern databases, which "
        "<code>solve --method optimal</code> builds and reads (<code>puzzledb list --all"
        "</code> lists them).</p>",
        _numbers(found),
    ]
    for s in found:
        chart = charts.svg(charts.histogram([charts.Series(s.name, db.histogram(s.name).rows())]))
        parts.append(
            f'<section class="derived-table" id="t-{esc(s.name)}" data-table="{esc(s.name)}">'
            f"<h3>{esc(s.name)}</h3><p>{esc(s.title)}: {s.positions:,} positions</p>"
            f'<div class="chart">{chart}</div></section>'
        )
    return "\n".join([*parts, "</section>"])


def _deepest_boards(db: Any, s: Summary) -> str:
    try:
        p = puzzles.get(s.name)
    except PuzzleDBError:
        return f'<p class="muted">{esc(s.name)} is not a puzzle this puzzledb knows.</p>'
    table = db.table(s.name)
    states = deepest(table, p)
    shown = "all shown" if len(states) == s.at_max else f"{len(states)} shown"
    figures = "".join(f"<figure>{boards.board(p, st)}</figure>" for st in states)
    title = "The deepest positions"
    if table.manifest.partial_depth is not None:  # build --max-depth: not the deepest
        title = "The positions of the last level built (the first levels only)"
    return (
        f"<h3>{title}</h3><p>{_positions(s.at_max)} at depth {s.max_depth} "
        f'({shown})</p><div class="boards">{figures}</div>'
    )


def _positions(n: int) -> str:
    return "1 position" if n == 1 else f"{n:,} positions"


def _solutions(db: Any, built: list[str]) -> str:
    parts = ['<section id="solutions"><h2>Solutions</h2>']
    for group in SOLUTIONS:
        name = next((n for n in group if n in built), None)
        if name is not None:
            parts.append(_solution(db, name))
    if len(parts) == 1:
        parts.append('<p class="muted">Build 3x3, hex6 or knight14 to see a solution here.</p>')
    return "\n".join([*parts, "</section>"])


def _solution(db: Any, name: str) -> str:
    """The first deepest position of ``name``, solved and drawn as a strip."""
    p = puzzles.get(name)
    start = deepest(db.table(name), p, 1)[0]
    sol = db.solve(name, start)
    line = sol.states if sol.origin != "start" else sol.states[::-1]
    what = (
        f"an optimal solution of {p.text(start)} ({sol.moves} moves)"
        if sol.origin != "start"
        else f"a shortest line from the start to {p.text(start)} ({sol.moves} moves)"
    )
    figures = "".join(f"<figure>{svg}</figure>" for svg in boards.figures(p, line))
    return (
        f'<div class="solution" data-table="{esc(name)}"><h3>{esc(name)}: {esc(what)}</h3>'
        f'<div class="boards">{figures}</div></div>'
    )
