"""A solve by a method (the table, pattern databases, the loop) and the pattern-database
searches, kept once made. The method is picked here, once (solvers/choose.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeline import hints
from pipeline.answers import MethodSolution
from pipeline.errors import BadMethod, NotBuilt
from pipeline.service.folder import Folder
from pipeline.service.positions import state_of
from pipeline.service.walks import solve

#: Builds tables by name, each level told to the callback given (the API's build: the
#: API is the one place that decides to build).
Builder = Callable[[list[str], Any], object]


class Solvers:
    """The ways ``solve`` answers over one folder, pattern-database searches kept."""

    def __init__(self, folder: Folder, build: Builder) -> None:
        self.folder = folder
        self.build = build
        self._made: dict[tuple[str, bool], Any] = {}

    def solve_by(
        self,
        name: str,
        position: str | int,
        method: str = "auto",
        *,
        build: bool = True,
        on_build: Callable[[str], None] | None = None,
        on_level: Any = None,
    ) -> MethodSolution:
        """Solve by ``method``; ``auto``: the table when built, else pattern databases on
        4x4, built on first use (``on_build`` told first; ``build=False``: NotBuilt)."""
        from pipeline.solvers import choose

        p = self.folder.puzzle(name)
        self.folder.require(name)
        answers = p.solved_by or name  # the table that answers (a peg board's winnable one)
        built = self.folder.has(answers)  # sound or not: reading it then says what is wrong
        if not built and answers != name and self.folder.is_built(name) and method != "loop":
            built = self._derive(name, answers, build, on_build, on_level)
        chosen = choose.pick(method, name, built)
        if chosen == "loop":
            return choose.loop(p, self._text(p, position))
        if chosen == "optimal":
            search = lambda: self.pattern_solver(  # noqa: E731
                name, build=build, on_build=on_build, on_level=on_level
            )
            return choose.optimal(search, p, self._text(p, position))
        if not built and method == "auto":
            raise choose.not_built(name, self.folder.data)
        return choose.from_table(solve(self.folder, name, state_of(self.folder, name, position)), p)

    def _derive(self, name: str, table: str, build: bool, on_build: Any, on_level: Any) -> bool:
        """Build ``table`` from ``name``'s built table, on demand (a peg board's winnable
        classes: seconds to a minute); NotBuilt naming it with ``build=False``."""
        if self.folder.table(name).manifest.partial_depth is not None:
            return False  # from a partial table: the walk's own line says so
        if not build:
            raise NotBuilt(
                f"{table} is not built: run {hints.build(table, self.folder.data)}, "
                "or solve without --no-build"
            )
        if on_build:
            on_build(f"building {table} first, once, from {name}")
        self.build([table], on_level)
        return True

    @staticmethod
    def _text(p: Any, position: str | int) -> str:
        return position if isinstance(position, str) else p.text(p.check_state(int(position)))

    def pattern_solver(
        self,
        board: str,
        reflect: bool = True,
        *,
        build: bool = True,
        on_build: Callable[[str], None] | None = None,
        databases: str | None = None,
        on_level: Any = None,
    ) -> Any:
        """The IDA* search of ``board`` over its pattern databases, built here if missing.

        ``reflect=False`` drops the reflection (the plain additive sum): a baseline.
        ``databases``: ``<board>-pdb`` (the partition, built if missing) or a region
        group such as ``4x4-pdb78`` (never built here); by default the region group
        when it is built (and the C kernel runs), else the partition.
        """
        from pipeline.solvers import optimal

        if board not in optimal.PARTITIONS:
            raise BadMethod(
                f"no pattern databases for {board} "
                f"(boards: {', '.join(optimal.PARTITIONS)}): " + self._table_instead(board)
            )
        group = databases or self._built_region_group(board) or f"{board}-pdb"
        key = (group, reflect)
        if key not in self._made:
            if group in optimal.REGION_GROUPS:
                self._made[key] = self._ranked(group, reflect)
            else:
                self._made[key] = self._partition(board, reflect, build, on_build, on_level)
        return self._made[key]

    def _table_instead(self, board: str) -> str:
        """What to do where no pattern databases answer: walk the table, built or not yet."""
        if self.folder.is_built(board):
            return "its table is built: solve with `--method table`"
        return f"build its table with {hints.build(board, self.folder.data)}"

    def _built_region_group(self, board: str) -> str | None:
        """The region group of ``board`` that is built and searchable here, if any."""
        from pipeline.solvers import ida_c, optimal

        for group, (b, _) in optimal.REGION_GROUPS.items():
            names = [p.name for p in optimal.region_puzzles(group)]
            if b == board and all(map(self._complete, names)) and ida_c.library() is not None:
                return group
        return None

    def _complete(self, name: str) -> bool:
        """Built to its last level (a partial table's array would mislead the search)."""
        f = self.folder
        return f.is_built(name) and f.table(name).manifest.partial_depth is None

    def _ranked(self, group: str, reflect: bool) -> Any:
        from pipeline.solvers import optimal

        names = [p.name for p in optimal.region_puzzles(group)]
        if not all(map(self._complete, names)):
            raise NotBuilt(f"{group} is not built: run {hints.build(group, self.folder.data)}")
        tables = [self.folder.table(n) for n in names]
        return optimal.ranked_solver(group, tables, self.folder.data, reflect)

    def _partition(
        self,
        board: str,
        reflect: bool,
        build: bool,
        on_build: Callable[[str], None] | None,
        on_level: Any,
    ) -> Any:
        from pipeline.solvers import optimal

        pats = optimal.patterns(board)
        missing = [p for p in pats if not self.folder.is_built(p.name)]
        if missing:
            cost = optimal.build_cost(missing)
            names = " ".join(p.name for p in missing)
            if not build:
                raise NotBuilt(
                    f"the {board} pattern databases are not built ({cost}): "
                    f"run {hints.build(names, self.folder.data)}, or solve without --no-build"
                )
            if on_build:
                on_build(f"building the {board} pattern databases first, once: {cost}")
            self.build([p.name for p in missing], on_level)
        tables = [self.folder.table(p.name) for p in pats]
        joined = optimal.load_joined(board, tables, self.folder.data)
        arrays = optimal.split(joined, board)
        return optimal.Solver(board, arrays, reflect=reflect, joined=joined)
