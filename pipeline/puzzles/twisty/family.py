"""The twisty family as the rest of the package sees it (puzzles/family.py): puzzles
from twsearch definition files, built from a spec (``build --spec FILE.tws [NAME]``
or a TOML ``[twisty]`` table), drawn a row a set (the 3x3x3 cube as its net of
stickers), with catalog macros of their own (sql.py). Its one built-in puzzle is the
3x3x3 cube (``cube3``: solved by search), whose pattern tables are built-in tables
(``cube3-pdb``: Korf's three; ``cube3-pdb7``: the corners and two tables of seven
edges); a spec's pattern tables are named by the grammar::

    <name>-pdb-<label>    a pattern table of a twisty puzzle (patterns.py)
"""

from __future__ import annotations

from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.family import Family, SpecTable, Variants
from pipeline.puzzles.twisty import cube3, spec, sql
from pipeline.puzzles.twisty.art import Cube3Art, TwistyArt
from pipeline.puzzles.twisty.board import TwistyPuzzle
from pipeline.puzzles.twisty.patterns import TwistyPattern, pattern_table


def _pattern(board: Puzzle, groups: dict[str, str | None]) -> Puzzle | None:
    """``<name>-pdb-<label>``: the pattern table ``label`` of a twisty puzzle."""
    if not isinstance(board, TwistyPuzzle) or isinstance(board, TwistyPattern):
        return None
    return pattern_table(board, str(groups["label"]))


FAMILY = Family(
    "twisty",
    "twisty puzzles from twsearch definitions",
    classes=(TwistyPuzzle,),
    tables=(cube3.CUBE3, *cube3.TABLES, *cube3.TABLES7),
    groups={
        "cube3-pdb": [t.name for t in cube3.TABLES],
        "cube3-pdb7": [cube3.TABLES[0].name, *(t.name for t in cube3.TABLES7)],
    },
    arts={cube3.Cube3: Cube3Art, TwistyPuzzle: TwistyArt},
    sql=sql.statements,
    codec=sql.codec,
    variants=Variants(r"-pdb-(?P<label>[a-z0-9][a-z0-9_]{0,31})", _pattern),
    spec=SpecTable(
        "twisty", spec.KEYS, spec.TABLES, spec.load, spec.SUFFIX, own=spec.own, keep=spec.keep
    ),
)
