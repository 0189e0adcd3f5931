"""Builds under a memory budget: buckets, identical output, kill -9 and resume."""

from __future__ import annotations

import gc
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.api import QUERIES
from pipeline.engine import budget, reference
from pipeline.engine import rows as row_rules
from pipeline.engine.buffers import Pool
from pipeline.engine.core import Graph, Level
from pipeline.engine.level import InMemory
from pipeline.engine.rows import MoveRules
from pipeline.executors.base import LevelJob
from pipeline.executors.local.executor import LocalExecutor
from pipeline.puzzles import registry as puzzles
from pipeline.storage.table import Table
from pipeline.verify.checks import duplicates
from tests.conftest import build_local

#: Bytes for the level step: small enough that 2x5's big levels need dozens of buckets.
SMALL = 400_000


def _sha(folder: Path) -> list[str]:
    return [f["sha256"] for f in json.loads((folder / "_manifest.json").read_text())["files"]]


def _rows(folder: Path) -> pa.Table:
    return pq.read_table(sorted(folder.glob("*.parquet")), columns=["state", "depth", "parent"])


def _same_rows(a: Path, b: Path, rows: int = 1_814_400) -> None:
    ta, tb = _rows(a), _rows(b)
    assert ta.num_rows == tb.num_rows == rows
    assert ta.equals(tb)  # every row: state, depth, parent (nulls at the root)
    assert _sha(a) == _sha(b)  # the same parts, byte for byte


@pytest.mark.parametrize(
    ("name", "tag_bits", "rows"), [("2x5", 2, 1_814_400), ("triangle15", 7, 4_237)]
)
def test_packed_moves_give_the_rows_of_the_general_step(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, tag_bits: int, rows: int
) -> None:
    # The default builds run on (child, parent) rows (their levels are below
    # PACKED_MIN); on packed keys (packed.py, compiled moves) every level gives
    # the same bytes.
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    p = puzzles.get(name)
    assert p.kernels is not None and p.kernels.tag_bits == tag_bits
    m = build_local(p, tmp_path)
    assert all(lv.stats["pairs"] > 0 for lv in m.levels[1:-1])
    _same_rows(tmp_path / name, data / name, rows)


def test_parse_memory() -> None:
    assert budget.parse_memory("3GB") == 3 << 30
    assert budget.parse_memory("512mb") == 512 << 20
    assert budget.parse_memory("1.5G") == 3 << 29
    with pytest.raises(budget.BadMemory):
        budget.parse_memory("lots")


