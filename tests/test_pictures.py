"""Pictures read back: boards encode their positions, charts their counts, the report its tables.

Every figure is read out of the SVG/HTML that was written (data attributes,
parsed with the standard library) and compared with the puzzle's own encoding
or the table's manifest.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

import pipeline
from pipeline.pictures import boards, charts
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.spec import parse as spec
from pipeline.storage.format import MANIFEST
from tests.conftest import run_cli

SVG = "{http://www.w3.org/2000/svg}"


def cells_of(node: ET.Element) -> dict[int, int]:
    """The (puzzle cell -> value) pairs a board's ``<g class="cell">`` elements carry."""
    out = {}
    for g in node.iter(f"{SVG}g"):
        if g.get("class") == "cell" and g.get("data-cell") is not None:
            out[int(g.get("data-cell"))] = int(g.get("data-value"))
    return out


def state_of(puzzle: str, node: ET.Element) -> int:
    """Re-encode the position a board drawing shows."""
    return state_of_puzzle(puzzles.get(puzzle), node)


def state_of_puzzle(p: Puzzle, node: ET.Element) -> int:
    found = cells_of(node)
    assert sorted(found) == list(range(p.cells.count)), "every cell drawn once"
    return p.cells.encode([found[i] for i in range(p.cells.count)])


