"""Puzzles: every family as data and moves, and the names that find them."""
