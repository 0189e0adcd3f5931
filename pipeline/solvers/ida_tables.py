"""The arrays both IDA* kernels read (ida.py with numba, ida_c.py in C).

Kept apart from ida.py so that a solve through the C kernel never imports numba.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Tables:
    """A board and its pattern databases as the arrays the kernel reads.

    ``nbr[c, :nnbr[c]]`` are the neighbours of cell c. Tile t belongs to group
    ``grp[t]`` and adds ``cell * w[t]`` to that group's index; its database is
    ``pdb[off[g] : off[g] + size]``. For the reflection, tile t stands for tile
    ``rt[t]`` at cell ``refl[cell]``: group ``rgrp[t]``, weight ``rw[t]``.
    """

    nbr: np.ndarray  # (n, 4) int64, -1 padded
    nnbr: np.ndarray  # (n,) int64
    grp: np.ndarray  # (n,) int64, -1 for the blank
    w: np.ndarray  # (n,) int64
    rgrp: np.ndarray  # (n,) int64
    rw: np.ndarray  # (n,) int64
    refl: np.ndarray  # (n,) int64
    off: np.ndarray  # (groups,) int64
    pdb: np.ndarray  # uint8, all databases one after another
    use_refl: bool


@dataclass(frozen=True)
class RankedTables:
    """A board and pattern databases indexed by rank (``struct ranked`` of ida_kernel.c).

    Group g holds tiles ``gt[g, :gk[g]]`` (in increasing order); its index is
    the rank of their cells as a k-permutation of the n cells
    (puzzles/tiles/regions.py: perm_rank), its database ``pdb[off[g]:]``. In
    the reflection tile t stands for tile ``rt[t]`` (group ``rgrp[t]``) and
    cell c for ``refl[c]``.
    """

    nbr: np.ndarray  # (n, 4) int64, -1 padded
    nnbr: np.ndarray  # (n,) int64
    grp: np.ndarray  # (n,) int64
    rgrp: np.ndarray  # (n,) int64
    gt: np.ndarray  # (groups, n) int64
    gk: np.ndarray  # (groups,) int64
    rt: np.ndarray  # (n,) int64
    refl: np.ndarray  # (n,) int64
    off: np.ndarray  # (groups,) int64
    pdb: np.ndarray  # uint8
    use_refl: bool
