"""A solve by a method (the table, pattern databases, the loop) and the pattern-database
searches, kept once made. The method is picked here, once (solvers/choose.py).

The service never builds: an answer that needs tables built first comes back as
:class:`Needs`, and the API (the one place that decides to build) builds them, or
refuses with the Needs' own line, and asks again.

The solvers' modules are imported at first use (``# at first use``): loaded at
the top, they would cost every command's start, ``puzzledb --help`` included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline import hints
from pipeline.answers import MethodSolution, SearchProgress
from pipeline.errors import BadMethod, NotBuilt
from pipeline.puzzles.base import Puzzle
from pipeline.service.folder import Folder
from pipeline.service.positions import state_of
from pipeline.service.walks import solve, solver

if TYPE_CHECKING:
    from pipeline.solvers.optimal import RankedSolver, Solver
    from pipeline.solvers.twisty_solver import PuzzleSearch


@dataclass(frozen=True)
class Needs:
    """An answer that needs ``tables`` built first (in build order): ``announce`` tells
    the user what is built and what it costs, ``refusal`` why it cannot answer without."""

    tables: tuple[str, ...]
    announce: str
    refusal: str

    def refused(self) -> NotBuilt:
        return NotBuilt(self.refusal)


class Solvers:
    """The ways ``solve`` answers over one folder, pattern-database searches kept."""

    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self._made: dict[tuple[str, bool], Solver | RankedSolver] = {}
        #: The search of each puzzle solved by search, by its name and tables, with the
        #: folder's read it was made in.
        self._searches: dict[tuple[str, ...], tuple[int, PuzzleSearch]] = {}

    def solve_by(
        self,
        p: Puzzle,
        position: str | int,
        method: str = "auto",
        on_progress: Callable[[SearchProgress], None] | None = None,
    ) -> MethodSolution | Needs:
        """Solve by ``method``; ``auto``: the table when built, else pattern databases on
        4x4, and a puzzle too large to tabulate by search over its pattern tables
        (``on_progress`` hears from a long search). Needs when tables must be built
        first (a peg board's winnable classes from its built table; the 4x4 pattern
        databases; a puzzle's pattern tables)."""
        from pipeline.solvers import choose  # at first use

        self.folder.require(p.name)
        if p.search_tables():
            choose.pick(method, p.name, False)  # an unknown method is its own line
            return self._searched(p, position, method, on_progress)
        answers = solver(self.folder, p)  # the table that answers (a peg board's winnable one)
        built = self.folder.has(answers.name)  # sound or not: reading it then says what is wrong
        if not built and answers is not p and self.folder.is_built(p.name) and method != "loop":
            needed = self._derived(p, answers)
            if needed is not None:
                return needed
        chosen = choose.pick(method, p.name, built)
        if chosen == "loop":
            return choose.loop(p, self._text(p, position))
        if chosen == "optimal":
            text = self._text(p, position)
            p.parse(text)  # a bad position is its own line before anything is built
            search = self.pattern_solver(p.name)
            return search if isinstance(search, Needs) else choose.optimal(search, p, text)
        if not built and method == "auto":
            raise choose.not_built(p.name, self.folder.data, p.expected_total)
        return choose.from_table(solve(self.folder, p, state_of(p, position)), p)

    def _searched(
        self,
        p: Puzzle,
        position: str | int,
        method: str,
        on_progress: Callable[[SearchProgress], None] | None,
    ) -> MethodSolution | Needs:
        """A puzzle solved by search: its position checked (before anything is built),
        then searched over its pattern tables."""
        from pipeline.solvers import twisty_solver  # at first use

        if method not in ("auto", "optimal"):
            raise BadMethod(
                f"{p.name} has no table of its own: it is solved by search over its pattern "
                f"tables ({', '.join(p.search_tables())}); solve it with --method optimal"
            )
        state = state_of(p, position)
        twisty_solver.check(p, state)
        search = self.searcher(p)
        return search if isinstance(search, Needs) else search.solve(state, on_progress)

    def searcher(self, p: Puzzle) -> PuzzleSearch | Needs:
        """The search of a puzzle too large to tabulate over its pattern tables (made once
        a read of the folder), or Needs naming the tables to build first."""
        from pipeline.solvers import twisty_solver  # at first use

        built = (list(s) for s in p.stronger_tables if all(self._complete(n) for n in s))
        names = next(built, p.search_tables())
        missing = [n for n in names if not self._complete(n)]
        if missing:
            listed = ", ".join(missing)
            sizes = sum(q.estimated_total or 0 for q in self.folder.puzzles(missing))
            return Needs(
                tuple(missing),
                f"building {p.name}'s pattern tables first, once: {listed} ({sizes:,} positions)",
                f"{p.name} is solved by search over its pattern tables, and {listed} "
                f"{'is' if len(missing) == 1 else 'are'} not built: run "
                f"{hints.build(' '.join(missing), self.folder.data)}, "
                "or solve without --no-build",
            )
        key = (p.name, *names)
        kept = self._searches.get(key)
        if kept is None or kept[0] != self.folder.reads:
            pats = self.folder.puzzles(names)
            made = twisty_solver.PuzzleSearch(p, [(q, self.folder.table(q)) for q in pats])
            kept = self._searches[key] = (self.folder.reads, made)
        return kept[1]

    def _derived(self, p: Puzzle, table: Puzzle) -> Needs | None:
        """``table`` to build from ``p``'s built table (a peg board's winnable classes:
        seconds to a minute), or None from a partial table (the walk's own line says so)."""
        if self.folder.table(p).manifest.partial_depth is not None:
            return None
        return Needs(
            (table.name,),
            f"building {table.name} first, once, from {p.name}",
            f"{table.name} is not built: run {hints.build(table.name, self.folder.data)}, "
            "or solve without --no-build",
        )

    @staticmethod
    def _text(p: Puzzle, position: str | int) -> str:
        return position if isinstance(position, str) else p.text(p.check_state(int(position)))

    def pattern_solver(
        self, board: str, reflect: bool = True, databases: str | None = None
    ) -> Solver | RankedSolver | Needs:
        """The IDA* search of ``board`` over its pattern databases, or the tables it needs.

        ``reflect=False`` drops the reflection (the plain additive sum): a baseline.
        ``databases``: ``<board>-pdb`` (the partition, Needs when missing) or a region
        group such as ``4x4-pdb78`` (never built on demand); by default the region group
        when it is built (and the C kernel runs), else the partition.
        """
        from pipeline.solvers import optimal  # at first use

        if board not in optimal.PARTITIONS:
            raise BadMethod(
                f"no pattern databases for {board} "
                f"(boards: {', '.join(optimal.PARTITIONS)}): " + self._table_instead(board)
            )
        group = databases or self._built_region_group(board) or f"{board}-pdb"
        key = (group, reflect)
        if key not in self._made:
            made = (
                self._ranked(group, reflect)
                if group in optimal.REGION_GROUPS
                else self._partition(board, reflect)
            )
            if isinstance(made, Needs):
                return made
            self._made[key] = made
        return self._made[key]

    def _table_instead(self, board: str) -> str:
        """What to do where no pattern databases answer: walk the table, built or not yet."""
        if self.folder.is_built(board):
            return "its table is built: solve with `--method table`"
        return f"build its table with {hints.build(board, self.folder.data)}"

    def _built_region_group(self, board: str) -> str | None:
        """The region group of ``board`` that is built and searchable here, if any."""
        from pipeline.solvers import ida_c, optimal  # at first use

        for group, (b, _) in optimal.REGION_GROUPS.items():
            names = [p.name for p in optimal.region_puzzles(group)]
            if b == board and all(map(self._complete, names)) and ida_c.library() is not None:
                return group
        return None

    def _complete(self, name: str) -> bool:
        """Built to its last level (a partial table's array would mislead the search)."""
        f = self.folder
        return f.is_built(name) and f.table(f.puzzle(name)).manifest.partial_depth is None

    def _ranked(self, group: str, reflect: bool) -> RankedSolver:
        from pipeline.solvers import optimal  # at first use

        pats = optimal.region_puzzles(group)
        if not all(self._complete(p.name) for p in pats):
            raise NotBuilt(f"{group} is not built: run {hints.build(group, self.folder.data)}")
        tables = [self.folder.table(p) for p in pats]
        return optimal.ranked_solver(group, tables, self.folder.data, reflect)

    def _partition(self, board: str, reflect: bool) -> Solver | Needs:
        from pipeline.solvers import optimal  # at first use

        pats = optimal.patterns(board)
        missing = [p for p in pats if not self.folder.is_built(p.name)]
        if missing:
            cost = optimal.build_cost(missing)
            names = " ".join(p.name for p in missing)
            return Needs(
                tuple(p.name for p in missing),
                f"building the {board} pattern databases first, once: {cost}",
                f"the {board} pattern databases are not built ({cost}): "
                f"run {hints.build(names, self.folder.data)}, or solve without --no-build",
            )
        tables = [self.folder.table(p) for p in pats]
        joined = optimal.load_joined(board, tables, self.folder.data)
        arrays = optimal.split(joined, board)
        return optimal.Solver(board, arrays, reflect=reflect, joined=joined)
