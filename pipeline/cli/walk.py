"""How ``solve`` prints a table walk: a head line, the line of moves, the boards.

Every word about the puzzle comes from it: ``step_word`` names a step of the
walk, ``step_note`` says what a step means where it is not a move, and
``moves_in`` counts the moves along it (peg boards: a step is a jump, and a
run of one peg's jumps is one move).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from pipeline.puzzles.tiles.slides import slid_words
from pipeline.words import plural

if TYPE_CHECKING:
    from pipeline.answers import Solution
    from pipeline.puzzles.base import Puzzle


def print_walk(
    p: Puzzle, sol: Solution, oneline: bool, tiles: list[int] | list[list[int]] | None = None
) -> None:
    """The count, the line and the boards of a table walk, all in one order: the line's.

    A walk from the goal lists the position first; a walk from the start is
    printed from the start, as its line reads. Boards are numbered by the
    table's steps (jumps on peg boards, where a run of one peg's jumps is one move).
    """
    states, texts = sol.line, sol.line_text
    typer.echo(head(p, sol, states))
    if sol.notation:
        where = f"to the {sol.origin}" if sol.origin.towards else "from the start"
        moves = f", {plural(p.moves_in(states), 'move')}" if p.step_word != "move" else ""
        typer.echo(f"line {where}{moves}: {sol.notation}")
    if tiles is not None:
        typer.echo(
            "tiles slid: " + " ".join(slid_words(t if isinstance(t, list) else [t]) for t in tiles)
        )
    if oneline:
        for i, text in enumerate(texts):
            typer.echo(f"{i:>3}  {text}")
        return
    for i, drawn in enumerate(p.drawings(states)):
        typer.echo(f"-- {plural(i, p.step_word)}" if p.step_word != "move" else f"-- {i}")
        typer.echo(drawn)


def head(p: Puzzle, sol: Solution, states: list[int]) -> str:
    """``3x3: 31 moves to the goal (optimal)``; steps that are not moves are counted apart."""
    steps, word = len(states) - 1, p.step_word
    if word == "move":
        if sol.origin.towards:  # the goal, or the typed root of a ~hash table
            return f"{sol.puzzle}: {plural(steps, 'move')} to the {sol.origin} (optimal)"
        return (
            f"{sol.puzzle}: {plural(steps, 'move')} from the start (shortest; "
            "boards from the start to the position)"
        )
    note = p.step_note
    assert note is not None, f"{sol.puzzle}: a step word other than move needs a step note"
    if sol.origin.towards:
        return (
            f"{sol.puzzle}: {plural(steps, word)} to the {sol.origin} (a {note.line}; each {word} "
            f"{note.each}, so every {note.line} from here takes {steps})"
        )
    if str(p.graph) == "layered":  # the depth is the steps: every line has as many
        return (
            f"{sol.puzzle}: {plural(steps, word)} from the start ("
            f"{plural(p.moves_in(states), 'move')} along this line, {note.run}; "
            "boards from the start to the position)"
        )
    return (
        f"{sol.puzzle}: {plural(p.moves_in(states), 'move')} from the start (the fewest; "
        f"{plural(steps, word)}, {note.run}; "
        "boards from the start to the position)"
    )
