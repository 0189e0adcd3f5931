"""Twisty puzzles from their twsearch (ksolve) definition files (``.tws``).

tws.py (the format, read strictly), pack.py (positions as 64-bit states:
public contract, docs/DATA.md), group.py (how many positions, when group
theory says), tables.py (moves as table look-ups), moves.py (the same
compiled for the fast level step), board.py (the puzzle: :func:`board.load`).
"""
