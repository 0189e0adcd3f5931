"""The engine: knows no puzzle and no file format.

core.py (states, levels, graph kinds, the exclusion rule), reference.py (the
whole-level search: the specification), packed.py (compiled moves as uint64
keys), dense.py (the dense engine: a level by the states' ranks, no sort, by
marks.py or bitmaps.py as the moves decide; space.py: what a puzzle declares
to it), radix.py (sorting and bucketing keys), rows.py (how a step makes and
resolves moves), level.py (how a step reads a finished level), seen.py,
indexed.py, budget.py and buffers.py (memory), kernel_cache.py (where numba
keeps compiled kernels).
"""
