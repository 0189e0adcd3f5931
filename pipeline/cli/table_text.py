"""A query result in the DuckDB CLI's box layout, cut to the terminal's width.

SQL users know DuckDB's boxes; polars' own printing is a debugging layout (a
``shape:`` line, a row of types, ``┆``). Written here rather than through
``DuckDBPyRelation.show(max_width=...)``: that prints straight to stdout, adds a
row of types and its layout is not documented as stable between versions.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

ELLIPSIS = "…"
#: A text column is not cut narrower than this (numbers are never cut).
NARROWEST = 10


def width() -> int:
    """The terminal's width: COLUMNS if set, else the terminal's, else 80."""
    return max(20, shutil.get_terminal_size().columns)


def known_width() -> int | None:
    """The terminal's width when there is one to fit (COLUMNS set, or stdout a
    terminal); None for a pipe, whose reader may parse the lines whole."""
    if os.environ.get("COLUMNS") or sys.stdout.isatty():
        return width()
    return None


def frame_text(df: pl.DataFrame, limit_width: int | None = None) -> str:
    """A polars DataFrame as a box no line of which is wider than ``limit_width``."""
    names = [str(c) for c in df.columns]
    cells = [[_cell(v) for v in df.get_column(c).to_list()] for c in df.columns]
    right = [df.schema[c].is_numeric() for c in df.columns]
    return render(names, cells, right, width() if limit_width is None else limit_width)


def _cell(value: object) -> str:
    if value is None:
        return "NULL"
    return str(value).replace("\n", "\\n")


def render(names: list[str], cells: list[list[str]], right: list[bool], limit: int) -> str:
    """The box: headers centred, numbers right, text left; long cells cut with ``…``,
    and columns past the width left out behind a ``…`` column."""
    widths = [max([len(n), *map(len, col)]) for n, col in zip(names, cells, strict=True)]
    keep = _fit(widths, right, limit)
    cut = len(keep) < len(names)
    cols = [(names[i], cells[i], right[i], widths[i]) for i in keep]
    if cut:
        rows = len(cells[0]) if cells else 0
        cols.append((ELLIPSIS, [ELLIPSIS] * rows, False, 1))
    lines = _lines(cols)
    if cut:
        lines.append(f"({len(names)} columns, {len(keep)} shown: widen the terminal or COLUMNS)")
    return "\n".join(lines)


def _fit(widths: list[int], numeric: list[bool], limit: int) -> list[int]:
    """The columns kept (left to right); ``widths`` of text columns narrowed in place
    (the widest first) until they fit, then the last columns left out."""
    keep = list(range(len(widths)))

    def total() -> int:
        extra = 4 if len(keep) < len(widths) else 0  # the ``…`` column
        return sum(widths[i] for i in keep) + 3 * len(keep) + 1 + extra

    while total() > limit:
        texts = [i for i in keep if not numeric[i]]
        wide = max(texts, key=lambda i: widths[i], default=None)
        if wide is not None and widths[wide] > NARROWEST:
            widths[wide] -= 1
        elif len(keep) > 1:
            keep.pop()
        else:
            break
    return keep


def _lines(cols: list[tuple[str, list[str], bool, int]]) -> list[str]:
    ws = [w for *_, w in cols]
    rule = {k: k[0] + k[1].join("─" * (w + 2) for w in ws) + k[2] for k in ("┌┬┐", "├┼┤", "└┴┘")}
    out = [rule["┌┬┐"], _row([_cut(n, w).center(w) for n, _, _, w in cols]), rule["├┼┤"]]
    rows = len(cols[0][1]) if cols else 0
    for r in range(rows):
        out.append(_row([_pad(col[r], w, right) for _, col, right, w in cols]))
    out.append(rule["└┴┘"])
    return out


def _row(texts: list[str]) -> str:
    return "│ " + " │ ".join(texts) + " │"


def _cut(text: str, w: int) -> str:
    return text if len(text) <= w else text[: w - 1] + ELLIPSIS


def _pad(text: str, w: int, right: bool) -> str:
    text = _cut(text, w)
    return text.rjust(w) if right else text.ljust(w)


def side_by_side(drawings: list[str], limit: int, gap: int = 4) -> list[str]:
    """Drawings (each a few lines of text) in rows across ``limit`` columns, each row's
    drawings top-aligned, ``gap`` spaces apart; rows separated by a blank line."""
    out: list[str] = []
    row: list[list[str]] = []
    used = 0
    for d in drawings:
        lines = d.rstrip("\n").split("\n")
        w = max(map(len, lines))
        lines = [x.ljust(w) for x in lines]
        if row and used + gap + w > limit:
            out += [*_joined(row, gap), ""]
            row, used = [], 0
        used += (gap if row else 0) + w
        row.append(lines)
    return out + (_joined(row, gap) if row else [])


def _joined(row: list[list[str]], gap: int) -> list[str]:
    height = max(map(len, row))
    padded = [d + [" " * len(d[0])] * (height - len(d)) for d in row]
    return [(" " * gap).join(parts).rstrip() for parts in zip(*padded, strict=True)]
