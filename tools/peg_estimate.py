"""An estimate of a peg board's size from its first levels (the 41-hole diamond).

    python -m tools.peg_estimate

The ratio of one level's size to the one before falls as the board empties.
Fitting that ratio as a straight line in the depth over levels 5..N and
running the line on until it reaches zero gives a total, which on the boards
we know is too small by a steady factor: the ratio falls ever more slowly in
the tail (the English board: 6.5e7 from levels 5..10 against 187,636,299 in
full, x2.9; the French board: 7.9e8 against "a little under 3 billion",
x3.6 to x3.8). The diamond's first levels (tools/peg_count.py) under the
same fit, times those two factors, give its range.
"""

from __future__ import annotations

import numpy as np

from tests.test_pegs_french import DIAMOND41_FIRST, FRENCH37_FIRST

ENGLISH33 = [
    *(1, 4, 12, 60, 296, 1338, 5648, 21842, 77559, 249690, 717788, 1834379),
    *(4138302, 8171208, 14020166, 20773236, 26482824, 28994876, 27286330, 22106348),
    *(15425572, 9274496, 4792664, 2120101, 800152, 255544, 68236, 14727, 2529, 334, 32, 5),
]
#: The French board from the centre: the published "a little under 3 billion".
FRENCH37_TOTAL = (2.8e9, 3.0e9)
#: The diamond's levels 9..11 (tools/peg_count.py diamond41 11, 14 minutes on a
#: busy machine; levels 0..8 are in tests/test_pegs_french.py).
DIAMOND41_MORE = [1_248_030, 4_441_654, 14_300_439]


def linear_ratio_total(levels: list[int], first: int = 5) -> float:
    """The total when the level-to-level ratio goes on falling as a straight line."""
    d = np.arange(first, len(levels))
    ratios = np.array(levels[first:], float) / np.array(levels[first - 1 : -1], float)
    slope, start = np.polyfit(d, ratios, 1)
    total, size, depth = float(sum(levels)), float(levels[-1]), len(levels)
    while (ratio := start + slope * depth) > 0 and size * ratio >= 1:
        size *= ratio
        total += size
        depth += 1
    return total


def estimate(last: int) -> tuple[float, float, float]:
    """(low, high, the diamond's plain fit) from levels 5..last of each board."""
    english = linear_ratio_total(ENGLISH33[: last + 1])
    french = linear_ratio_total([*FRENCH37_FIRST, 2_683_238, 7_871_309][: last + 1])
    diamond = linear_ratio_total([*DIAMOND41_FIRST, *DIAMOND41_MORE][: last + 1])
    low, high = sum(ENGLISH33) / english, FRENCH37_TOTAL[1] / french
    print(
        f"levels 5..{last}: english33 fit {english:.3g} (true {sum(ENGLISH33):,}, x{low:.2f}); "
        f"french37 fit {french:.3g} (x{FRENCH37_TOTAL[0] / french:.2f} to x{high:.2f}); "
        f"diamond41 fit {diamond:.3g}"
    )
    return diamond * min(low, high), diamond * max(low, high), diamond


def main() -> None:
    for last in (10, 11):
        low, high, _ = estimate(last)
        print(f"  diamond41: {low:.3g} to {high:.3g} positions")


if __name__ == "__main__":
    main()
