"""The explorer (`puzzledb serve`) in chromium: `make test-browser` runs it all;
`make test` runs the short version, skipped with its reason where chromium or
playwright is missing. The server is real (tests/test_serve.py's ``serving``)
on the session's default tables; each depth shown is checked against the API."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pipeline
from tests.test_serve import START, serving

WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def server(data: Path) -> Iterator[str]:
    with serving(data) as base:
        yield base


@pytest.fixture
def explorer_browser(chromium_browser: Any) -> Any:
    """The session's chromium (tests/browser/conftest.py), or a one-line skip."""
    return chromium_browser


def shown_depth(page: Any) -> int:
    return int(page.locator("p.depth").inner_text().split()[-1])


def test_short_best_move_and_arrow_key(
    explorer_browser: Any, server: str, db: pipeline.Database
) -> None:
    """The short version (in `make test`): a page, a click on the board that makes a
    move, the best move, an arrow key; each position's depth is the table's."""
    page = explorer_browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/p/3x3?s={START.replace(' ', '%20')}")
    assert shown_depth(page) == db.depth("3x3", START) == 31

    def here() -> str:
        return page.locator("p.pos").inner_text()

    before = here()
    page.click('#board g.cell[data-spot="6"]')  # tile 3, beside the blank (cell 7), slides
    page.wait_for_load_state()
    assert here() != before and shown_depth(page) == db.depth("3x3", here())
    page.go_back()
    page.wait_for_load_state()
    page.click("#best")
    page.wait_for_load_state()
    assert shown_depth(page) == db.depth("3x3", here()) == 30
    key = page.locator("a.move.nearer[data-key]").first.get_attribute("data-key")
    page.keyboard.press(key)
    page.wait_for_load_state()
    assert shown_depth(page) == db.depth("3x3", here()) == 29
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


def _two_jumps_from_one_peg(server: str, name: str) -> tuple[str, dict[str, Any]]:
    """A position (breadth-first from the start) where one peg has two jumps, and one of them."""
    from tests.test_serve import position

    todo = [position(server, name, "")["position"]]
    while todo:
        answer = position(server, name, todo.pop(0))
        starts = [m["from"][0] for m in answer["moves"]]
        twice = [m for m in answer["moves"] if starts.count(m["from"][0]) > 1]
        if twice:
            return answer["position"], twice[-1]
        todo += [m["position"] for m in answer["moves"]]
    raise AssertionError(f"no peg of {name} has two jumps")


def _click_spot(page: Any, spot: int) -> None:
    page.locator(f'#board g.cell[data-spot="{spot}"]').click()


def test_short_a_peg_with_two_jumps_lands_where_the_second_click_says(
    explorer_browser: Any, server: str, db: pipeline.Database
) -> None:
    """The short version: a peg with two jumps asks for its landing hole, then jumps."""
    text, jump = _two_jumps_from_one_peg(server, "triangle15")
    page = explorer_browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/p/triangle15?s={text.replace(' ', '%20')}")
    depth = shown_depth(page)
    _click_spot(page, jump["from"][0])
    assert "click where it lands" in page.locator("#pick-note").inner_text()
    assert page.locator("#board g.cell.target").count() >= 2
    _click_spot(page, jump["to"][0])
    page.wait_for_load_state()
    assert page.locator("p.pos").inner_text() == jump["position"]
    assert shown_depth(page) == depth + 1 == db.depth("triangle15", jump["position"])
    page.close()


@pytest.mark.browser
def test_a_click_on_a_tile_slides_it(explorer_browser: Any, server: str) -> None:
    from tests.test_serve import position

    best = next(m for m in position(server, "3x3", START)["moves"] if m["verdict"] == "nearer")
    page = explorer_browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/p/3x3?s={START.replace(' ', '%20')}")
    _click_spot(page, best["from"][0])
    page.wait_for_load_state()
    assert page.locator("p.pos").inner_text() == best["position"] and shown_depth(page) == 30
    page.close()


@pytest.mark.browser
def test_play_to_the_goal_steps_by_itself(explorer_browser: Any, server: str) -> None:
    page = explorer_browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/p/3x3?s=1%202%203%204%205%206%200%207%208")
    assert shown_depth(page) == 2
    page.click("#play")
    page.wait_for_url("**/p/3x3?s=1%202%203%204%205%206%207%208%200*", timeout=15_000)
    page.wait_for_load_state()
    assert shown_depth(page) == 0 and page.locator("#best").count() == 0
    page.close()


@pytest.mark.browser
def test_a_class_table_plays_by_clicks(explorer_browser: Any, tmp_path: Path) -> None:
    from tests.test_serve import position

    db = pipeline.open(tmp_path)
    db.build(["triangle15-sym"])
    with serving(tmp_path) as base:
        text, jump = _two_jumps_from_one_peg(base, "triangle15-sym")
        page = explorer_browser.new_page(viewport={"width": 390, "height": 900})
        page.goto(f"{base}/p/triangle15-sym?s={text.replace(' ', '%20')}")
        assert "one position per symmetry class" in page.content()
        _click_spot(page, jump["from"][0])
        _click_spot(page, jump["to"][0])
        page.wait_for_load_state()
        assert page.locator("p.pos").inner_text() == jump["position"]
        assert shown_depth(page) == position(base, "triangle15-sym", text)["depth"] + 1
        page.close()


def test_home_page_fits_a_phone(explorer_browser: Any, data: Path, tmp_path: Path) -> None:
    """Issue #45 item 4: at 390 px the home page was 533 px wide (the histogram cut off);
    every table's row, the longest names' included, now fits the phone's width."""
    folder = tmp_path / "data"
    shutil.copytree(data, folder)
    pipeline.open(folder).build(["triangle15-sym-winnable"])  # the longest kind of name
    names = pipeline.open(folder).built()
    with serving(folder) as base:
        page = explorer_browser.new_page(viewport={"width": 390, "height": 900})
        page.goto(base + "/")
        rows = page.locator("table.tables tr").count() - 1
        width = page.evaluate("document.documentElement.scrollWidth")
        right = page.evaluate(
            "Math.max(...[...document.querySelectorAll('.bars')]"
            ".map(b => b.getBoundingClientRect().right))"
        )
        page.close()
    assert rows == len(names) == 15 and "triangle15-sym-winnable" in names
    assert width == 390 and right <= 390, (width, right)
