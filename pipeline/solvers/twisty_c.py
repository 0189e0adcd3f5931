"""The twisty IDA* kernel (twisty_kernel.c) built with the system's compiler, called by ctypes.

Built and cached as the 15 puzzle's kernel is (ida_c.py: the user's cache, a
name hashing the source, compiler and flags, a size and sha256 record checked
before each load). There is no numba twin: without a C compiler a twisty
puzzle too large to tabulate is not solved (one line says so).
"""

from __future__ import annotations

import ctypes
import functools
import subprocess
from pathlib import Path
from typing import Any

from pipeline.solvers import ida_c

SOURCE = Path(__file__).with_name("twisty_kernel.c")
STEM = "twisty"

_I64 = ctypes.c_int64
_U64 = ctypes.c_uint64
_P = ctypes.c_void_p

#: What tw_run answers.
BUSY, FOUND, NONE = 0, 1, 2
#: How a table stores its values (twisty_kernel.c's FMT_*).
BYTE, NIBBLE, MOD3 = 0, 1, 2
#: How a set's arrangement is ranked (KIND_*).
DISTINCT, ONE_REPEATED, MULTISET = 0, 1, 2
#: A table value standing for "farther than any search goes".
FAR = 250


# Any: a ctypes type (c_int64, c_void_p ...), which ctypes' stubs name only privately.
def _fields(*groups: tuple[Any, str]) -> list[tuple[str, Any]]:
    """ctypes fields: for each (type, names) the names, in order, of that type."""
    return [(name, kind) for kind, names in groups for name in names.split()]


class CPuzzle(ctypes.Structure):
    """``struct tw_puzzle``."""

    _fields_ = _fields(
        (_I64, "npos nturns maxtouch any_wild any_illegal ncanon"),
        (_P, "src add touched order wild illegal"),
        (_I64, "nlabels"),
        (_P, "canon solved_perm solved_twist home"),
    )


class CSet(ctypes.Structure):
    """``struct tw_pset``."""

    _fields_ = _fields(
        (_I64, "first n kind k o even implied rep rep_count any_wild"),
        (_U64, "q_size size total"),
        (_P, "lab wild counts fall counted"),
    )


class CPattern(ctypes.Structure):
    """``struct tw_pattern``."""

    _fields_ = _fields(
        (_I64, "nsets format view"),
        (_P, "sets arr"),
        (_U64, "size solved"),
        (_P, "sym_pos sym_label sym_mul sym_add"),
    )


class CSearch(ctypes.Structure):
    """``struct tw_search``."""

    _fields_ = _fields(
        (_P, "pz pats"),
        (_I64, "npat max_depth bound next depth nodes iterations status length"),
        (_P, "root_perm root_twist root_h kid_perm kid_twist inv_perm inv_twist kid_h"),
        (_P, "kid_coord kid_turn kid_canon alive alive_count alive_at chosen canon path"),
    )


@functools.cache
def library() -> ctypes.CDLL | None:
    """The loaded kernel, built on first use; None when it cannot be built or loaded."""
    try:
        lib = ctypes.CDLL(str(ida_c.build(SOURCE, STEM)))
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    lib.tw_coordinate.argtypes = [_P, _P, _P]
    lib.tw_coordinate.restype = _U64
    lib.tw_apply.argtypes = [_P, _I64, _P, _P]
    lib.tw_apply.restype = _I64
    lib.tw_exact.argtypes = [_P, _P, _P, _P]
    lib.tw_exact.restype = _I64
    lib.tw_heuristic.argtypes = [_P, _P, _P]
    lib.tw_heuristic.restype = _I64
    lib.tw_start.argtypes = [_P]
    lib.tw_start.restype = None
    lib.tw_run.argtypes = [_P, _I64]
    lib.tw_run.restype = _I64
    lib.tw_struct_size.argtypes = [_I64]
    lib.tw_struct_size.restype = _I64
    structs = (CPuzzle, CSet, CPattern, CSearch)
    if [lib.tw_struct_size(i) for i in range(4)] != [ctypes.sizeof(c) for c in structs]:
        return None  # a kernel that does not match these structs is never called
    return lib
