"""The explorer's HTML pages: the documents of documents.py drawn with the project's SVG pictures.

Every text from a request or a table is escaped; nothing is loaded from outside the machine.
"""

from __future__ import annotations

import json
from html import escape
from urllib.parse import quote

from pipeline.serve.documents import MoveDoc, PositionDoc, TableDoc

STYLE = """
body{font-family:sans-serif;margin:1em auto;max-width:60em;padding:0 .5em}
a{color:#1a5fb4} table{border-collapse:collapse} td,th{padding:.2em .6em;text-align:right}
table.tables{width:100%} table.tables td:last-child{width:60%}
@media (max-width:30em){td,th{padding:.2em .25em} table.tables th{font-size:85%}}
.bars{display:flex;align-items:flex-end;height:2.5em;gap:1px}
.bars span{background:#1a5fb4;flex:0 1 4px;min-width:1px}
.nearer{background:#c8f0c8} .same{background:#f0f0c0} .farther{background:#f6c8c8}
.won{background:#c8f0c8} .lost{background:#f6c8c8} .unknown{background:#eee}
.board svg{max-width:100%;height:auto} .strip svg{max-width:100%;height:auto}
.moves a{display:inline-block;margin:.15em;padding:.2em .5em;border-radius:.3em}
.moves a{text-decoration:none;color:#000} .moves a.cand{outline:3px solid #1a5fb4}
#board g.cell.target circle,#board g.cell.target rect{stroke:#1a5fb4;stroke-width:4}
"""

SCRIPT = """
document.addEventListener('keydown', function (e) {
  var m = document.querySelector('a[data-key="' + e.key + '"]');
  if (m) { window.location = m.href; }
});
(function () {
  var data = document.getElementById('moves');
  var moves = data ? JSON.parse(data.textContent) : [], pending = null;
  if (!moves.length) { return; }
  var note = document.getElementById('pick-note');
  var cells = document.querySelectorAll('#board g.cell');
  function has(list, s) { return list.indexOf(s) >= 0; }
  function mark(list) {
    cells.forEach(function (g) { g.classList.remove('target'); });
    document.querySelectorAll('a.move').forEach(function (a) { a.classList.remove('cand'); });
    (list || []).forEach(function (m) {
      document.querySelectorAll('a.move')[m.i].classList.add('cand');
      m.to.forEach(function (s) {
        var g = document.querySelector('#board g.cell[data-spot="' + s + '"]');
        if (g) { g.classList.add('target'); }
      });
    });
    note.textContent = list ? list.length + ' moves start there: click where it lands, ' +
      'or pick one below' : '';
  }
  function choose(list) {
    if (list.length === 1) { window.location = list[0].url; return true; }
    return false;
  }
  moves.forEach(function (m, i) { m.i = i; });
  cells.forEach(function (g) {
    g.style.cursor = 'pointer';
    g.addEventListener('click', function () {
      var s = Number(g.getAttribute('data-spot'));
      if (pending) {
        var land = pending.filter(function (m) { return has(m.to, s); });
        pending = null;
        mark(null);
        if (choose(land)) { return; }
      }
      var list = moves.filter(function (m) { return has(m.from, s); });
      if (!list.length) { list = moves.filter(function (m) { return has(m.to, s); }); }
      if (choose(list) || !list.length) { return; }
      pending = list;
      mark(list);
    });
  });
})();
(function () {
  var walk = document.getElementById('walk');
  if (walk && window.fetch && !/[?&]play=1/.test(window.location.search)) {
    fetch(walk.getAttribute('data-src')).then(function (r) { return r.text(); })
      .then(function (html) { walk.innerHTML = html; });
  }
})();
(function () {
  var best = document.getElementById('best');
  if (best && /[?&]play=1/.test(window.location.search)) {
    setTimeout(function () { window.location = best.href + '&play=1'; }, 700);
  }
})();
"""


#: The explorer's icon, inline (a request for /favicon.ico got a 404 in every log).
ICON = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 2 2'%3E"
    "%3Crect width='1' height='1' fill='%231a5fb4'/%3E%3Crect x='1' y='1' width='1' "
    "height='1' fill='%231a5fb4'/%3E%3C/svg%3E"
)


def page(title: str, body: str) -> str:
    """A whole page around ``body``."""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="{ICON}">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f'<p><a href="/">puzzledb explorer</a></p>{body}<script>{SCRIPT}</script></body></html>'
    )


def position_url(name: str, text: str) -> str:
    """The URL naming a table and a position (shareable)."""
    return f"/p/{quote(name, safe='')}?s={quote(text, safe='')}"


def table_url(name: str) -> str:
    return f"/t/{quote(name, safe='')}"


