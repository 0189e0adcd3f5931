"""Positions per depth as a chart, drawn with matplotlib (SVG for pages, PNG for files).

One table gives bars, several give overlaid lines. Every bar and every point
of a line is a matplotlib artist with a ``gid``; :func:`svg` turns each into a
``<g class="bar|point" data-table data-depth data-count>`` with a ``<title>``
(the tooltip a browser shows), so the numbers can be read back from the picture.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from pipeline.answers import Histogram
from pipeline.errors import BadOutput
from pipeline.pictures import output
from pipeline.words import plural

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.typing import RcKeyType

COLOURS = ("#1565c0", "#e65100", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#4e342e", "#ad1457")
#: SVG output that does not change from run to run, text as text (the page's fonts).
RC: dict[RcKeyType, object] = {"svg.fonttype": "none", "svg.hashsalt": "puzzledb", "font.size": 12}
_GID = re.compile(r'<g id="puzzledb:(bar|point):([^:"]+):(\d+):(\d+)">')
FORMATS = ("svg", "png")


def histogram(
    series: Sequence[Histogram],
    *,
    log: bool = False,
    percent: bool = False,
    size: tuple[float, float] = (6.0, 3.0),
) -> Figure:
    """Bars for one table, lines for several; ``log`` scales the counts, ``percent`` shares them
    (a table of symmetry classes counts its classes, its rows)."""
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=size, layout="constrained")
        ax = fig.add_subplot()
        if len(series) == 1:
            _bars(ax, series[0], log=log, percent=percent)
        else:
            for i, s in enumerate(series):
                _line(ax, s, COLOURS[i % len(COLOURS)], log=log, percent=percent)
            _legend(ax)
        ax.set_xlabel("depth")
        rows = "classes" if all(h.classes for h in series) else "positions"
        ax.set_ylabel(f"% of the table's {rows}" if percent else rows)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if not log:
            ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
        ax.spines[["top", "right"]].set_visible(False)
        ax.grid(axis="y", color="#e0e0e0", linewidth=0.8)
        ax.set_axisbelow(True)
        names = ", ".join(h.puzzle for h in series)
        ax.set_title(f"{rows} per depth: {names}", loc="left")
    return fig


def _legend(ax: Axes) -> None:
    """The legend right of the axes: inside, any place ("best" too) can cover a line."""
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _ys(h: Histogram, percent: bool) -> list[float]:
    return [100 * n / h.total if percent else float(n) for _, n in h.pairs()]


def _bars(ax: Axes, h: Histogram, *, log: bool, percent: bool) -> None:
    depths = [d for d, _ in h.pairs()]
    bars = ax.bar(depths, _ys(h, percent), width=0.8, color=COLOURS[0], log=log)
    for patch, (d, n) in zip(bars, h.pairs(), strict=True):
        patch.set_gid(f"puzzledb:bar:{h.puzzle}:{d}:{n}")


def _line(ax: Axes, h: Histogram, colour: str, *, log: bool, percent: bool) -> None:
    depths = [d for d, _ in h.pairs()]
    ys = _ys(h, percent)
    ax.plot(depths, ys, color=colour, linewidth=1.8, label=h.puzzle)
    for (d, n), y in zip(h.pairs(), ys, strict=True):
        (point,) = ax.plot([d], [y], "o", color=colour, markersize=3.5)
        point.set_gid(f"puzzledb:point:{h.puzzle}:{d}:{n}")
    if log:
        ax.set_yscale("log")


def _thousands(value: float, _: object) -> str:
    return f"{value:,.0f}" if value >= 1 or value == 0 else f"{value:g}"


def svg(fig: Figure) -> str:
    """The figure as SVG text (no XML prologue), each bar and point tagged with its numbers."""
    buf = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    body = buf.getvalue()
    body = body[body.index("<svg") :]
    body = re.sub(r"\s*<metadata>.*?</metadata>", "", body, count=1, flags=re.S)
    return _GID.sub(_tag, body)


def _tag(m: re.Match[str]) -> str:
    kind, table, depth, count = m.groups()
    tip = f"{table}, depth {depth}: {plural(int(count), 'position')}"
    return (
        f'<g class="{kind}" data-table="{table}" data-depth="{depth}" data-count="{count}">'
        f"<title>{tip}</title>"
    )


def save(fig: Figure, path: Path) -> Path:
    """Write the figure as SVG or PNG, by the file's suffix."""
    kind = path.suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise BadOutput(
            f"{path}: the chart is written as .svg or .png, not {path.suffix or 'no suffix'}"
        )
    if kind == "svg":
        data = ('<?xml version="1.0" encoding="utf-8"?>\n' + svg(fig)).encode()
    else:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=120, metadata={"Software": None})
        data = buf.getvalue()
    return output.write(path, data)
