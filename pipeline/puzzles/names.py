"""Registry names built from parts: another metric, another goal, a typed root.

The grammar (part of the data contract, docs/SPECS.md):

    sliding boards   <board>[-multi][@<cell>]      3x3-multi, 3x3@4, 3x3-multi@4, hex6@3
                     <board>[-multi]~<hash>        3x3~1b2c3d4e: from a root the user typed
    peg boards       <board>[@<hole>][-winnable]   triangle15@3-winnable
                     <board>~<hash>

``<board>`` is a built-in board (``3x3``, ``hex6``, ``triangle15`` ...), any
rectangle ``RxC`` (2 <= R, C and R*C <= 16), or the name of a spec in the
data folder (pipeline/puzzles/spec/parse.py). ``-multi`` (rectangles only) counts
a slide of several tiles of one line as one move (tiles/multi.py). ``@<cell>``
puts the blank (the empty hole) there and the tiles in order in the other
cells. ``<hash>`` is the first 8 hex digits of the sha256 of the root as the
board prints it (``board(puzzle, state)``, e.g. ``'8 6 7 2 5 4 3 0 1'``): it
depends on the position alone, so ``3x3~h`` and ``3x3-multi~h`` start from the
same root. Such a table is found again from the root its manifest records.

The one grammar: the families supply the boards (the built-ins, builtin.py;
rectangles, tiles/board.py; specs, spec/parse.py) and the puzzles a suffix
makes (``goal_cell``, ``TilePuzzle.with_goal``, ``PegPuzzle``'s start hole,
``WinnablePuzzle``, ``multi_rectangle``); no family parses a name.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path

from pipeline.errors import BadPosition, PuzzleDBError, UnknownPuzzle
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.builtin import REGISTRY, unknown
from pipeline.puzzles.pegs.board import PegPuzzle, WinnablePuzzle
from pipeline.puzzles.spec import parse as spec
from pipeline.puzzles.tiles.board import TilePuzzle, rectangle
from pipeline.puzzles.tiles.multi import MultiTilePuzzle, multi_rectangle
from pipeline.words import permutation_fault

ROOTED = re.compile(r"(?P<base>[a-z0-9_]+(?:-multi)?)~(?P<hash>[0-9a-f]{8})")
VARIANT = re.compile(
    r"(?P<board>[a-z0-9_]+?)(?P<multi>-multi)?(?:@(?P<cell>\d+))?(?P<winnable>-winnable)?"
)
RECTANGLE = re.compile(r"(\d+)x(\d+)")


def root_hash(text: str) -> str:
    """The short stable hash of a root, from its text as the board prints it."""
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def resolve(name: str, data: Path | None = None) -> Puzzle | None:
    """The puzzle a name stands for: a built-in, else the one its parts build; None
    when it is neither (the registry says why).

    Names that depend on the data folder (specs, typed roots) need ``data``.
    """
    found = REGISTRY.get(name)
    if found is not None:
        return found
    m = ROOTED.fullmatch(name)
    if m:
        return _rooted_from_folder(name, m["base"], data)
    m = VARIANT.fullmatch(name)
    if not m:
        return None
    board = _board(m["board"], data)
    if board is None:
        return None
    if m["multi"]:
        board = _multi(board)
    cell = int(m["cell"]) if m["cell"] is not None else None
    if isinstance(board, TilePuzzle) and not m["winnable"]:
        return board if cell is None else goal_cell(board, cell)
    if type(board) is PegPuzzle:
        p = board if cell is None else _peg_start(board, cell)
        return WinnablePuzzle(p) if m["winnable"] else p
    return board if name == board.name else None  # a board of another family: no suffixes


def _board(name: str, data: Path | None) -> Puzzle | None:
    """A board the grammar builds on: built-in, any rectangle, or a spec in ``data``."""
    found = REGISTRY.get(name)
    if found is not None:
        plain = type(found) in (TilePuzzle, PegPuzzle)
        return found if plain else None
    m = RECTANGLE.fullmatch(name)
    if m:
        rows, cols = int(m[1]), int(m[2])
        return rectangle(rows, cols) if rows >= 2 and cols >= 2 and rows * cols <= 16 else None
    return spec.board(name, data) if data is not None else None


def _multi(board: Puzzle) -> MultiTilePuzzle:
    m = RECTANGLE.fullmatch(board.name)
    if m is None or not isinstance(board, TilePuzzle):
        raise UnknownPuzzle(f"{board.name}-multi: the multi-tile metric is for rectangles only")
    known = REGISTRY.get(f"{board.name}-multi")
    return known if isinstance(known, MultiTilePuzzle) else multi_rectangle(int(m[1]), int(m[2]))


def goal_cell(board: TilePuzzle, cell: int) -> TilePuzzle:
    """The board whose goal has the blank in ``cell`` and the tiles in order elsewhere."""
    n = board.cells.count
    if not 0 <= cell < n:
        raise UnknownPuzzle(f"{board.name} has cells 0..{n - 1}: no {board.name}@{cell}")
    tiles = iter(range(1, n))
    goal = [0 if c == cell else next(tiles) for c in range(n)]
    return board.with_goal(goal, f"{board.name}@{cell}", f"{board.title}, blank in cell {cell}")


def _peg_start(board: PegPuzzle, hole: int) -> PegPuzzle:
    p = PegPuzzle(board.board, empty=hole, name=f"{board.name}@{hole}")
    p.spec = board.spec
    return p


class RootedPegPuzzle(PegPuzzle):
    """A peg board enumerated from a position the user typed (depth = jumps from it).

    ``solve`` walks this table itself: the walk, read backwards, is a line of
    jumps from the root to the position (there is no goal to win towards).
    """

    def __init__(self, base: PegPuzzle, state: int, name: str) -> None:
        super().__init__(base.board, empty=base.empty, name=name)
        self.spec = base.spec
        self.root_texts = (base.text(state),)
        self.title = f"peg solitaire, {base.board.title}, from {base.text(state)}, in jumps"
        self.solved_by = name

    def describe(self) -> dict[str, object]:
        return {k: v for k, v in super().describe().items() if k != "goal"}


def rooted(base: Puzzle, text: str) -> Puzzle:
    """The board of ``base`` enumerated from the typed position ``text`` (``<base>~<hash>``)."""
    if not isinstance(base, TilePuzzle) and type(base) is not PegPuzzle:
        raise UnknownPuzzle(
            f"{base.name}: tables from a typed root are for sliding boards and peg boards"
        )
    if "@" in base.name:
        raise UnknownPuzzle(f"{base.name}: give the board without @ (the root is the goal)")
    values = base.cells.parse_values(text)
    if isinstance(base, TilePuzzle):
        _check_permutation(values)
    state = base.cells.encode(values)
    canonical = base.text(state)
    name = f"{base.name}~{root_hash(canonical)}"
    if isinstance(base, TilePuzzle):
        return base.with_goal(values, name, f"{base.title}, from {canonical}")
    assert isinstance(base, PegPuzzle)
    return RootedPegPuzzle(base, state, name)


def _check_permutation(values: list[int]) -> None:
    n = len(values)
    fault = permutation_fault(values, n)
    if fault:
        raise BadPosition(f"each of 0..{n - 1} must appear once: {fault}")


def recorded_root(data: Path, name: str) -> str | None:
    """The root a built (or building) table records: its manifest, else its staging."""
    from pipeline.storage import files, manifest

    with contextlib.suppress(PuzzleDBError):
        roots = manifest.read(data / name).puzzle["roots"]
        if roots:
            return str(roots[0])
    try:  # a build in progress (progress.json holds the same description)
        progress = data / ".staging" / name / "progress.json"
        roots = files.read_json(progress, files.MANIFEST_LIMIT)
        roots = roots["puzzle"]["roots"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return str(roots[0]) if roots else None


def _rooted_from_folder(name: str, base: str, data: Path | None) -> Puzzle | None:
    if data is None:
        return None
    root = recorded_root(data, name)
    if root is None:
        return None
    board = resolve(base, data)
    if board is None:
        raise unknown(base)
    p = rooted(board, root)
    if p.name != name:
        raise UnknownPuzzle(f"{name}: the root its manifest records hashes to {p.name}")
    return p
