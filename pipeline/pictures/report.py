"""One self-contained HTML page for a data folder (no scripts, no network: inline SVG and CSS).

Drawn from the service's answers (pipeline/service/), as every surface is.
For every built table: its numbers (positions, maximum depth, build time,
positions a second, bytes a position on disk), its positions per depth, and up
to 12 of its deepest positions drawn; then a solution or two drawn as strips;
last, the derived tables (pattern databases, made for a solver) with their
numbers and histograms only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pipeline import hints
from pipeline.answers import Summary
from pipeline.draw.svg import esc
from pipeline.errors import BadOutput, NotBuilt, PuzzleDBError
from pipeline.pictures import boards, charts, output
from pipeline.puzzles.base import Puzzle
from pipeline.service import tables, walks
from pipeline.service.folder import Folder
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


def html(folder: Folder) -> str:
    """The report page for the tables built under ``folder``: a damaged table gets
    its line where its section would be, and the others are drawn as ever."""
    found, failed = summaries(folder)
    shown = [s for s in found if not s.derived]
    derived = [s for s in found if s.derived]
    nav = " ".join(f'<a href="#t-{esc(s.puzzle)}">{esc(s.puzzle)}</a>' for s in shown)
    also = f" and {len(derived)} derived" if derived else ""
    parts = [
        "<header>",
        f"<h1>puzzledb: {plural(len(shown), 'table')}{also}</h1>",
        f'<p class="muted">data folder {esc(folder.data)}</p>',
        f'<nav>{nav} <a href="#solutions">solutions</a>'
        + (' <a href="#derived">derived tables</a>' if derived else "")
        + "</nav>",
        "</header><main>",
        _summary_table(shown),
        _refused(failed),
        *(_section(folder, s, _table_section) for s in shown),
        _solutions(folder, [s.puzzle for s in shown]),
        _derived_section(folder, derived),
        "</main>",
    ]
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>puzzledb report</title><style>{CSS}</style></head><body>"
    )
    return head + "\n".join(parts) + "\n</body></html>\n"


def write(folder: Folder, out: Path) -> Path:
    """Write ``out/report.html`` (the folder is made when missing, before the page is drawn)."""
    summaries(folder)  # nothing built: say so before making a folder
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadOutput(f"cannot write to {out}: {e.strerror or e}") from None
    return output.write(out / REPORT, html(folder))


def summaries(folder: Folder) -> tuple[list[Summary], list[tuple[str, str]]]:
    """The built tables' numbers, and (table, why) for each one refused; NotBuilt when
    there is no table at all."""
    found: list[Summary] = []
    sound, broken = folder.tables()
    failed = list(broken.items())
    for name, t in sound.items():
        try:
            found.append(tables.summary(folder, t.puzzle))
        except PuzzleDBError as e:
            failed.append((name, _line(e)))
    if not found and not failed:
        raise NotBuilt(
            f"no tables built in {folder.data}: run {hints.command('build --default', folder.data)}"
        )
    return found, sorted(failed)


def _line(e: PuzzleDBError) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _refused(failed: list[tuple[str, str]]) -> str:
    """The tables that cannot be read, each with the line that says why."""
    if not failed:
        return ""
    items = "".join(
        f'<li data-table="{esc(n)}"><b>{esc(n)}</b>: {esc(why)}</li>' for n, why in failed
    )
    return f'<section id="refused"><h2>Tables that cannot be read</h2><ul>{items}</ul></section>'


def _section(folder: Folder, s: Summary, draw: Callable[[Folder, Summary], str]) -> str:
    """A table's section, or the line that says why it cannot be drawn."""
    try:
        return draw(folder, s)
    except PuzzleDBError as e:
        return (
            f'<section class="table" id="t-{esc(s.puzzle)}" data-table="{esc(s.puzzle)}">'
            f'<h2>{esc(s.puzzle)}</h2><p class="error">{esc(_line(e))}</p></section>'
        )


def _summary_table(found: list[Summary]) -> str:
    return f'<section id="summary"><h2>Summary</h2>{_numbers(found)}</section>'


def _numbers(found: list[Summary]) -> str:
    """The tables' numbers, a row a table."""
    head = (
        "<tr><th>table</th><th>positions</th><th>max depth</th><th>at max depth</th>"
        "<th>build s</th><th>positions/s</th><th>bytes/position</th></tr>"
    )
    rows = "".join(
        f'<tr data-table="{esc(s.puzzle)}"><td><a href="#t-{esc(s.puzzle)}">{esc(s.puzzle)}</a>'
        f"</td><td>{s.positions:,}</td><td>{s.max_depth}</td><td>{s.at_max:,}</td>"
        f"<td>{s.seconds:.2f}</td><td>{s.rate:,.0f}</td><td>{s.bytes_per_position:.2f}</td></tr>"
        for s in found
    )
    return f'<div class="scroll"><table>{head}{rows}</table></div>'


