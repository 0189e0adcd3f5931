"""The level step on Apache Spark (optional extra ``puzzledb[spark]``): see docs/CLUSTER.md.

``java.py`` finds a Java runtime, ``session.py`` starts (and checks) a Spark
session, ``tasks.py`` is what runs in the Python workers, ``executor.py`` the
executor the build loop drives.
"""
