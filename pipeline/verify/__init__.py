"""Checks of a built table.

checks.py runs them (the files, the columns, then the levels, then the
duplicates) and fills a report.py Report; the levels are checked by window.py
(a few levels held) or stream.py (a layered table, one level held); both ask
moves.py whether a move is the puzzle's.
"""