@pytest.mark.parametrize("packed", [False, True])  # (child, parent) rows, packed keys
def test_small_budget_gives_every_row_of_the_in_memory_build(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed: bool
) -> None:
    if packed:
        monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    m = build_local(puzzles.get("2x5"), tmp_path, work=SMALL // (3 if packed else 1))
    buckets = [lv.stats["buckets"] for lv in m.levels]
    assert max(buckets) >= 20 and sum(b > 1 for b in buckets) >= 20
    whole = json.loads((data / "2x5" / "_manifest.json").read_text())
    assert all(lv["buckets"] == 1 for lv in whole["levels"])  # 3GB: all in memory
    assert m.total == 1_814_400 and m.max_depth == 55
    _same_rows(tmp_path / "2x5", data / "2x5")
    assert not (tmp_path / ".staging" / "2x5").exists()  # spill files gone


@pytest.mark.parametrize("buckets", [1, 3, 9])  # in memory, re-expanded, spilled
@pytest.mark.parametrize("name", ["oshidori", "3x3", "3x3 packed"])
def test_buckets_for_every_graph_kind(name: str, buckets: int) -> None:
    # Reversible (oshidori) and bipartite (3x3) as declared, and each as a general graph
    # (checked against every level): bucketed steps give the in-memory search's levels,
    # with (child, parent) rows or with packed keys.
    name, packed = name.split()[0], name.endswith("packed")
    p = puzzles.get(name)
    assert (p.kernels is not None) == (name == "3x3")
    for graph in (p.graph, Graph.GENERAL, Graph.LAYERED):
        # Layered, these graphs never end (no dedup across levels): take 8 levels.
        limit = 8 if graph is Graph.LAYERED else None
        want = list(itertools.islice(reference.search(p.roots(), p.expand, graph), limit))
        got = [want[0]]
        done = [InMemory(0, want[0].states, want[0].parents)]
        spill = Path(os.environ.get("TMPDIR", "/tmp")) / f"spill-{os.getpid()}-{name}-{buckets}"
        executor = LocalExecutor(spill, Pool(1 << 30))
        rules = MoveRules(
            p.expand, p.kernels if packed else None, skip_back=graph is not Graph.LAYERED
        )
        while len(got) < len(want):
            d = got[-1].depth
            exclude = {
                Graph.BIPARTITE: done[-2:-1],
                Graph.REVERSIBLE: done[-2:],
                Graph.LAYERED: [],
                Graph.GENERAL: done,
            }[graph]
            runs: list[tuple[np.ndarray, np.ndarray]] = []
            stats = executor.run_level(
                LevelJob(done[-1], exclude, rules, 1 << 30, buckets=buckets),
                # Copies, so the packed step reuses its buffers from run to run.
                lambda s, q, _w, runs=runs: runs.append((s.copy(), q.copy())) or True,
            )
            assert stats.buckets == buckets or len(done[-1]) < 20
            states = np.concatenate([r[0] for r in runs]) if runs else np.empty(0, np.uint64)
            parents = np.concatenate([r[1] for r in runs]) if runs else np.empty(0, np.uint64)
            got.append(Level(d + 1, states, parents))
            done.append(InMemory(d + 1, states, parents))
        for a, b in zip(got, want, strict=True):
            assert np.array_equal(a.states, b.states), (name, graph, a.depth)
            assert np.array_equal(a.parents, b.parents), (name, graph, a.depth)


def _progress(staging: Path) -> int:
    try:
        return len(json.loads((staging / "progress.json").read_text())["levels"])
    except (OSError, ValueError, KeyError):
        return 0


def test_kill_9_at_several_points_then_rerun_gives_identical_rows(
    data: Path, tmp_path: Path
) -> None:
    staging = tmp_path / ".staging" / "2x5"
    script = (
        "import sys; from pathlib import Path; from pipeline.puzzles import registry as puzzles; "
        "from tests.conftest import build_local; "
        f"build_local(puzzles.get('2x5'), Path(sys.argv[1]), work={SMALL})"
    )
    # Kill after a few levels, in the middle of a bucketed level (spill files on
    # disk), and late in the search; each time the next run resumes and goes on.
    points = [
        ("levels", 8),
        ("spill", None),
        ("levels", 40),
    ]
    before = 0
    for kind, arg in points:
        proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if kind == "levels" and _progress(staging) >= arg:
                break
            if kind == "spill" and any((staging / "spill").glob("b*.bin")):
                break
            time.sleep(0.005)
        assert proc.poll() is None, "the build ended before the kill point"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done = _progress(staging)
        assert done >= before  # finished levels survive the kill
        before = done
        assert not (tmp_path / "2x5").exists()
    seen: list[int] = []
    m = build_local(
        puzzles.get("2x5"), tmp_path, work=SMALL, on_level=lambda d: seen.append(d.depth)
    )
    assert seen and seen[0] == before  # resumed after the last finished level
    assert m.total == 1_814_400
    _same_rows(tmp_path / "2x5", data / "2x5")


def test_a_budget_too_small_to_work_in_is_one_clear_line(tmp_path: Path) -> None:
    args = ["build", "2x5", "--memory", "10MB", "--data", str(tmp_path)]
    r = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "memory budget" in r.stderr


def test_duplicates_are_counted_range_by_range(data: Path) -> None:
    table = Table(data / "2x5")
    assert duplicates(table, rows=1) == 0  # one range per row group: many ranges
    copy = next(f for f in table.files if f.depth == 20)
    table.files.append(copy)  # the same level twice: each of its states repeats
    assert duplicates(table, rows=1) == copy.rows > 0


def test_histogram_from_the_manifest_matches_the_rows(data: Path) -> None:
    import pipeline

    db = pipeline.open(data)
    counted = db.query((QUERIES / "histogram.sql").read_text(), {"puzzle": "2x5"}).rows()
    assert db.histogram("2x5").rows() == counted
    assert counted[-1] == (55, 2)


def test_level_writer_cuts_the_parts_write_level_cuts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Runs of any sizes (buckets) give the same parts, byte for byte, as one whole level.
    from pipeline.storage import writer as store

    monkeypatch.setattr(store, "FILE_ROWS", 1000)
    rng = np.random.default_rng(7)
    states = np.unique(rng.integers(0, 1 << 40, 4321, dtype=np.uint64))
    parents = rng.integers(0, 1 << 40, len(states), dtype=np.uint64)
    meta = {"puzzledb.table": "t"}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    whole = store.write_level(tmp_path / "a", Level(3, states, parents), meta)
    writer = store.LevelWriter(tmp_path / "b", 3, meta)
    cuts = np.sort(rng.choice(len(states), 30, replace=False))
    for lo, hi in itertools.pairwise([0, *cuts.tolist(), len(states)]):
        writer.add(states[lo:hi], parents[lo:hi])
    runs = writer.close()
    assert len(whole) == 5
    assert [e["sha256"] for e in runs] == [e["sha256"] for e in whole]


def test_zero_cost_moves_build_at_any_budget_or_stop_clearly(tmp_path: Path) -> None:
    # Bucketed like any other step (closing.py): the same rows whole and at a tiny
    # work; a budget too small to work in is refused with the usual message.
    from pipeline.puzzles.base import Cells, Puzzle
    from tests.test_engine import table_expander

    class Free(Puzzle):
        name, title, origin, encoding = "free", "made up", "start", "a number"
        graph = Graph.GENERAL
        cells = Cells(1, 4, tuple("0123456789abcdef"), "{0}")
        root_texts = ("0",)
        expand_free = staticmethod(table_expander({0: [5], 5: [6], 6: [3], 1: [4]}))

        def expand(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return table_expander({0: [1], 1: [2], 2: [3], 6: [7]})(states)

    m = build_local(Free(), tmp_path / "a")
    assert [lv.positions for lv in m.levels] == [4, 3, 1]
    tiny = build_local(Free(), tmp_path / "t", work=1024)
    assert [f.sha256 for f in tiny.files] == [f.sha256 for f in m.files]
    with pytest.raises(budget.BadMemory, match="leaves no room to work"):
        build_local(Free(), tmp_path / "b", memory=100)
    assert not (tmp_path / "b" / "free").exists()  # no half table


def test_the_levels_a_bucket_is_checked_against_count_in_its_memory() -> None:
    """A reversible graph checks each bucket against its range of the two levels
    before, read from files: 4x4-pdb-8's depth 25 (167M keys a step of 20 bytes,
    316M states before) takes 8 buckets of a 2.4 GiB work where its keys alone took 6."""
    work, keys, before = int(2.4 * 2**30), 618_000_000, 316_000_000
    assert budget.buckets(keys, 1.0, 0, work, budget.KEY_BYTES) == 6
    with_them = budget.buckets(keys, 1.0, 0, work, budget.KEY_BYTES, before)
    assert with_them == 8
    share = (keys * budget.KEY_BYTES * 1.25 + before * budget.EXCLUDED_BYTES) / with_them
    assert share <= work


def test_a_build_freezes_what_its_kernels_loaded_and_thaws_it_at_the_end(tmp_path: Path) -> None:
    # The pocket cube's levels 8 and 9 (870,072 and 1,887,748 positions) take the
    # compiled moves; what is loaded by then is out of the collector's passes for
    # the build, and back in once it ends (an API process builds on).
    frozen: list[int] = []
    made = build_local(
        puzzles.get("pocket"),
        tmp_path,
        max_depth=9,
        on_level=lambda _: frozen.append(gc.get_freeze_count()),
    )
    assert made.total == 1 + 9 + 54 + 321 + 1847 + 9992 + 50136 + 227536 + 870072 + 1887748
    assert max(frozen) > 0
    assert gc.get_freeze_count() == 0
