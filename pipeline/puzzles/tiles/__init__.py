"""Sliding-tile puzzles: board.py (boards), moves.py (compiled moves), multi.py and
multi_moves.py (the multi-tile metric), patterns.py (pattern databases)."""
