"""twsearch's own sample definitions built here, level by level equal to its God's
algorithm (issue #47's independent check).

The samples are not ours to ship (twsearch is MPL-2.0 or GPL-3.0): give their
folder, ``samples/main`` of twsearch at commit 0a8bfb07 (the last with the C++
program and the .tws samples), with ``--twsearch-samples DIR``
(`make test-twisty-samples TWSEARCH_SAMPLES=DIR`). The counts below are what
``twsearch -g FILE`` printed for each (built with
``make build/bin/twsearch TWSEARCH_VERSION=0a8bfb0``, 27 November 2026).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.puzzles.twisty.board import load
from tests.conftest import build_local

pytestmark = pytest.mark.full

#: Positions at depths 0, 1, 2, ... by ``twsearch -g samples/main/FILE``.
TWSEARCH_G: dict[str, list[int]] = {
    # one set, orientations: the 2x2x2 cube with all six faces turning
    "2x2x2.tws": [1, 18, 243, 2874, 28000, 205416, 1168516, 5402628, 20776176, 45391616,
                  15139616, 64736],
    # three sets with orientations
    "skewb.tws": [1, 16, 208, 2280, 19683, 125280, 712032, 3782376, 14705796, 17470272,
                  972336, 1080],
    # seven sets, no orientation
    "235.tws": [1, 8, 48, 266, 1368, 6368, 27055, 104698, 361305, 1079896, 2714168, 5457216,
                8137759, 8017364, 4555656, 1258664, 127888, 768],
    # one set, a permutation
    "lo33.tws": [1, 12, 96, 736, 5208, 28674, 89497, 54741, 2475],
    # identical pieces in two sets
    "puzzlernovice.tws": [1, 5, 25, 98, 409, 1555, 5391, 14419, 28341, 30236, 13760, 2546,
                          213, 21],
}  # fmt: skip


@pytest.fixture(scope="module")
def samples(pytestconfig: pytest.Config) -> Path:
    value = str(pytestconfig.getoption("twsearch_samples"))
    if not value:
        pytest.skip("no --twsearch-samples DIR (twsearch's samples/main) given")
    return Path(value)


@pytest.mark.parametrize("file", list(TWSEARCH_G))
def test_a_twsearch_sample_builds_to_its_counts(samples: Path, tmp_path: Path, file: str) -> None:
    name = file.removesuffix(".tws").replace("2x2x2", "cube222").replace("235", "p235")
    m = build_local(load(samples / file, name), tmp_path)
    assert [lv.positions for lv in m.levels] == TWSEARCH_G[file]
    assert m.total == sum(TWSEARCH_G[file])