def error(status: int, line: str, retype: tuple[str, str] | None = None) -> str:
    """An error page: one line; with ``retype`` (a table, the text typed) the table's
    forms under it, the position as typed in its box, to mend and open again."""
    forms = _pick(*retype) if retype else ""
    return page(f"error {status}", f'<p class="error">{escape(line)}</p>{forms}')


def _bars(hist: list[dict[str, int]]) -> str:
    top = max((h["positions"] for h in hist), default=1) or 1
    spans = "".join(
        f'<span style="height:{max(1, round(100 * h["positions"] / top))}%" '
        f'title="depth {h["depth"]}: {h["positions"]:,}"></span>'
        for h in hist
    )
    return f'<div class="bars">{spans}</div>'


def _row(r: TableDoc) -> str:
    link = (
        f'<td style="text-align:left"><a href="{table_url(r["puzzle"])}">{escape(r["puzzle"])}</a>'
    )
    if "error" in r:
        return f'<tr>{link}</td><td colspan="3" class="error">{escape(r["error"])}</td></tr>'
    return (
        f"<tr>{link}</td><td>{r['positions']:,}</td><td>{r['max_depth']}</td>"
        f"<td>{_bars(r['histogram'])}</td></tr>"
    )


def _rows(rows: list[TableDoc]) -> str:
    cells = "".join(_row(r) for r in rows)
    head = "<tr><th>table</th><th>positions</th><th>deepest</th><th>histogram</th></tr>"
    return f'<table class="tables">{head}{cells}</table>'


def home(rows: list[TableDoc]) -> str:
    """Every built table; pattern databases in their own section."""
    own = [r for r in rows if not r["derived"]]
    derived = [r for r in rows if r["derived"]]
    body = "<h1>Built tables</h1>" + (_rows(own) if own else "<p>No table is built here.</p>")
    if derived:
        body += "<h2>Pattern databases (tables made for a solver)</h2>" + _rows(derived)
    return page("puzzledb explorer", body)


def _pick(name: str, typed: str = "") -> str:
    action = f"/pick/{quote(name, safe='')}"
    return (
        f'<form action="{action}"><label>depth <input name="depth" size="4"></label> '
        f'<label>n-th (blank: random) <input name="n" size="6"></label> '
        f"<button>show</button></form>"
        f'<form action="/p/{quote(name, safe="")}"><label>position '
        f'<input name="s" size="40" value="{escape(typed)}">'
        f"</label> <button>open</button></form>"
    )


def table(name: str, chart: str, log: bool, deepest: list[str]) -> str:
    """A table: its histogram, its deepest positions, a position to pick or type."""
    flip = "" if log else "?log=1"
    other = f'<a href="{table_url(name)}{flip}">{"linear" if log else "log"} scale</a>'
    links = "".join(f'<li><a href="{position_url(name, t)}">{escape(t)}</a></li>' for t in deepest)
    body = (
        f'<h1>{escape(name)}</h1>{_pick(name)}<div class="board">{chart}</div><p>{other}</p>'
        f"<h2>Deepest positions</h2><ul>{links}</ul>"
    )
    return page(name, body)


def _move(name: str, m: MoveDoc, key: str | None) -> str:
    depth = "not reachable" if m["depth"] is None else f"depth {m['depth']}"
    verdict = m["verdict"]
    if verdict == "by search":  # no table: no depth to show
        depth, verdict = "by search", "unknown"
    data = f' data-key="{key}"' if key else ""
    return (
        f'<a class="move {verdict}" href="{position_url(name, m["position"])}"{data} '
        f'data-depth="{m["depth"]}">{escape(m["move"] or m["position"])}: {depth}'
        f"{' (' + verdict + ')' if verdict != 'unknown' else ''}</a>"
    )


def position(answer: PositionDoc, board: str, keys: dict[str, str]) -> str:
    """A position: its board, depth, every move, and the walk to the goal or from the start."""
    name = answer["puzzle"]
    depth = "not reachable" if answer["depth"] is None else f"depth {answer['depth']}"
    moves = "".join(_move(name, m, keys.get(m["position"])) for m in answer["moves"])
    title = f'<a href="{table_url(name)}">{escape(name)}</a>'
    if "search" in answer:
        title, depth = escape(name), "no table: solved by search over its pattern tables"
    body = (
        f"<h1>{title}</h1>"
        f'<p class="pos">{escape(answer["position"])}</p><p class="depth">{depth}</p>'
        f"{_searched(answer)}{_properties(answer)}"
        f"{_classes(answer)}"
        f'<div class="board" id="board">{board}</div><h2>Moves</h2>{_note(answer)}'
        f'<p id="pick-note"></p><div class="moves">{moves or "no move"}</div>{_steps(answer)}'
        f"{_walk_slot(answer)}{_clicks(answer)}"
    )
    return page(f"{name}: {answer['caption']}", body)


