"""The ``puzzledb`` command: app.py (the commands), progress.py (progress bars)."""
