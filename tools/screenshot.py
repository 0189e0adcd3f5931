"""Regenerate docs/report.png, the README's picture of the report (a kept file, not build output).

    .venv/bin/python -m tools.screenshot [data/report.html] [docs/report.png]

The summary and one table's section of the report, in Debian's chromium at
1000 pixels wide, stacked and reduced to a 64-colour palette to stay small.
It needs what `make test-browser` installs (chromium, playwright); FLAGS are
also the flags tests/browser/ starts chromium with.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
#: Headless, and nothing fetched behind the page's back.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PARTS = ("header", "#summary", "#t-triangle15")


def main(report: Path, out: Path) -> None:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.goto(report.resolve().as_uri(), wait_until="load")
        shots = []
        for part in PARTS:  # the page's full width, from the top of each part to its bottom
            box = page.locator(part).first.bounding_box()
            top = box["y"] + page.evaluate("window.scrollY")
            clip = {"x": 0, "y": top, "width": 1000, "height": box["height"] + 8}
            shots.append(Image.open(io.BytesIO(page.screenshot(clip=clip, full_page=True))))
        browser.close()
    width = max(s.width for s in shots)
    sheet = Image.new("RGB", (width, sum(s.height for s in shots)), "#fafafa")
    y = 0
    for s in shots:
        sheet.paste(s, (0, y))
        y += s.height
    sheet.quantize(64).save(out, optimize=True)
    print(f"{out}: {sheet.width}x{sheet.height}, {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        Path(args[0] if args else "data/report.html"),
        Path(args[1] if len(args) > 1 else "docs/report.png"),
    )
