"""The French board in full, outside CI: `make test-full`.

No published per-level table exists for french37. Its level sizes below come
from the pipeline's build (`make bench-french37`); the independent count
(tools/peg_count.py: its own geometry, no engine) reproduces levels 0..12 here
(several minutes). The built table (--french-data, the folder `make
bench-french37` builds into; skipped when it holds no french37) must begin
with these levels and have the published shape (a little under 3 billion
positions, 34 jumps at most, two pegs left at the deepest level, the largest
level over 400 million) at most 5 bytes a position on disk, rows that a
sample shows closed under the board's symmetries and jumps, and pass verify
(every row, one level held at a time: about 20 minutes).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import pipeline
from pipeline.storage.table import Table
from tests.test_pegs_french import FRENCH37_FIRST
from tools import peg_count

pytestmark = pytest.mark.full

#: Positions after 0..34 jumps from the centre (2,993,979,754 in all). Depths
#: 0..19 come from the full build (`make bench-french37`, stopped after depth
#: 19 in the session that measured it); every depth, 0..34, from the class
#: sizes of french37-sym (a second route: canonical forms under the square's 8
#: symmetries, other kernels), which agree with the full build on 0..19; the
#: independent count agrees on 0..12.
FRENCH37_LEVELS = [
    *(1, 4, 20, 108, 536, 2678, 12664, 55222, 222745, 816316, 2683238, 7871309, 20454352),
    *(46848424, 94285698, 166326193, 256798366, 347020326, 410819586, 426884522),
    *(390321549, 314816470, 224246104, 141122532, 78463195, 38440482, 16522952),
    *(6204615, 2018380, 559084, 131510, 26178, 3925, 412, 58),
]
#: Classes of french37-sym (one canonical position each), in all.
FRENCH37_CLASSES = 374_349_517
#: The levels the independent count reaches in test-full.
INDEPENDENT_DEPTH = 12


def test_the_figures_agree_with_make_test() -> None:
    assert FRENCH37_LEVELS[: len(FRENCH37_FIRST)] == FRENCH37_FIRST


def test_the_first_levels_match_the_independent_count(tmp_path: Path) -> None:
    counted = peg_count.count("french37", INDEPENDENT_DEPTH, str(tmp_path))
    assert counted == FRENCH37_LEVELS[: INDEPENDENT_DEPTH + 1]


@pytest.fixture(scope="module")
def built(french_data: Path) -> Path:
    if not (french_data / "french37" / "_manifest.json").exists():
        pytest.skip(f"no french37 built in {french_data}: make bench-french37")
    return french_data


def test_the_built_table_has_these_levels_and_the_published_shape(built: Path) -> None:
    data = built
    db = pipeline.open(data)
    levels = [n for _, n in db.histogram("french37").rows()]
    assert levels == FRENCH37_LEVELS
    assert len(levels) == 35  # depths 0..34: no line ends with one peg
    assert 2_500_000_000 < sum(levels) < 3_000_000_000
    assert max(levels) > 400_000_000
    deepest = db.longest("french37")["position"].to_list()
    assert len(deepest) == levels[34]
    assert {text.replace(" ", "").count("x") for text in deepest} == {2}
    manifest = json.loads((data / "french37" / "_manifest.json").read_text())
    assert sum(f["bytes"] for f in manifest["files"]) <= 5 * sum(levels)


def test_verify_passes_holding_one_level_at_a_time(built: Path) -> None:
    # The certificate, every row: each parent one jump up, every jump out of a
    # level into the next, each level sorted, each state once. A child process,
    # so its peak memory can be bounded: the widest level's states (3.4 GB), not
    # three levels with parents (some 18 GB).
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    r = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "verify", "french37", "--data", str(built)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "french37: ok (2,993,979,754 positions, 35 levels)" in r.stdout
    assert "each state once in the whole table" in r.stdout
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    assert peak < 6 * 2**30 or peak <= before * 1024


def _images(state: int) -> list[int]:
    """The 8 images of a position under the symmetries of the square (the centre fixed)."""
    cells = peg_count.cells("french37")
    index = {rc: i for i, rc in enumerate(cells)}
    maps = [
        lambda r, c: (r, c), lambda r, c: (c, 6 - r), lambda r, c: (6 - r, 6 - c),
        lambda r, c: (6 - c, r), lambda r, c: (r, 6 - c), lambda r, c: (6 - r, c),
        lambda r, c: (c, r), lambda r, c: (6 - c, 6 - r),
    ]  # fmt: skip
    return [
        sum(1 << index[f(r, c)] for i, (r, c) in enumerate(cells) if state >> i & 1) for f in maps
    ]


def _sample(table: Table, depth: int, n: int) -> list[tuple[int, int]]:
    """Up to ``n`` (state, parent) rows of a level, from the first row group of each file."""
    rows: list[tuple[int, int]] = []
    entries = [e for e in table.manifest.files_at(depth) if e.rows]
    for e in entries:
        group = pq.ParquetFile(table.path(e)).read_row_group(0, columns=["state", "parent"])
        states, parents = (group.column(k).to_numpy().astype(np.uint64) for k in (0, 1))
        step = max(1, len(states) * len(entries) // n)
        rows += [(int(s), int(p)) for s, p in zip(states[::step], parents[::step], strict=True)]
    return rows[:n]


def test_sampled_rows_are_closed_under_symmetry_and_jumps(built: Path) -> None:
    # Independent of the engine's geometry: every sampled row's parent is one jump
    # (of peg_count's board) away and one level up, its 8 images are in its level,
    # and every jump out of it lands in the next level.
    table = Table(built / "french37")
    jumps = [(int(f), int(need)) for f, need in peg_count.jump_masks(peg_count.cells("french37"))]
    for depth in range(1, 35):
        for state, parent in _sample(table, depth, 30):
            flip = state ^ parent
            assert any(flip == f and parent & f == need for f, need in jumps), (depth, state)
            assert table.find_at(parent, depth - 1) is not None
            for image in _images(state):
                assert table.find_at(image, depth) is not None, (depth, state, image)
            for f, need in jumps:
                if state & f == need:
                    assert table.find_at(state ^ f, depth + 1) is not None, (depth, state)


def test_french37_sym_expands_to_every_level(tmp_path: Path, french_sym_data: Path | None) -> None:
    # The board's classes (about 5 minutes, 1.7 GB): their sizes give every
    # level's count, the published shape, without the 13 GB full table.
    data = french_sym_data or tmp_path
    db = pipeline.open(data)
    db.build(["french37-sym"])
    sql = (
        'SELECT count(*), sum(class_size)::BIGINT FROM "french37-sym" GROUP BY depth ORDER BY depth'
    )
    rows = db.connection().execute(sql).fetchall()
    assert sum(n for n, _ in rows) == FRENCH37_CLASSES
    assert [s for _, s in rows] == FRENCH37_LEVELS
    # The orbit sums of the manifest (or summed from class_size for a table built before).
    orbits = db.histogram("french37-sym")["orbit_positions"].to_list()
    assert orbits == FRENCH37_LEVELS and sum(orbits) == 2_993_979_754
    assert 2_500_000_000 < sum(FRENCH37_LEVELS) < 3_000_000_000  # "a little under 3 billion"
