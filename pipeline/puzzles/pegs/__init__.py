"""Peg solitaire boards: board.py (boards, the jump and winnable tables), moves.py
(compiled jumps), chains.py and chain_moves.py (the English board in moves),
symmetries.py, sym.py, sym_moves.py and sym_check.py (one position per symmetry
class), sql.py (catalog macros)."""
