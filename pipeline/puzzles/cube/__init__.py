"""The pocket cube (2x2x2): board.py (the puzzle), moves.py (its compiled moves)."""
