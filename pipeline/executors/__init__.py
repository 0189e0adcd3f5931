"""Executors: who computes a level step, and where.

base.py (the one interface: jobs, results, lifecycle), registry.py (the
executors by name, ``--executor``), sequential.py (the reference executor:
the example to copy when adding one), closing.py (zero-cost moves in rounds),
local/ (this machine: threads, spill files), spark/ (a Spark cluster).
"""
