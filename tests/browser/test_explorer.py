"""The explorer (`puzzledb serve`) in chromium: `make test-browser` runs it all;
`make test` runs the short version, skipped with its reason where chromium or
playwright is missing. The server is real (tests/test_serve.py's ``serving``)
on the session's default tables; each depth shown is checked against the API."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pipeline
from tests.test_serve import START, serving
from tools.screenshot import FLAGS

WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def server(data: Path) -> Iterator[str]:
    with serving(data) as base:
        yield base


@pytest.fixture(scope="module")
def explorer_browser(chromium: str) -> Iterator[Any]:
    """Chromium through playwright, or a skip saying which is missing."""
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("playwright is not installed (make test-browser installs it)")
    if not Path(chromium).exists():
        pytest.skip(f"{chromium} is missing (make test-browser installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=FLAGS, headless=True)
        yield b
        b.close()


def shown_depth(page: Any) -> int:
    return int(page.locator("p.depth").inner_text().split()[-1])


def test_short_best_move_and_arrow_key(explorer_browser: Any, server: str) -> None:
    """The short version: one click on the best move, one arrow key, one level each."""
    page = explorer_browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/p/3x3?s={START.replace(' ', '%20')}")
    assert shown_depth(page) == 31
    page.click("#best")
    page.wait_for_load_state()
    assert shown_depth(page) == 30
    key = page.locator("a.move.nearer[data-key]").first.get_attribute("data-key")
    page.keyboard.press(key)
    page.wait_for_load_state()
    assert shown_depth(page) == 29
    page.close()


@pytest.mark.browser
def test_play_to_the_goal_by_best_moves(
    explorer_browser: Any, server: str, db: pipeline.Database
) -> None:
    page = explorer_browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/p/3x3?s={START.replace(' ', '%20')}")
    depth = shown_depth(page)
    while depth:
        moves = page.locator("a.move")
        for i in range(moves.count()):
            m = moves.nth(i)
            text = m.inner_text().split(":")[0]
            assert int(m.get_attribute("data-depth")) == db.depth("3x3", text)
        page.click("#best")
        page.wait_for_load_state()
        assert shown_depth(page) == depth - 1
        depth -= 1
    assert page.locator("p.pos").inner_text() == "1 2 3 4 5 6 7 8 0"
    page.close()


@pytest.mark.browser
def test_a_malformed_position_is_one_line(explorer_browser: Any, server: str) -> None:
    page = explorer_browser.new_page()
    page.goto(f"{server}/t/3x3")
    page.fill("input[name=s]", "1 2 3 junk")
    page.click("text=open")
    page.wait_for_load_state()
    assert page.locator("p.error").count() == 1
    assert "Traceback" not in page.content()
    page.close()


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["3x3", "pocket", "triangle15"])
def test_pages_render_and_are_shot(
    explorer_browser: Any, server: str, shots: Path, name: str, width: int
) -> None:
    page = explorer_browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(server) else errors.append(r.url))
    page.goto(f"{server}/p/{name}")
    assert page.locator(".board svg").count() == 1 and shown_depth(page) == 0
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"explorer-{name}-{width}.png"), full_page=True)
    assert errors == []
    page.close()
