"""The ``puzzledb`` command: app.py (the app and main), a module a group of commands
(build.py, tables.py, solve.py with walk.py, query.py), shared.py (their common
options), bars.py (progress bars)."""
