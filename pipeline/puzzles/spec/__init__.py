"""Puzzles defined in a TOML file (``--spec``): parse.py reads and checks one,
pegs.py and tiles.py turn its family table into a puzzle, base.py holds what
they share (the parsed Spec, the Problem a bad one raises)."""
