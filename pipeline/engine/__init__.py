"""The engine: knows no puzzle and no file format.

core.py (states, levels, graph kinds, the exclusion rule), reference.py (the
whole-level search: the specification), packed.py (compiled moves as uint64
keys), radix.py (sorting and bucketing keys), rows.py (how a step makes and
resolves moves), level.py (how a step reads a finished level), executor.py
(the executor interface), local.py, lanes.py, spill.py (the local executor),
closing.py (zero-cost moves), sequential.py (the reference executor),
budget.py and buffers.py (memory).
"""
