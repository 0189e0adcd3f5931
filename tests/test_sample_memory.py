"""The bucket sample of a level read from its files holds one chunk at a time.

french37 at the default 3GB budget peaked at 4.04 to 4.41 GB: the sample that
sets the bucket boundaries kept strided views of every chunk it read, so
Arrow's buffers of the whole frontier (2.7 GB at depth 17, 3.4 GB at 19)
stayed alive until the picks were joined, just as the spill pass began.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from pipeline.engine.core import Level
from pipeline.storage.format import FILE_ROWS
from pipeline.storage.writer import write_level

#: Six files of 4,194,304 rows: the sample reads them in six chunks of 32 MiB of states.
ROWS = 6 * FILE_ROWS
CHUNK = FILE_ROWS * 8

#: Reads the level in a fresh process: Arrow's peak bytes, and the picks.
READ = """
import json, sys
from pathlib import Path
import pyarrow as pa
from pipeline.engine.level import sample
from pipeline.storage.manifest import FileEntry
from pipeline.storage.reader import LevelFiles
folder = Path(sys.argv[1])
entries = [FileEntry.parse(e, "") for e in json.loads((folder / "entries.json").read_text())]
picks, parents, counts = sample(LevelFiles(folder, 7, entries), 1000)
print(json.dumps({"peak": pa.default_memory_pool().max_memory(), "picks": picks.tolist(),
                  "parents": parents is None and counts is None}))
"""


def test_sample_of_files_holds_one_chunk_at_a_time(tmp_path: Path) -> None:
    states = np.arange(ROWS, dtype=np.uint64) * np.uint64(37) + np.uint64(5)
    entries = write_level(tmp_path, Level(7, states, states >> np.uint64(1)), {})
    assert len(entries) == 6
    (tmp_path / "entries.json").write_text(json.dumps(entries))
    out = subprocess.run(
        [sys.executable, "-c", READ, str(tmp_path)], capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    stride = ROWS // 1000
    assert got["picks"] == states[::stride].tolist()  # 1,001 picks over the six files
    assert len(got["picks"]) == 1001 and got["parents"]
    # Resident every chunk before (at least 192 MiB of states at the end; 7.3
    # chunks measured); now the chunk being read, the one before and Arrow's
    # read buffers (3.2 chunks measured).
    assert got["peak"] < 5 * CHUNK, got["peak"]
