"""One position of a table: its state, its depth, every move from it with the depth it
leads to, and the n-th (or a random) position at a depth."""

from __future__ import annotations

import operator
import random

from pipeline.answers import NextMove, Origin, Position
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Puzzle
from pipeline.service.folder import Folder
from pipeline.service.walks import missing

#: The verdict of a move of a puzzle solved by search (no table to compare depths in).
BY_SEARCH = "by search"


def state_of(p: Puzzle, position: str | int) -> int:
    """A typed position (or a state number) as a state of puzzle ``p``."""
    if isinstance(position, str):
        return p.parse(position)
    try:
        number = operator.index(position)  # int, numpy integers
    except TypeError:
        raise BadPosition(f"a position is text or a state number, not {position!r}") from None
    return p.check_state(number)


def random_state(p: Puzzle, seed: int | None = None) -> int:
    """A uniformly random position of ``p`` picked without its table (a twisty puzzle's
    group: Schreier-Sims); BadMethod where the family cannot."""
    return p.random_state(random.Random(seed))


def canonical(p: Puzzle, state: int) -> int:
    """The state a table of symmetry classes (``<board>-sym``) stores ``state``'s class
    as: its smallest image; BadPosition for a puzzle without symmetries."""
    if p.canonical is None:
        raise BadPosition(f"{p.name} has no symmetry classes (try {p.name}-sym)")
    return p.variants(state)[0]


def depth(folder: Folder, p: Puzzle, state: int, near: int | None = None) -> int | None:
    """The depth of position ``state`` in ``p``'s table (the least over the states it
    stands for), or None when it is not there; ``near``: look around that depth first."""
    table = folder.table(p)
    hits = [h for h in (table.find(s, p.depth_parity(s), near) for s in p.variants(state)) if h]
    return min(h.depth for h in hits) if hits else None


def depth_of(folder: Folder, p: Puzzle, state: int) -> int:
    """The depth of a position that must be in the table; one line saying why it is not."""
    found = depth(folder, p, state)
    if found is None:
        raise missing(folder, p, state, p)
    return found


def position(folder: Folder, p: Puzzle, typed: int) -> Position:
    """A position with its depth and every move from it with the depth it leads to. On a
    table of symmetry classes the position is its class's smallest image."""
    p = p.in_folder(folder.data)
    if p.search_tables():
        return _searched(p, typed)
    state = p.variants(typed)[0] if p.canonical is not None else typed
    at = depth(folder, p, state)
    judge = _judge(folder, p)
    moves = []
    for made, stored in p.moves_from(state):
        d = depth(folder, p, stored, near=at)
        won = None if judge is None else depth(folder, judge, stored) is not None
        verdict = _verdict(p.origin, at, d, won)
        moves.append(NextMove(made, stored, d, verdict, p.notation([state, made])))
    classes = p.canonical is not None
    name = None if judge is None else judge.name
    return Position(p.name, state, typed, p.origin, at, moves, name, classes)


def _searched(p: Puzzle, state: int) -> Position:
    """A position of a puzzle solved by search: no table, so no depth; each move's
    position, its verdict ``by search`` (its solution is a search of its own)."""
    moves = [
        NextMove(made, stored, None, BY_SEARCH, p.notation([state, made]))
        for made, stored in p.moves_from(state)
    ]
    return Position(p.name, state, state, p.origin, None, moves)


def _judge(folder: Folder, p: Puzzle) -> Puzzle | None:
    """The built table saying won/lost for the moves of a start-rooted board, or None."""
    judge = p.solved_by
    if p.origin is not Origin.START or judge is None or judge == p.name:
        return None
    return folder.puzzle(judge) if folder.is_built(judge) else None


def _verdict(origin: Origin, depth: int | None, child: int | None, won: bool | None) -> str:
    """How a move compares: nearer/same/farther from the goal, or won/lost, or unknown."""
    if origin is Origin.GOAL:
        if depth is None or child is None:
            return "unknown"
        return "nearer" if child < depth else "same" if child == depth else "farther"
    return "unknown" if won is None else "won" if won else "lost"


def at_depth(folder: Folder, p: Puzzle, depth: int, nth: int | None = None) -> int:
    """The ``nth`` position at ``depth`` in state order (from 0; None: one at random)."""
    name = p.name
    table = folder.table(p)
    counts = dict(table.histogram())
    if depth not in counts:
        deepest = max(counts, default=0)
        raise BadPosition(f"{name} has no positions at depth {depth} (depths 0..{deepest})")
    n = random.randrange(counts[depth]) if nth is None else nth
    if not 0 <= n < counts[depth]:
        raise BadPosition(
            f"depth {depth} of {name} has {counts[depth]:,} positions: n is 0..{counts[depth] - 1}"
        )
    return table.nth(depth, n)


def properties(folder: Folder, p: Puzzle, state: int) -> dict[str, int | bool | None]:
    """A position's depth (None when the table is not built or lacks it), whether it is
    solved (depth 0 of a table built from its goal), and its family's own properties
    (a peg board's pegs left, sliding tiles' blank cell and tiles out of place)."""
    at = depth(folder, p, p.variants(state)[0]) if folder.is_built(p.name) else None
    out: dict[str, int | bool | None] = {"depth": at}
    if p.origin is not Origin.START:
        searched = p.search_tables()  # no table: solved is its goal
        out["solved"] = p.text(state) in p.root_texts if searched else at == 0
    return {**out, **p.properties(state)}
