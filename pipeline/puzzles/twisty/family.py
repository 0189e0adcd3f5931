"""The twisty family as the rest of the package sees it (puzzles/family.py): puzzles
from twsearch definition files, built from a spec (``build --spec FILE.tws [NAME]``
or a TOML ``[twisty]`` table), drawn a row a set, with catalog macros of their own
(sql.py). No built-in table: every twisty table is a spec's."""

from __future__ import annotations

from pipeline.puzzles.family import Family, SpecTable
from pipeline.puzzles.twisty import spec, sql
from pipeline.puzzles.twisty.art import TwistyArt
from pipeline.puzzles.twisty.board import TwistyPuzzle

FAMILY = Family(
    "twisty",
    "twisty puzzles from twsearch definitions",
    classes=(TwistyPuzzle,),
    arts={TwistyPuzzle: TwistyArt},
    sql=sql.statements,
    codec=sql.codec,
    spec=SpecTable(
        "twisty", spec.KEYS, spec.TABLES, spec.load, spec.SUFFIX, own=spec.own, keep=spec.keep
    ),
)
