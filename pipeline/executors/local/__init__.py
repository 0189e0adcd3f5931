"""The local executor: level steps on this machine, within its memory.

executor.py (planning a step: the dense engine of engine/dense.py, or whole,
re-expanded or spilled buckets), lanes.py (packed keys on two threads),
spill.py (buckets of rows spilled to files). Their files are
storage/scratch.py's.
"""
