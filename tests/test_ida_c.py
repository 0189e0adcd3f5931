"""The C IDA* kernel (solvers/ida_c.py) against the numba one (solvers/ida.py).

Both must be the same search: same length, same nodes generated, same tiles
slid, on every position. The 8 puzzle uses its real pattern databases; the
15 puzzle (whose databases take minutes to build) uses the Manhattan distance
stored in the shape of its 6-6-3 databases, a true lower bound and zero only
at the goal, so that the whole kernel runs (reflection included) in seconds.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.solvers import ida_c, optimal
from pipeline.solvers.loop15 import apply_moves


@pytest.fixture(scope="module")
def pdb3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pdb3")
    pipeline.open(folder).build([p.name for p in optimal.patterns("3x3")])
    return folder


def solvers(board: str, arrays: list[np.ndarray], reflect: bool = True) -> list[optimal.Solver]:
    return [optimal.Solver(board, arrays, reflect=reflect, kernel=k) for k in ("c", "numba")]


def random_walk(rows: int, cols: int, moves: int, rng: random.Random) -> list[int]:
    """A position some moves from the goal (never undoing the last move)."""
    n = rows * cols
    cells, z, last = [*range(1, n), 0], n - 1, -1
    for _ in range(moves):
        r, c = divmod(z, cols)
        nbrs = [r * cols + cc for cc in (c - 1, c + 1) if 0 <= cc < cols]
        nbrs += [rr * cols + c for rr in (r - 1, r + 1) if 0 <= rr < rows]
        j = rng.choice([x for x in nbrs if x != last])
        cells[z], cells[j], last, z = cells[j], 0, z, j
    return cells


def agree(pair: list[optimal.Solver], cells: list[int]) -> int:
    c, nb = (s.solve(cells) for s in pair)
    assert (c.tiles, c.nodes) == (nb.tiles, nb.nodes), cells
    assert pair[0].heuristic(cells) == pair[1].heuristic(cells)
    return c.moves


def test_the_kernels_agree_on_300_random_8_puzzles(pdb3: Path) -> None:
    db = pipeline.open(pdb3)
    arrays = [optimal.load_compact(db.table(p.name), p) for p in optimal.patterns("3x3")]
    pair, plain = solvers("3x3", arrays), solvers("3x3", arrays, reflect=False)
    assert [s.kernel.name for s in pair] == ["c", "numba"]
    rng = random.Random(12)
    lengths = []
    while len(lengths) < 300:
        cells = rng.sample(range(9), 9)
        inversions = sum(a > b for i, a in enumerate(cells) for b in cells[i + 1 :] if a and b)
        if inversions % 2 == 0:  # the solvable half (3 columns: parity of inversions)
            lengths.append(agree(pair, cells))
            if len(lengths) % 10 == 0:
                assert agree(plain, cells) == lengths[-1]
    assert max(lengths) >= 26 and min(lengths) >= 1  # 8-puzzle: 21.97 on average, 31 at most
    assert abs(sum(lengths) / len(lengths) - 21.97) < 1.0


def manhattan_4x4() -> list[np.ndarray]:
    """Per 6-6-3 pattern, its tiles' Manhattan distance at every index sum(cell_i * 16**i)."""
    cell = np.arange(16)
    out = []
    for p in optimal.patterns("4x4"):
        dist = [abs(cell // 4 - (t - 1) // 4) + abs(cell % 4 - (t - 1) % 4) for t in p.tiles]
        total = np.zeros(1, np.int64)
        for d in reversed(dist):  # the first tile is the lowest digit: the last axis
            total = np.add.outer(total, d).ravel()
        out.append(total.astype(np.uint8))
    return out


def test_the_kernels_agree_on_200_walks_of_the_15_puzzle() -> None:
    pair = solvers("4x4", manhattan_4x4())
    rng = random.Random(15)
    total_nodes = 0
    for i in range(200):
        cells = random_walk(4, 4, 20 + i % 21, rng)
        moves = agree(pair, cells)
        r = pair[0].solve(cells)
        assert apply_moves(cells, r.tiles) == (*range(1, 16), 0)
        assert moves <= 20 + i % 21 and moves % 2 == (20 + i % 21) % 2
        total_nodes += r.nodes
    assert total_nodes > 100_000  # searches, not look-ups


def test_a_failed_compile_falls_back_to_numba(tmp_path: Path, pdb3: Path) -> None:
    # A compiler that does not exist, a fresh cache: the solve still answers, via numba.
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc"), "PUZZLEDB_CACHE": str(tmp_path)}
    code = (
        "import sys, pipeline; r = pipeline.open(sys.argv[1]).solve_by('3x3', "
        "'6 4 7 8 5 0 3 2 1', 'optimal', build=False); "
        "print(r.moves, 'numba' in sys.modules)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(pdb3)], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["31", "True"]
    assert not list(tmp_path.glob("ida-*"))
    said = subprocess.run(
        [sys.executable, "-m", "pipeline.solvers.ida_c"], env=env, capture_output=True, text=True
    )
    assert said.returncode == 0 and "not built" in said.stdout and "numba" in said.stdout
    solve = ["solve", "3x3", "6 4 7 8 5 0 3 2 1", "--method", "optimal", "--data", str(pdb3)]
    forced = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *solve],
        env={**env, ida_c.ENV: "c"},
        capture_output=True,
        text=True,
    )
    assert forced.returncode == 1 and forced.stderr.count("\n") == 1, forced.stderr
    assert "C kernel cannot be built" in forced.stderr


def test_the_c_kernel_is_built_once_and_spares_numba(tmp_path: Path, pdb3: Path) -> None:
    env = {**os.environ, "PUZZLEDB_CACHE": str(tmp_path)}
    env.pop(ida_c.ENV, None)
    code = (
        "import sys, pipeline; r = pipeline.open(sys.argv[1]).solve_by('3x3', "
        "'6 4 7 8 5 0 3 2 1', 'optimal', build=False); "
        "print(r.moves, 'numba' in sys.modules)"
    )
    for _ in range(2):
        run = subprocess.run(
            [sys.executable, "-c", code, str(pdb3)], env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == ["31", "False"]
    assert len(list(tmp_path.glob("ida-*.so"))) == 1 and not list(tmp_path.glob("*.tmp"))


def test_is_built_agrees_with_built(tmp_path: Path, pdb3: Path) -> None:
    # is_built (one manifest, the solve path) against built (every manifest of the folder).
    folder = tmp_path / "data"
    shutil.copytree(pdb3, folder)
    shutil.copytree(folder / "3x3-pdb-4a", folder / "2x3")  # a manifest naming another table
    (folder / "3x3-pdb-4b" / "_manifest.json").write_text("{")  # damaged
    db = pipeline.open(folder)
    assert db.built() == ["3x3-pdb-4a"]
    names = ["3x3-pdb-4a", "3x3-pdb-4b", "2x3", "3x3", "../data/3x3-pdb-4a", ".", ""]
    assert [db.is_built(n) for n in names] == [n in db.built() for n in names]
    assert not pipeline.open(tmp_path / "none").is_built("3x3-pdb-4a")
