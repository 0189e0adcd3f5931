"""``python -m pipeline.cli``: the ``puzzledb`` command without its script."""

from pipeline.cli.app import main

main()