def _searched(answer: PositionDoc) -> str:
    """A puzzle solved by search: the position's optimal solution, a link to its first
    move, and the pattern tables searched; or the line saying why there is none."""
    found = answer.get("search")
    if found is None:
        return ""
    if found["refused"] is not None:
        return f'<p class="error" id="search">{escape(found["refused"])}</p>'
    line = found["notation"] or ""
    first = next((m for m in answer["moves"] if line and m["move"] == line.split()[0]), None)
    step = (
        f' · <a id="best" href="{position_url(answer["puzzle"], first["position"])}">first move</a>'
        if first
        else ""
    )
    tables = ", ".join(
        f'<a href="{table_url(t)}">{escape(t)}</a>' for t in found["tables"]
    )  # fmt: skip
    return (
        f'<p class="search" id="search" data-moves="{found["moves"]}">optimal solution: '
        f"{found['moves']} moves{': ' + escape(line) if line else ''}{step}</p>"
        f'<p class="muted">searched over {tables} ({found["nodes"]:,} nodes)</p>'
    )


def _properties(answer: PositionDoc) -> str:
    """The position's properties in a line: solved at a goal, the family's own."""
    props = answer.get("properties") or {}
    words = ["solved"] if props.get("solved") else []
    words += [f"{k} {v}" for k, v in props.items() if k not in ("depth", "solved")]
    return f'<p class="props">{escape(", ".join(words))}</p>' if words else ""


def _classes(answer: PositionDoc) -> str:
    """What the board shows on a table of symmetry classes."""
    if not answer["classes"]:
        return ""
    typed = answer["typed"]
    also = f" You typed {escape(typed)}, an image of it." if typed else ""
    return (
        '<p class="classes">This table stores one position per symmetry class: the board '
        f"is the class's own (its smallest image), and each move leads to a class.{also}</p>"
    )


def _note(answer: PositionDoc) -> str:
    click = " Click a piece on the board to move it." if _clickable(answer) else ""
    if "search" in answer:
        return f"<p>Each move's position, solved by search when opened.{click}</p>"
    if answer["origin"] == "goal":
        return f"<p>Moves coloured nearer / same / farther from the goal.{click}</p>"
    if answer["winnable"]:
        return f"<p>Moves coloured won / lost by the {escape(answer['winnable'])} table.{click}</p>"
    return (
        f"<p>Every move goes one level deeper; no winnable table is built: depth alone.{click}</p>"
    )


def _steps(answer: PositionDoc) -> str:
    best = [m for m in answer["moves"] if m["verdict"] == "nearer"]
    if answer["origin"] == "goal" and best:
        url = position_url(answer["puzzle"], best[0]["position"])
        return (
            f'<p><a id="best" href="{url}">best move</a> · '
            f'<a id="play" href="{url}&amp;play=1">play to the goal</a></p>'
        )
    return ""


def _walk_title(answer: PositionDoc) -> str:
    return "The way to the goal" if answer["origin"] == "goal" else "The way here from the start"


def _walk_slot(answer: PositionDoc) -> str:
    """Where the walk's strip goes: fetched after the page (``/strip``), a link without
    JavaScript."""
    if not answer["depth"]:
        return ""
    url = "/strip/" + position_url(answer["puzzle"], answer["position"])[len("/p/") :]
    return (
        f'<div id="walk" data-src="{escape(url)}"><noscript><a href="{escape(url)}">'
        f"{_walk_title(answer)}</a></noscript></div>"
    )


def strip_part(answer: PositionDoc, strip: str) -> str:
    """The walk's strip under its title (a part of a page, or a page of its own)."""
    if not strip:
        return "<p>No walk to draw (over 60 moves, or none).</p>"
    return f'<h2>{_walk_title(answer)}</h2><div class="strip">{strip}</div>'


def _clickable(answer: PositionDoc) -> bool:
    """Whether clicks on the board can tell the moves apart: where a piece leaves and
    where it lands differ from move to move (not the cube's turns, nor which number
    the magic triangle places)."""
    spots = [(tuple(m["from"]), tuple(m["to"])) for m in answer["moves"]]
    return bool(spots) and all(a or b for a, b in spots) and len(set(spots)) == len(spots)


def _clicks(answer: PositionDoc) -> str:
    """The moves for the board's clicks: where each piece leaves and lands, and its URL
    (none where clicks cannot tell the moves apart)."""
    if not _clickable(answer):
        return ""
    name = answer["puzzle"]
    moves = [
        {"from": m["from"], "to": m["to"], "url": position_url(name, m["position"])}
        for m in answer["moves"]
    ]
    text = json.dumps(moves).replace("<", "\\u003c")
    return f'<script type="application/json" id="moves">{text}</script>'
