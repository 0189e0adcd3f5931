"""The report and a solution strip in a real browser (`make test-browser`, not `make test`).

Debian's chromium, driven headless by playwright-python (its own browser
download cannot be fetched here, so ``executable_path`` points at the
chromium given by --chromium, default /usr/bin/chromium). Each page is opened at 1280 and
390 pixels wide; a test fails on any console error or page error, on any
request that leaves the page, on a picture that did not render (no size, or
all one colour), and on a page wider than the window. Screenshots go to
--shots (default build/screenshots/) to be looked at.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pipeline
from pipeline.puzzles import registry as puzzles

pytestmark = pytest.mark.browser
WIDTHS = (1280, 390)


@pytest.fixture(scope="session")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The report of the default tables and a solution strip, written by the CLI."""
    data = tmp_path_factory.mktemp("data")
    pipeline.open(data).build([p.name for p in puzzles.defaults()])
    out = tmp_path_factory.mktemp("out")

    def cli(*args: str) -> None:
        r = subprocess.run(
            [sys.executable, "-m", "pipeline.cli", *args, "--data", str(data)],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stderr

    cli("report", "--out", str(out))
    cli("solve", "3x3", "8 6 7 2 5 4 3 0 1", "--svg", str(out / "solution-3x3.svg"))
    cli("solve", "knight14", "o o o o o o o o o o o N o o", "--svg", str(out / "tour.svg"))
    for name in ("solution-3x3", "tour"):  # a page showing the strip file as an image
        (out / f"{name}.html").write_text(
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{name}</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
            f'<body><img src="{name}.svg" alt="{name}" style="max-width:100%"></body></html>'
        )
    return {
        "report": out / "report.html",
        "solution-3x3": out / "solution-3x3.html",
        "tour": out / "tour.html",
    }


@pytest.fixture
def browser(chromium_browser: Any) -> Any:
    return chromium_browser  # tests/browser/conftest.py: one chromium a session


class Watched:
    """A page with its console errors, page errors and requests recorded."""

    def __init__(self, browser: Any, width: int) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url}"))

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri(), wait_until="load")


def not_blank(png: bytes) -> bool:
    """Whether a screenshot shows more than one colour."""
    from PIL import Image

    colours = Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 20)
    return colours is None or len(colours) > 1


def check_pictures(w: Watched) -> int:
    """Every top-level <svg> and <img> has a size and shows something; returns how many."""
    found = w.page.locator("svg:not(svg svg), img")
    count = found.count()
    assert count > 0
    for i in range(count):
        el = found.nth(i)
        box = el.bounding_box()
        assert box and box["width"] > 10 and box["height"] > 10, f"picture {i} has no size"
        if el.evaluate("e => e.tagName") == "IMG":
            assert el.evaluate("e => e.complete && e.naturalWidth > 0"), f"image {i} is broken"
    # the first chart, the first board: real pixels, not one flat colour
    for selector in (".chart svg", "svg.board", "img"):
        loc = w.page.locator(selector)
        if loc.count():
            loc.first.scroll_into_view_if_needed()
            assert not_blank(loc.first.screenshot()), f"{selector} drew nothing"
    return count


@pytest.mark.parametrize("width", WIDTHS)
def test_report_renders(browser: Any, pages: dict[str, Path], shots: Path, width: int) -> None:
    w = Watched(browser, width)
    w.open(pages["report"])
    n = check_pictures(w)
    built = {p.name for p in puzzles.defaults()}
    shown = set(w.page.locator("section.table").evaluate_all("s => s.map(e => e.dataset.table)"))
    assert shown == built
    assert n >= 2 * len(built)  # a chart and at least one board a table
    overflow = w.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a {width}px window"
    shots.mkdir(parents=True, exist_ok=True)
    w.page.screenshot(path=str(shots / f"report-{width}.png"), full_page=True)
    w.page.evaluate("window.scrollTo(0, 0)")
    w.page.screenshot(path=str(shots / f"report-{width}-top.png"))
    assert w.errors == []
    assert w.requests == [pages["report"].resolve().as_uri()], "the page fetched something"
    w.page.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["solution-3x3", "tour"])
def test_solution_strip_renders(
    browser: Any, pages: dict[str, Path], shots: Path, name: str, width: int
) -> None:
    w = Watched(browser, width)
    w.open(pages[name])
    assert check_pictures(w) == 1
    shots.mkdir(parents=True, exist_ok=True)
    w.page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
    assert w.errors == []
    page = pages[name].resolve()
    assert w.requests == [page.as_uri(), page.with_suffix(".svg").as_uri()]
    w.page.close()
