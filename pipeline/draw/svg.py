"""A few helpers to write SVG text by hand (the boards are ours, not a library's)."""

from __future__ import annotations

from html import escape

XMLNS = "http://www.w3.org/2000/svg"


def esc(value: object) -> str:
    """Text or an attribute value, escaped for XML."""
    return escape(str(value), quote=True)


def num(x: float) -> str:
    """A coordinate, short: two decimals at most, no trailing zeros."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def attrs(values: dict[str, object]) -> str:
    """`` key="value"`` pairs; None values are left out, floats shortened."""
    out = []
    for key, value in values.items():
        if value is None:
            continue
        text = num(value) if isinstance(value, float) else esc(value)
        name = key.rstrip("_").replace("_", "-")  # class_ -> class, data_cell -> data-cell
        out.append(f' {name}="{text}"')
    return "".join(out)


def el(name: str, values: dict[str, object] | None = None, *children: str) -> str:
    """One element; empty when it has no children (``<circle .../>``)."""
    head = f"<{name}{attrs(values or {})}"
    if not children:
        return head + "/>"
    return head + ">" + "".join(children) + f"</{name}>"


def text(x: float, y: float, label: str, **style: object) -> str:
    """A label centred on (x, y)."""
    values: dict[str, object] = {
        "x": float(x),
        "y": float(y),
        "text_anchor": "middle",
        "dominant_baseline": "central",
        **style,
    }
    return el("text", values, esc(label))


def document(width: float, height: float, body: str, **extra: object) -> str:
    """A standalone ``<svg>`` (also valid inline in HTML) of the given size in pixels."""
    values: dict[str, object] = {
        "xmlns": XMLNS,
        "width": float(width),
        "height": float(height),
        "viewBox": f"0 0 {num(width)} {num(height)}",
        **extra,
    }
    return el("svg", values, body)