def some_states(db: pipeline.Database, name: str, k: int = 6) -> list[int]:
    """A few states of a built table: its roots, its deepest level, and a middle level."""
    t = db.table(name)
    mid = t.max_depth // 2
    out: list[int] = []
    for level in t.levels():
        if level.depth in (0, mid, t.max_depth):
            out += [int(s) for s in level.states[:: max(1, len(level.states) // k)][:k]]
    return out


@pytest.mark.parametrize("name", [p.name for p in puzzles.defaults()])
def test_each_board_svg_encodes_its_position(db: pipeline.Database, name: str) -> None:
    p = puzzles.get(name)
    mask = (1 << (p.cells.bits * p.cells.count)) - 1  # the moves board keeps more bits
    for s in some_states(db, name):
        root = ET.fromstring(db.board_svg(name, s))
        assert state_of(name, root) == s & mask
        assert int(root.get("data-state")) == s and root.get("data-text") == p.text(s)


@pytest.mark.parametrize(
    ("name", "position"),
    [
        ("english33", "xxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxx"),
        ("triangle15@3", "xxx.xxxxxxxxxxx"),
        ("4x4", "13 6 8 12 15 14 0 10 11 7 4 5 9 1 3 2"),
        ("3x4", "8 3 2 9 4 7 6 10 0 11 5 1"),
        ("4x4-pdb-6a", "0 1 4 5 8 9 15"),
        ("4x4-pdb-3", "14 3 7 0"),
    ],
)
def test_boards_of_tables_not_built(name: str, position: str) -> None:
    """Drawing needs no table: the boards of big and derived tables read back too."""
    p = puzzles.get(name)
    state = p.parse(position)
    root = ET.fromstring(boards.board(p, state))
    assert state_of(name, root) == state


@pytest.mark.parametrize("name", ["triangle15", "english33"])
def test_peg_boards_number_their_holes_as_jumps_are_written(name: str) -> None:
    """The jumps read ``(3,12)``: each hole carries its number, in the board's order."""
    p = puzzles.get(name)
    root = ET.fromstring(boards.board(p, p.parse(p.text(p.roots()[0]))))
    numbers = ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("fill") == "#5d4037"]
    assert numbers == [str(i) for i in range(int(name[-2:]))]  # 15 and 33 holes


def captions(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("class") == "caption"]


def test_board_caption_names_the_position_and_its_depth_when_built(tmp_path: Path) -> None:
    """Without a table the caption has no depth; a caption wider than the board widens it."""
    root = ET.fromstring(pipeline.open(tmp_path).board_svg("3x3", "1 2 3 4 5 6 7 8 0"))
    assert captions(root) == ["3x3", "1 2 3 4 5 6 7 8 0"]
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    board = 3 * 40 + 2 * 4  # three cells of 40 px and a margin of 4 each side
    assert (
        width >= boards.CHAR * 17 + 2 * boards.GAP > board and height == board + 2 * boards.CAPTION
    )
    (shifted,) = [g for g in root if g.get("transform")]  # the board, centred over the caption
    assert shifted.get("transform") == f"translate({(width - board) / 2:g},0)"
    assert state_of("3x3", shifted) == puzzles.get("3x3").parse("1 2 3 4 5 6 7 8 0")


def test_a_board_not_in_its_table_is_drawn_without_a_depth(db: pipeline.Database) -> None:
    """14 pegs with hole 0 empty: triangle15 starts with hole 12 empty, so never reaches it."""
    text = ". x x x x x x x x x x x x x x"
    assert captions(ET.fromstring(db.board_svg("triangle15", text))) == ["triangle15", text]
    start = "x x x x x x x x x x x x . x x"
    assert captions(ET.fromstring(db.board_svg("triangle15", start)))[0] == "triangle15, depth 0"


THETA = """
name = "theta"
title = "theta graph: cells 0 and 4 joined over 1 2, over 3 and over 5 6"
[tiles]
cells = 7
adjacency = [[1, 3, 5], [0, 2], [1, 4], [0, 4], [2, 3, 6], [0, 6], [4, 5]]
layout = \"\"\"
  {1} {2}
{0}  {3}  {4}
  {5} {6}\"\"\"
"""


def centre(cell: ET.Element) -> tuple[float, float]:
    """The centre of a cell's slot (a square, or a hexagon on a triangular lattice)."""
    slot = next(iter(cell))
    if slot.tag == f"{SVG}rect":
        x, y, w = (float(slot.get(k)) for k in ("x", "y", "width"))
        return x + w / 2, y + w / 2
    pts = [tuple(map(float, p.split(","))) for p in slot.get("points").split()]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


def test_a_graph_board_draws_its_edges() -> None:
    """Theta's cells 1 and 3 sit side by side on the lattice but are not neighbours:
    the board draws a line for each of its 8 edges, from cell centre to cell centre."""
    p = spec.puzzle(spec.parse(THETA, "theta.toml"))
    root = ET.fromstring(boards.board(p, p.parse("1 2 3 4 5 6 0")))
    assert state_of_puzzle(p, root) == p.parse("1 2 3 4 5 6 0")
    centres = {
        int(g.get("data-cell")): centre(g) for g in root.iter(f"{SVG}g") if g.get("class") == "cell"
    }
    lines = [e for e in root.iter(f"{SVG}line") if e.get("class") == "edge"]
    pairs = [tuple(map(int, e.get("data-cells").split())) for e in lines]
    assert pairs == [(0, 1), (0, 3), (0, 5), (1, 2), (2, 4), (3, 4), (4, 6), (5, 6)]
    for (a, b), e in zip(pairs, lines, strict=True):
        ends = [float(e.get(k)) for k in ("x1", "y1", "x2", "y2")]
        assert ends == pytest.approx([*centres[a], *centres[b]], abs=0.01)
    assert math.dist(centres[1], centres[3]) == pytest.approx(40, abs=0.01)  # side by side


@pytest.mark.parametrize("name", ["3x3", "hex6", "plus"])
def test_a_lattice_board_draws_no_edges(name: str) -> None:
    """Boards whose moves are their lattice's (a grid, the hexagon, the plus spec) stay plain."""
    path = Path(__file__).resolve().parent.parent / "examples" / "specs" / f"{name}.toml"
    p = spec.puzzle(spec.parse(path.read_text(), path.name)) if path.exists() else puzzles.get(name)
    root = ET.fromstring(boards.board(p, p.parse(p.text(int(p.roots()[0])))))
    assert not [e for e in root.iter(f"{SVG}line") if e.get("class") == "edge"]
    assert len(cells_of(root)) == p.cells.count


def test_pattern_database_board_shows_the_pattern_tiles() -> None:
    """A pattern database is drawn as its 4x4 board: tile t where its cell says, the rest plain."""
    p = puzzles.get("4x4-pdb-3")
    root = ET.fromstring(boards.board(p, p.parse("14 3 7 0")))  # tiles 13 14 15, blank in 0
    spots = [g for g in root.iter(f"{SVG}g") if g.get("class") == "cell"]
    assert len(spots) == 16
    labels = {int(g.get("data-spot")): "".join(g.itertext()) for g in spots}
    assert labels[14] == "13" and labels[3] == "14" and labels[7] == "15" and labels[0] == ""


def strip_boards(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "board"]


def test_solution_strip_is_the_solution_and_marks_each_move(db: pipeline.Database) -> None:
    sol = db.solve("3x3", "8 6 7 2 5 4 3 0 1")
    drawn = strip_boards(db.solution_svg(sol))
    states = [state_of("3x3", b) for b in drawn]
    assert states == sol.states and len(states) == 32  # 31 moves, the goal last
    p = puzzles.get("3x3")
    for i, (a, b) in enumerate(itertools.pairwise(states), start=1):
        _, kids = p.expand(np.array([a], dtype=np.uint64))
        assert b in kids.tolist()  # each board one legal move from the one before
        va, vb = p.cells.values(a), p.cells.values(b)
        arrow = next(g for g in drawn[i].iter(f"{SVG}g") if g.get("class") == "arrow")
        moved_from, moved_to = int(arrow.get("data-from")), int(arrow.get("data-to"))
        assert va[moved_from] == vb[moved_to] != 0 and vb[moved_from] == 0
    assert drawn[0].find(f".//{SVG}g[@class='arrow']") is None


def test_knight_strip_draws_the_path_in_order(db: pipeline.Database) -> None:
    """A closed-tour candidate: the knight's path, cell by cell, from the start."""
    tour = db.longest("knight14")["position"][0]
    sol = db.solve("knight14", tour)
    drawn = strip_boards(db.solution_svg(sol))
    assert [state_of("knight14", b) for b in drawn] == sol.states[::-1]  # start first
    p = puzzles.get("knight14")
    path = [int(c) for c in drawn[-1].find(f".//{SVG}polyline").get("data-cells").split()]
    assert sorted(path) == list(range(14)) and path[0] == 0
    assert all(b in p.adjacency[a] for a, b in itertools.pairwise(path))


def test_peg_strip_marks_the_jump(db: pipeline.Database) -> None:
    sol = db.solve("triangle15", "xxxxxxxxxxxx.xx")
    drawn = strip_boards(db.solution_svg(sol))
    assert [state_of("triangle15", b) for b in drawn] == sol.states
    first = drawn[1].find(f".//{SVG}g[@class='arrow']")
    f, t = int(first.get("data-from")), int(first.get("data-to"))
    assert sol.notation.startswith(f"({f},{t}")  # the line in the article's notation


def test_pattern_database_strip(tmp_path: Path) -> None:
    """A pattern database's walk (free moves of other tiles too), read back board by board."""
    db = pipeline.open(tmp_path)
    db.build(["2x4-pdb-3"])
    far = db.longest("2x4-pdb-3")["position"][0]
    sol = db.solve("2x4-pdb-3", far)
    drawn = strip_boards(db.solution_svg(sol))
    assert [state_of("2x4-pdb-3", b) for b in drawn] == sol.states
    assert sol.states[-1] == puzzles.get("2x4-pdb-3").roots()[0]
    captions = ["".join(b.find(f"{SVG}text[@class='caption']").itertext()) for b in drawn]
    assert captions[0] == "start" and all(c.split(": ")[1] for c in captions[1:])


def chart_numbers(svg: str, kind: str) -> dict[str, list[tuple[int, int]]]:
    root = ET.fromstring(svg)
    out: dict[str, list[tuple[int, int]]] = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == kind:
            out.setdefault(g.get("data-table"), []).append(
                (int(g.get("data-depth")), int(g.get("data-count")))
            )
            assert g.find(f"{SVG}title") is not None  # the tooltip names them too
    return out


def manifest_levels(data: Path, name: str) -> list[tuple[int, int]]:
    m = json.loads((data / name / MANIFEST).read_text())
    return [(lv["depth"], lv["positions"]) for lv in m["levels"]]


def test_histogram_bars_carry_the_manifest_counts(db: pipeline.Database, data: Path) -> None:
    svg = charts.svg(db.plot_histogram("3x3"))
    bars = chart_numbers(svg, "bar")
    assert bars == {"3x3": manifest_levels(data, "3x3")}
    assert bars["3x3"][-1] == (31, 2) and sum(n for _, n in bars["3x3"]) == 181_440


@pytest.mark.parametrize(("log", "percent"), [(False, False), (True, True)])
def test_histogram_lines_carry_each_table(
    db: pipeline.Database, data: Path, log: bool, percent: bool
) -> None:
    names = ["triangle15", "triangle15-moves"]
    svg = charts.svg(db.plot_histogram(names, log=log, percent=percent))
    assert chart_numbers(svg, "point") == {n: manifest_levels(data, n) for n in names}


def test_legend_covers_no_line(db: pipeline.Database) -> None:
    """The legend sits right of the axes, so no point of any line (2x5's included) is under it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = db.plot_histogram(["2x4", "2x5"], log=True, percent=True)
    FigureCanvasAgg(fig).draw()
    (ax,) = fig.axes
    box, area = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert box.x0 >= area.x1, "the legend is outside the plotting area"
    lines = [line for line in ax.get_lines() if len(line.get_xydata()) > 1]
    assert [line.get_label() for line in lines] == ["2x4", "2x5"]
    for line in lines:
        xy = line.get_xydata()
        assert len(xy) == {"2x4": 37, "2x5": 56}[line.get_label()]  # depths 0..36 and 0..55
        shown = ax.transData.transform(xy)  # segments are straight on screen, log or not
        steps = np.linspace(0, 1, 20)
        points = np.concatenate([shown[:-1] + t * np.diff(shown, axis=0) for t in steps])
        assert not any(box.contains(x, y) for x, y in points)


class Page(HTMLParser):
    """Checks that the tags nest, and collects every attribute and the text of <style>."""

    VOID: ClassVar[set[str]] = {
        "meta",
        "br",
        "img",
        "hr",
        "input",
        "link",
        "source",
        "wbr",
        "col",
        "area",
    }

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self.style = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1:]}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] == "style":
            self.style += data


def test_report_names_every_table_and_needs_no_network(data: Path, tmp_path: Path) -> None:
    r = run_cli("report", "--out", str(tmp_path / "out"), data=data)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "out" / "report.html").read_text()
    parser = Page()
    parser.feed(page)
    parser.close()
    assert parser.stack == [], "every tag closed"
    built = sorted(p.name for p in data.iterdir() if (p / MANIFEST).exists())
    sections = sorted(v for t, k, v in parser.attrs if t == "section" and k == "data-table")
    assert sections == built == sorted(p.name for p in puzzles.defaults())
    # no network: no scripts, stylesheets or frames, and no link or source that leaves the page
    assert not parser.tags & {"script", "link", "iframe", "img", "object", "embed"}
    for _, key, value in parser.attrs:
        if key in ("src", "href", "xlink:href", "action", "srcset", "poster", "data"):
            assert value.startswith("#"), (key, value)
    assert not re.search(r"url\(|@import", parser.style)
    # the summary row of 2x5 gives its numbers from the manifest
    row = re.search(r'<tr data-table="2x5">(.*?)</tr>', page).group(1)
    assert "<td>1,814,400</td><td>55</td><td>2</td>" in row
    # each table's chart carries its counts
    for name in built:
        section = re.search(
            rf'<section class="table" id="t-{re.escape(name)}".*?</section>', page, re.S
        )
        bars = re.findall(r'data-depth="(\d+)" data-count="(\d+)"', section.group(0))
        assert [(int(d), int(n)) for d, n in bars] == manifest_levels(data, name)
    # the deepest positions of 3x3 are its two depth-31 positions, drawn
    section = re.search(r'id="t-3x3".*?</section>', page, re.S).group(0)
    assert "2 positions at depth 31 (all shown)" in section
    drawn = re.findall(r'<svg [^>]*class="board"[^>]*data-text="([^"]*)"', section)
    assert drawn == pipeline.open(data).longest("3x3")["position"].to_list()


def test_cli_writes_charts_and_boards(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "h.svg"
    r = run_cli("plot", "histogram", "hex6", "--out", str(out), data=data)
    assert r.returncode == 0, r.stderr
    assert chart_numbers(out.read_text(), "bar") == {"hex6": manifest_levels(data, "hex6")}
    png = tmp_path / "h.png"
    r = run_cli(
        "plot", "histogram", "2x4", "2x5", "--percent", "--log", "--out", str(png), data=data
    )
    assert r.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    board = tmp_path / "b.svg"
    r = run_cli("show", "hex6", "4 6 5 1 3 2 0", "--svg", str(board), data=data)
    assert r.returncode == 0 and r.stdout.endswith("depth 15\n")
    assert state_of("hex6", ET.parse(board).getroot()) == puzzles.get("hex6").parse("4 6 5 1 3 2 0")
    assert captions(ET.parse(board).getroot()) == ["hex6, depth 15", "4 6 5 1 3 2 0"]
    line = tmp_path / "s.svg"
    r = run_cli("solve", "oshidori", "W W W B B B . .", "--svg", str(line), data=data)
    assert r.returncode == 0, r.stderr
    drawn = [state_of("oshidori", b) for b in strip_boards(line.read_text())]
    o = puzzles.get("oshidori")
    assert [o.text(s) for s in drawn] == ["B W B W B W . .", *[o.text(s) for s in drawn[1:]]]
    assert o.text(drawn[-1]) == "W W W B B B . ." and len(drawn) == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["plot", "histogram", "nope"], "unknown puzzle 'nope'"),
        (["plot", "histogram", "3x3", "--out", "{file}/x.svg"], "cannot write"),
        (["plot", "histogram", "3x3", "--out", "{tmp}/x.gif"], "written as .svg or .png"),
        (["report", "--out", "{file}/sub"], "cannot write to"),
        (["show", "3x3", "1 2 3 4 5 6 7 8 0", "--svg", "{tmp}/no/such/x.svg"], "cannot write"),
        (["solve", "3x3", "1 2 3 4 5 6 0 7 8", "--svg", "{file}/x.svg"], "cannot write"),
    ],
)
def test_bad_output_is_one_line(data: Path, tmp_path: Path, args: list[str], message: str) -> None:
    """An unwritable --out (a path under a file: unwritable even for root), a wrong suffix."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    args = [a.format(file=blocker, tmp=tmp_path) for a in args]
    r = run_cli(*args, data=data)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


@pytest.mark.parametrize("args", [["report"], ["plot", "histogram", "3x3"]])
def test_nothing_built_is_one_line(tmp_path: Path, args: list[str]) -> None:
    r = run_cli(*args, "--out", str(tmp_path / "out.svg"), data=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and ("no tables built" in lines[0] or "not built yet" in lines[0])
