"""One chromium for every browser test of the run (playwright's sync API runs one
event loop a thread: two of them in one session fail with "Sync API inside the
asyncio loop").

A run that asks for the browser tests (``-m browser``: `make test-browser`) fails
when chromium or playwright is missing; ``make test`` skips its short explorer
test with one line saying which is missing.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.screenshot import FLAGS


def missing(chromium: str) -> str | None:
    """What keeps a real browser from running here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (make test-browser installs it into .venv)"
    if not Path(chromium).exists():
        return f"{chromium} is missing (make test-browser installs Debian's chromium)"
    return None


@pytest.fixture(scope="session")
def chromium_browser(chromium: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Chromium driven by playwright, headless, for the whole session. Missing: a run
    that selected a test marked browser fails, any other run skips (one line)."""
    why = missing(chromium)
    if why is not None:
        if any(item.get_closest_marker("browser") for item in request.session.items):
            pytest.fail(why)
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=FLAGS, headless=True)
        yield b
        b.close()
