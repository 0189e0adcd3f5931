"""The one walk along parents: a solve, the explorer's strip, the report's solutions.

A position is walked in a table (its own, or the one its puzzle is solved by:
a peg board's winnable table) from every state it stands for (a symmetry
class's smallest image, a moves board's last-jump variants); the shortest
walk is kept and turned into positions one move apart from the position as
typed. :attr:`Solution.line` is the one place that reads it in playing order.
"""

from __future__ import annotations

import dataclasses

from pipeline import hints
from pipeline.answers import Origin, Solution
from pipeline.errors import BadPosition, PuzzleDBError
from pipeline.puzzles.base import Puzzle
from pipeline.service.folder import Folder


def walk(folder: Folder, p: Puzzle, state: int, walked: Puzzle) -> Solution | None:
    """The walk from position ``state`` of ``p`` to a root of ``walked``'s table (``p``'s
    own, or the one it is solved by), or None when no state it stands for is there.
    ``moves`` is the depth walked (a step that costs nothing, a peg's jump that goes
    on with the same peg, counts none)."""
    t = folder.table(walked)
    walks = [w for w in (t.walk(s, walked.depth_parity(s)) for s in p.variants(state)) if w]
    if not walks:
        return None
    rows = min(walks, key=lambda w: (w[0].depth, w[0].state))
    origin = walked.walk_origin
    states = p.as_typed(state, [r.state for r in rows], forward=origin.towards)
    texts = p.texts(states)
    sol = Solution(p.name, origin, states, texts, cost=rows[0].depth - rows[-1].depth)
    return dataclasses.replace(sol, notation=p.notation(sol.line))


def solver(folder: Folder, p: Puzzle) -> Puzzle:
    """The puzzle whose table answers ``solve`` for ``p``: the one it is solved by (a peg
    board's winnable table), else ``p`` itself."""
    return folder.puzzle(p.solved_by) if p.solved_by else p


def solve(folder: Folder, p: Puzzle, state: int) -> Solution:
    """The walk that answers ``solve``: in the table ``p`` is solved by (a peg board's
    winnable table), else its own; one line saying why when there is none."""
    table = solver(folder, p)
    sol = walk(folder, p, state, table)
    if sol is None:
        raise missing(folder, p, state, table)
    return sol


def from_start(folder: Folder, p: Puzzle, state: int) -> Solution:
    """The line from the start to position ``state`` in ``p``'s own table (a peg board's:
    reached, won or lost); one line when the table is not enumerated from a start (its
    walks end at the goal: ``solve`` prints those) or lacks it."""
    if p.walk_origin is not Origin.START:
        raise BadPosition(
            f"{p.name} is enumerated from its {p.walk_origin}, not from a start: "
            f"{hints.command(f'solve {p.name} POSITION', folder.data)} gives its line"
        )
    sol = walk(folder, p, state, p)
    if sol is None:
        raise missing(folder, p, state, p)
    return sol


def missing(folder: Folder, p: Puzzle, state: int, table: Puzzle) -> PuzzleDBError:
    """Why position ``state`` of ``p`` is not in ``table``'s table: beyond a partial
    table's last level, or in the family's words (lost, unreachable, not in the table)."""
    partial = folder.table(table).manifest.partial_depth
    if partial is not None:
        return BadPosition(beyond(p.text(state), table.name, partial, folder))
    own = folder.is_built(p.name)
    where = None
    if table.name != p.name and own:
        where = folder.table(p).find(p.variants(state)[0])
    return p.unsolved(state, where, own or table.name == p.name)


def beyond(text: str, table: str, depth: int, folder: Folder) -> str:
    """Why a position is missing from a partial table: it lies deeper, if anywhere."""
    more = hints.build(f"{table} --max-depth {depth + 10}", folder.data)
    return (
        f"{text} is not within the first {depth} levels of the {table} table (depth {depth} "
        f"and less; it was built with --max-depth {depth}): it needs more moves, if any "
        f"sequence reaches it; build more levels with {more}"
    )


def tiles_slid(p: Puzzle, solution: Solution) -> list[int] | list[list[int]]:
    """The tile slid at each step of a sliding puzzle's walk, its first state first; on a
    board whose moves slide a line (3x3-multi) each step's tiles, as a list."""
    steps = p.tiles_slid(solution.states)
    return steps if p.slides_lines else [t for (t,) in steps]
