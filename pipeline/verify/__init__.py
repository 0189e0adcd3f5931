"""Checks of a built table: checks.py (the invariants, level by level),
stream.py (the same checks streamed for tables larger than memory)."""
