"""The pocket cube family as the rest of the package sees it (puzzles/family.py):
its two metrics and its drawing as a net of facelets."""

from __future__ import annotations

from pipeline.puzzles.cube.art import CubeArt
from pipeline.puzzles.cube.board import POCKET, POCKET_QTM, PocketCube
from pipeline.puzzles.family import Family

FAMILY = Family(
    "cube",
    "twisty puzzles",
    classes=(PocketCube,),
    tables=(POCKET, POCKET_QTM),
    arts={PocketCube: CubeArt},
)