def _puzzle(folder: Folder, name: str) -> Puzzle:
    """The puzzle of the sound table ``name`` (the report draws built tables only)."""
    return folder.tables()[0][name].puzzle


def _chart(folder: Folder, name: str) -> str:
    return charts.svg(charts.histogram([tables.histogram(folder, _puzzle(folder, name))]))


def _title(s: Summary) -> str:
    """The table's title and counts (a table of classes: the positions they stand for)."""
    whole = "" if s.orbit_positions is None else f" ({s.orbit_positions:,} positions)"
    rows = "classes" if s.orbit_positions is not None else "positions"
    return f"{esc(s.title)}: {s.positions:,} {rows}{whole}"


def _table_section(folder: Folder, s: Summary) -> str:
    parts = [
        f'<section class="table" id="t-{esc(s.puzzle)}" data-table="{esc(s.puzzle)}">',
        f"<h2>{esc(s.puzzle)}</h2><p>{_title(s)}</p>",
        f'<div class="chart">{_chart(folder, s.puzzle)}</div>',
        _deepest_boards(folder, s),
        "</section>",
    ]
    return "\n".join(parts)


def _derived_section(folder: Folder, found: list[Summary]) -> str:
    """The tables made for a solver, last: their numbers and histograms, no boards."""
    if not found:
        return ""
    parts = [
        '<section id="derived"><h2>Derived tables</h2>',
        "<p>Made for a solver, not for reading: pattern databases, which "
        "<code>solve --method optimal</code> builds and reads (<code>puzzledb list --all"
        "</code> lists them).</p>",
        _numbers(found),
        *(_section(folder, s, _derived_table) for s in found),
    ]
    return "\n".join([*parts, "</section>"])


def _derived_table(folder: Folder, s: Summary) -> str:
    return (
        f'<section class="derived-table" id="t-{esc(s.puzzle)}" data-table="{esc(s.puzzle)}">'
        f"<h3>{esc(s.puzzle)}</h3><p>{_title(s)}</p>"
        f'<div class="chart">{_chart(folder, s.puzzle)}</div></section>'
    )


def _deepest_boards(folder: Folder, s: Summary) -> str:
    p = _puzzle(folder, s.puzzle)
    states = tables.deepest(folder, p, DEEPEST)
    shown = "all shown" if len(states) == s.at_max else f"{len(states)} shown"
    figures = "".join(f"<figure>{boards.board(p, st)}</figure>" for st in states)
    title = "The deepest positions"
    if s.partial_depth is not None:  # build --max-depth: not the deepest
        title = "The positions of the last level built (the first levels only)"
    return (
        f"<h3>{title}</h3><p>{_positions(s.at_max)} at depth {s.max_depth} "
        f'({shown})</p><div class="boards">{figures}</div>'
    )


def _positions(n: int) -> str:
    return "1 position" if n == 1 else f"{n:,} positions"


def _solutions(folder: Folder, built: list[str]) -> str:
    parts = ['<section id="solutions"><h2>Solutions</h2>']
    for group in SOLUTIONS:
        name = next((n for n in group if n in built), None)
        if name is not None:
            parts.append(_solution(folder, name))
    if len(parts) == 1:
        parts.append('<p class="muted">Build 3x3, hex6 or knight14 to see a solution here.</p>')
    return "\n".join([*parts, "</section>"])


def _solution(folder: Folder, name: str) -> str:
    """The first deepest position of ``name``, solved and drawn as a strip."""
    try:
        p = _puzzle(folder, name)
        start = tables.deepest(folder, p, 1)[0]
        sol = walks.solve(folder, p, start)
    except PuzzleDBError as e:
        return f'<div class="solution" data-table="{esc(name)}"><p>{esc(_line(e))}</p></div>'
    what = (
        f"an optimal solution of {p.text(start)} ({sol.moves} moves)"
        if sol.origin.towards
        else f"a shortest line from the start to {p.text(start)} ({sol.moves} moves)"
    )
    figures = "".join(f"<figure>{svg}</figure>" for svg in boards.figures(p, sol.line))
    return (
        f'<div class="solution" data-table="{esc(name)}"><h3>{esc(name)}: {esc(what)}</h3>'
        f'<div class="boards">{figures}</div></div>'
    )
