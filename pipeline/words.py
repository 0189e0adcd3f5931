"""Numbers in words for people: counts with the right plural, rates, sizes and durations
with a unit."""

from __future__ import annotations

import re


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 position``, ``2 positions``, ``1,814,400 positions`` (``many``: an irregular plural)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def rate(per_second: float, unit: str = "/s") -> str:
    """A rate that stays readable from a few a second to millions: ``840/s``, ``1.52 M/s``."""
    if per_second >= 1e6:
        return f"{per_second / 1e6:.2f} M{unit}"
    if per_second >= 1e4:
        return f"{per_second / 1e3:.0f} k{unit}"
    return f"{per_second:,.0f}{unit}"


def size_of(nbytes: float) -> str:
    """Bytes for people: '512 B', '3.5 KiB', '190 MiB', '1.5 GiB'."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(nbytes) < 1024 or unit == "GiB":
            break
        nbytes /= 1024
    return f"{nbytes:,.0f} {unit}" if unit == "B" or nbytes >= 100 else f"{nbytes:.3g} {unit}"


def figures(n: int) -> str:
    """A count of any size to three significant figures, ``4.33e+19`` (``:.3g`` turns
    an int into a float first: past 1e308 it fails)."""
    digits = str(abs(int(n)))
    if len(digits) <= 3:
        return str(n)
    head = (int(digits[:4].ljust(4, "0")) + 5) // 10  # three figures, the fourth rounded
    exponent = len(digits) - 1 + (head >= 1000)
    text = str(head // 10 if head >= 1000 else head)
    sign = "-" if n < 0 else ""
    return f"{sign}{text[0]}.{text[1:3]}e+{exponent}"


def seconds(s: float) -> str:
    """A duration as people say it: ``0.95 s``, ``42 s``, ``3 min 20 s``, ``2 h 5 min``."""
    if s < 10:
        return f"{s:.2f} s"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{int(s // 60)} min {int(s % 60)} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60)} min"


def permutation_fault(values: list[int], n: int) -> str | None:
    """What keeps ``values`` from being a permutation of 0..n-1, naming only what is wrong:
    ``3 values, not 9; missing 4 5 6`` (None when it is one)."""
    repeated = sorted({v for v in values if values.count(v) > 1})
    missing = [v for v in range(n) if v not in values]
    parts = [f"{plural(len(values), 'value')}, not {n}"] if len(values) != n else []
    parts += [f"repeated {' '.join(map(str, repeated))}"] if repeated else []
    parts += [f"missing {' '.join(map(str, missing))}"] if missing else []
    return "; ".join(parts) or None


#: What a terminal takes as a command, not text: C0 controls but newline and tab,
#: DEL and the C1 controls (ESC [ 2 J clears the screen, ESC ] 52 writes the
#: clipboard; U+009B is a one-byte CSI), the bidirectional overrides that show text
#: in another order than it is, and lone surrogates (which no terminal can encode).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE_LINE = re.compile(f"[\n\t{_UNSAFE.pattern[1:-1]}]")


def printable(text: str, lines: bool = True) -> str:
    """``text`` safe to print to a terminal: each character a terminal would act on
    written as an escape (``\\u001b``, ``\\u202e``), the rest as it is. Every text that
    may come from a data folder (a title, a key of a spec, an error naming either,
    a query's result) is printed through this. ``lines=False``: newlines and tabs
    escaped too (one line)."""
    pattern = _UNSAFE if lines else _UNSAFE_LINE
    return pattern.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    """``\\u001b``: the same spelling in text, CSV and inside a JSON string (where it
    reads back as the character itself)."""
    return f"\\u{ord(m.group()):04x}"
