"""The Python API: one object per data folder, one method per question.

    >>> import pipeline
    >>> db = pipeline.open("data")
    >>> db.solve("3x3", "8 6 7 2 5 4 3 0 1").moves
    31

Tables come back as polars DataFrames, single answers as small dataclasses
(pipeline/answers.py, the manifest, the verify report). The API is the one
place that decides to build: solvers are handed the tables they read. The
CLI, the tests and notebooks all go through this; heavy imports (DuckDB,
polars) happen only in the methods that need them, so a solve starts fast.

Longer than 300 lines because it is the whole public surface in one place;
each method is a few lines that hand the work to its module.
"""

from __future__ import annotations

import contextlib
import operator
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline import hints
from pipeline.answers import MethodSolution, Solution
from pipeline.build.loop import LevelDone
from pipeline.errors import BadPosition, NotBuilt
from pipeline.hints import DATA_ENV, default_data  # noqa: F401 (public names)
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.base import Puzzle, ident
from pipeline.puzzles.names import ROOTED
from pipeline.storage.manifest import Manifest
from pipeline.storage.table import Table

if TYPE_CHECKING:
    import polars as pl

    from pipeline.verify.report import Report

#: The SQL files the API runs (installed with the package; ``query/sql/`` at the
#: top of the repository is the same folder).
QUERIES = Path(__file__).resolve().parent / "query" / "sql"


class Database:
    """The tables under one data folder, opened lazily."""

    def __init__(self, data: str | os.PathLike[str] | None = None) -> None:
        self.data = Path(data) if data is not None else default_data()
        self._tables: dict[str, Table] = {}
        self._solvers: dict[tuple[str, bool], Any] = {}
        self._cons: dict[bool, Any] = {}

    # -- building ---------------------------------------------------------
    def build(
        self,
        names: Iterable[str],
        *,
        force: bool = False,
        paths: bool = False,
        on_level: Callable[[str, LevelDone], None] | None = None,
        memory: int | str | None = None,
        root: str | None = None,
        yes: bool = False,
        max_depth: int | None = None,
        executor: str | Any = "local",
        master: str = "local[*]",
        engine: str | Any | None = None,
    ) -> list[Manifest]:
        """Build (or resume) each table, then rewrite the catalog; the manifests.

        ``paths`` adds the path-count column (docs/DATA.md; its cost: docs/BENCHMARKS.md).
        ``memory`` is the budget of the build process (default 3GB, e.g. "1GB").
        ``root``: build each named board from this typed position instead, as the
        table ``<board>~<hash>`` (pipeline/puzzles/names.py).
        ``yes`` goes on with a build too large for the free disk or over two hours
        (otherwise TooBig stops it after its first levels, which are kept).
        ``max_depth`` builds the first levels only: a partial table (the manifest's
        ``partial_depth``); building further later rebuilds it (build/loop.py covers).
        ``executor="spark"`` makes the large levels on Spark at ``master``
        (docs/CLUSTER.md); an executor object may be given instead. ``engine`` is
        its old name, still taken.
        """
        from pipeline.build import loop as build
        from pipeline.executors.registry import executor_for
        from pipeline.query import catalog

        chosen = [puzzles.get(n, self.data) for n in puzzles.expand_names(list(names))]
        if root is not None:
            from pipeline.puzzles.names import rooted

            chosen = [rooted(p, root) for p in chosen]
        named = {p.name for p in chosen}  # --max-depth is for these, not their requirements
        chosen = _with_requirements(chosen, self.data)
        runner = executor_for(executor if engine is None else engine, master, self.data)
        done = []
        for p in chosen:
            report = (lambda lv, name=p.name: on_level(name, lv)) if on_level else None
            limit = max_depth if p.name in named else None
            done.append(
                build.build(
                    p,
                    self.data,
                    force=force,
                    paths=paths,
                    on_level=report,
                    memory=memory,
                    yes=yes,
                    max_depth=limit,
                    executor=runner,
                )
            )
            self._tables.pop(p.name, None)
        with build.os_errors(self.data, "", "catalog"):
            catalog.write(self.data)
        self._cons = {}
        return done

    def build_names(
        self, names: Iterable[str], *, symmetry: bool = False, default: bool = False
    ) -> list[str]:
        """The tables a build of ``names`` means: family names expanded (``pegs``),
        each board's symmetry-class table instead with ``symmetry`` (``<board>-sym``),
        then the default set with ``default``."""
        chosen = puzzles.expand_names(list(names))
        if symmetry:
            from pipeline.puzzles.pegs.sym import sym_name

            chosen = [sym_name(n) for n in chosen]
        if default:
            chosen += [p.name for p in puzzles.defaults() if p.name not in chosen]
        return chosen

    def add_spec(self, path: str | os.PathLike[str]) -> list[str]:
        """Check a puzzle spec (TOML) and keep it in ``<data>/specs/``; return its tables.

        The tables are not built: pass the names to :meth:`build`.
        """
        from pipeline.puzzles.spec import parse as spec

        return spec.add(Path(path), self.data)

    def puzzle(self, name: str) -> Puzzle:
        """The puzzle of that name here: a built-in, a spec kept here, or a typed root."""
        return puzzles.get(name, self.data)

    def known_puzzles(self) -> list[Puzzle]:
        """Every puzzle known here: built-ins, the specs kept here, every built table."""
        from pipeline.puzzles.registry import listed

        return listed(self.data)

    def write_catalog(self) -> Path:
        from pipeline.query import catalog

        self.require_folder()
        self._cons = {}
        return catalog.write(self.data)

    # -- reading ----------------------------------------------------------
    def table(self, name: str) -> Table:
        """The complete table ``name``; NotBuilt names the command that builds it.

        CorruptTable when its manifest records another puzzle than the registry's
        (or the kept spec's) of that name: every answer is the registry's puzzle's.
        """
        if name not in self._tables:
            from pipeline.puzzles import trusted

            puzzles.get(name, self.data)
            self.require_folder(name)
            table = Table(self.data / name)
            trusted.puzzle_of(table.manifest, self.data)
            table.check_sizes()
            self._tables[name] = table
        return self._tables[name]

    def require_folder(self, name: str | None = None) -> None:
        """NotBuilt when the data folder is missing: reading never creates it."""
        if not self.data.is_dir():
            what = "is not a folder" if self.data.exists() else "does not exist"
            raise NotBuilt(
                f"data folder {self.data} {what}: nothing is built there "
                f"(build into it with {hints.build(name or '--default', self.data)})"
            )

    def remove(self, name: str) -> list[str]:
        """Remove table ``name``, or spec ``name`` with the tables built from it; then
        rewrite the catalog. Each table under its build lock (BuildLocked while a
        build holds it); links are unlinked, never followed. Returns what went."""
        from pipeline.puzzles.spec import parse as spec
        from pipeline.query import catalog
        from pipeline.storage import files, staging

        self.require_folder(name)
        tables, spec_file = self._removable(name)
        for t in tables:
            with staging.build_lock(self.data, t):
                files.remove_inside(self.data, t)
                files.remove_inside(self.data, ".staging", t)  # an interrupted build's levels
        if spec_file is not None:
            files.remove_inside(self.data, spec.SPECS, spec_file)  # never through a link
        self._cons = {}
        catalog.write(self.data)
        return tables + ([f"{spec.SPECS}/{spec_file}"] if spec_file else [])

    def _removable(self, name: str) -> tuple[list[str], str | None]:
        """The tables ``remove`` takes for ``name`` (sound or damaged) and the spec file's
        name, if it is one (NotBuilt when neither: a name is only ever matched against
        what is there). A spec that cannot be read takes the tables of its name."""
        from pipeline.puzzles.spec import parse as spec

        kept = spec.kept_file(self.data, name)
        if kept is not None:
            tables = [name + x for x in spec.suffixes(self.data, name) if self.has_table(name + x)]
            return tables, kept
        if self.has_table(name):
            return [name], None
        raise NotBuilt(f"{name} is not built in {self.data}: nothing to remove")

    def built(self) -> list[str]:
        """The names of the complete tables in the data folder whose manifest records
        the registry's puzzle of their name (catalog.manifests: the tables the catalog has)."""
        from pipeline.query import catalog

        return [m.table for m in catalog.manifests(self.data)]

    def broken(self) -> dict[str, str]:
        """The tables here that :meth:`built` leaves out because they are damaged (their
        manifest, their puzzle or their files), each with the one line saying what is
        wrong and the command that mends it: ``verify --all`` names them."""
        from pipeline.query import catalog

        return catalog.scan(self.data)[1]

    def is_built(self, name: str) -> bool:
        """Whether ``name`` has a readable manifest, reading it only (a solve asks about
        a few tables; :meth:`built` parses every manifest of the folder). A table whose
        manifest records another puzzle than the registry's counts as built, so
        :meth:`table` refuses it in one line (CorruptTable) rather than rebuild it."""
        from pipeline.errors import CorruptTable
        from pipeline.storage import manifest as manifests_
        from pipeline.storage.format import MANIFEST

        folder = self.data / name
        if name != Path(name).name or name.startswith(".") or not (folder / MANIFEST).exists():
            return False
        try:
            manifests_.read(folder)
        except CorruptTable:
            return False
        return True

    def has_table(self, name: str) -> bool:
        """Whether a table of that name is there, sound or not: its manifest exists, so
        reading it answers or says in one line what is wrong (``show`` asks this, not
        :meth:`built`, which leaves a doctored table out without a word)."""
        from pipeline.storage.format import MANIFEST, NAME

        folder = self.data / name
        return NAME.fullmatch(name) is not None and os.path.lexists(folder / MANIFEST)

    def manifests(self) -> list[Manifest]:
        """The manifests of the complete tables in the data folder (as ``built`` names them)."""
        from pipeline.query import catalog

        return catalog.manifests(self.data)

    def state(self, puzzle: str, position: str | int) -> int:
        """A typed position (or a state number) as a state of ``puzzle``."""
        p = puzzles.get(puzzle, self.data)
        if isinstance(position, str):
            return p.parse(position)
        try:
            number = operator.index(position)  # int, numpy integers
        except TypeError:
            raise BadPosition(f"a position is text or a state number, not {position!r}") from None
        return p.check_state(number)

    def canonical(self, puzzle: str, position: str | int) -> int:
        """The state a symmetric table (``<board>-sym``) stores a position's class as:
        its smallest image; BadPosition for a table without symmetries."""
        p = puzzles.get(puzzle, self.data)
        if p.canonical is None:
            raise BadPosition(f"{puzzle} has no symmetry classes (try {puzzle}-sym)")
        return p.variants(self.state(puzzle, position))[0]

    def solve(self, puzzle: str, position: str | int) -> Solution:
        """Walk parents from the position to the root: see :class:`Solution`."""
        p = puzzles.get(puzzle, self.data)
        if p.solved_by is not None:
            return self._solve_derived(p, position)
        state = self.state(puzzle, position)
        table = self.table(puzzle)
        rows = table.walk(state, p.depth_parity(state))
        if not rows and table.manifest.partial_depth is not None:
            raise BadPosition(
                _beyond(p.text(state), puzzle, table.manifest.partial_depth, self.data)
            )
        if not rows:
            raise BadPosition(
                f"{p.text(state)} is not in the {puzzle} table: "
                "no sequence of moves reaches it from the roots"
            )
        states = [r.state for r in rows]
        line = p.notation(states if p.origin == "goal" else states[::-1])
        return Solution(puzzle, _walk_origin(p), states, [p.text(s) for s in states], line)

    def _solve_derived(self, p: Puzzle, position: str | int) -> Solution:
        """Solve through the table that answers for ``p`` (peg boards: the winnable table).

        Walks parents there from every state the typed position stands for and
        keeps the shortest walk; the family says why a position missing there
        cannot be solved.
        """
        state = self.state(p.name, position)
        name = p.solved_by or p.name
        table = self.table(name)
        walks = [w for w in (table.walk(s) for s in p.variants(state)) if w]
        if not walks:
            own = self.table(p.name) if name != p.name and p.name in self.built() else None
            where = own.find(p.variants(state)[0]) if own else None
            raise p.unsolved(state, where, own is not None)
        rows = min(walks, key=lambda w: (w[0].depth, w[0].state))
        states = [r.state for r in rows]
        origin = puzzles.get(name, self.data).origin
        # A symmetric table maps each class back: the line from the position as typed.
        states = p.as_typed(state, states, forward=origin == "goal")
        line = states if origin == "goal" else states[::-1]
        path = [p.text(s) for s in states]
        cost = abs(rows[0].depth - rows[-1].depth)
        return Solution(p.name, origin, states, path, p.notation(line), cost)

    def solve_by(
        self,
        puzzle: str,
        position: str,
        method: str = "auto",
        on_level: Callable[[str, LevelDone], None] | None = None,
        *,
        build: bool = True,
        on_build: Callable[[str], None] | None = None,
    ) -> MethodSolution:
        """Solve by a method: the table, pattern databases or the loop (solvers/choose.py).

        ``auto`` walks the table when it is built, else searches with pattern
        databases on 4x4, building them on first use (``on_build`` is told what
        will be built and its cost before it starts, ``on_level`` each level;
        ``build=False`` refuses with NotBuilt instead).
        """
        from pipeline.solvers import choose

        p = puzzles.get(puzzle, self.data)
        self.require_folder(puzzle)
        built = self.is_built(puzzle)
        chosen = choose.pick(method, puzzle, built)
        if chosen == "loop":
            return choose.loop(p, position)
        if chosen == "optimal":
            return choose.optimal(
                lambda: self.pattern_solver(puzzle, on_level, build=build, on_build=on_build),
                p,
                position,
            )
        if not built and method == "auto":
            raise choose.not_built(puzzle, self.data)
        return choose.from_table(self.solve(puzzle, position), p)

    def slides_tiles(self, puzzle: str) -> bool:
        """Whether ``puzzle`` is a sliding puzzle (:meth:`tiles_slid` answers for it)."""
        from pipeline.solvers import choose

        return choose.slides_tiles(puzzles.get(puzzle, self.data))

    def tiles_slid(self, solution: Solution) -> list[int] | list[list[int]]:
        """The tile slid at each step of a sliding puzzle's walk, its first state first;
        on a board whose moves slide a line (3x3-multi) each step's tiles, as a list."""
        from pipeline.puzzles.tiles.multi import MultiTilePuzzle
        from pipeline.solvers import choose

        p = puzzles.get(solution.puzzle, self.data)
        steps = choose.tiles_slid(p, solution.states)
        return steps if isinstance(p, MultiTilePuzzle) else [t for (t,) in steps]

    def _table_instead(self, board: str) -> str:
        """What to do where no pattern databases answer: walk the table, built or not yet."""
        if self.is_built(board):
            return "its table is built: solve with `--method table`"
        return f"build its table with {hints.build(board, self.data)}"

    def pattern_solver(
        self,
        board: str,
        on_level: Callable[[str, LevelDone], None] | None = None,
        reflect: bool = True,
        *,
        build: bool = True,
        on_build: Callable[[str], None] | None = None,
        databases: str | None = None,
    ) -> Any:
        """The IDA* search of ``board`` over its pattern databases, built here if missing.

        ``reflect=False`` drops the reflection (the plain additive sum): a baseline.
        ``databases``: ``<board>-pdb`` (the partition, built if missing) or a
        region group such as ``4x4-pdb78`` (never built here); by default the
        region group when it is built (and the C kernel runs), else the partition.
        """
        from pipeline.errors import BadMethod
        from pipeline.solvers import optimal

        if board not in optimal.PARTITIONS:
            raise BadMethod(
                f"no pattern databases for {board} "
                f"(boards: {', '.join(optimal.PARTITIONS)}): " + self._table_instead(board)
            )
        group = databases or self._built_region_group(board) or f"{board}-pdb"
        key = (group, reflect)
        if key not in self._solvers:
            if group in optimal.REGION_GROUPS:
                self._solvers[key] = self._ranked_solver(group, reflect)
            else:
                self._solvers[key] = self._partition_solver(
                    board, on_level, reflect, build, on_build
                )
        return self._solvers[key]

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
        return self.is_built(name) and self.table(name).manifest.partial_depth is None

    def _ranked_solver(self, group: str, reflect: bool) -> Any:
        from pipeline.solvers import optimal

        names = [p.name for p in optimal.region_puzzles(group)]
        if not all(map(self._complete, names)):
            raise NotBuilt(f"{group} is not built: run {hints.build(group, self.data)}")
        tables = [self.table(n) for n in names]
        return optimal.ranked_solver(group, tables, self.data, reflect)

    def _partition_solver(
        self,
        board: str,
        on_level: Callable[[str, LevelDone], None] | None,
        reflect: bool,
        build: bool,
        on_build: Callable[[str], None] | None,
    ) -> Any:
        from pipeline.solvers import optimal

        pats = optimal.patterns(board)
        missing = [p for p in pats if not self.is_built(p.name)]
        if missing:
            cost = optimal.build_cost(missing)
            names = " ".join(p.name for p in missing)
            if not build:
                raise NotBuilt(
                    f"the {board} pattern databases are not built ({cost}): "
                    f"run {hints.build(names, self.data)}, or solve without --no-build"
                )
            if on_build:
                on_build(f"building the {board} pattern databases first, once: {cost}")
            self.build([p.name for p in missing], on_level=on_level)
        tables = [self.table(p.name) for p in pats]
        joined = optimal.load_joined(board, tables, self.data)
        arrays = optimal.split(joined, board)
        return optimal.Solver(board, arrays, reflect=reflect, joined=joined)

    def depth(self, puzzle: str, position: str | int) -> int:
        """Fewest moves between the position and the roots of its table.

        The depth column, not the length of a walk: in a table with zero-cost
        moves (a pattern database) a walk also takes free moves, and a peg
        board is solved through its winnable table but measured in its own.
        """
        p = puzzles.get(puzzle, self.data)
        state = self.state(puzzle, position)
        table = self.table(puzzle)
        hits = [h for h in (table.find(s, p.depth_parity(s)) for s in p.variants(state)) if h]
        if hits:
            return min(h.depth for h in hits)
        if p.solved_by is not None:
            raise BadPosition(f"{p.text(state)} is not reachable from the start of {puzzle}")
        return self.solve(puzzle, position).moves

    def histogram(self, puzzle: str) -> pl.DataFrame:
        """Positions at every depth: columns ``depth``, ``positions``; a table of
        symmetry classes (``-sym``) adds ``orbit_positions``, the positions of the
        whole board its classes stand for (``positions`` counts its rows, the classes).

        From the manifest: its counts are those of the rows written (verify
        checks them against the files), so a 239-million-row table answers at
        once; query/sql/histogram.sql counts the Parquet rows themselves.
        """
        import polars as pl

        table = self.table(puzzle)
        df = pl.DataFrame(
            table.histogram(), schema={"depth": pl.Int64, "positions": pl.Int64}, orient="row"
        )
        orbits = table.orbit_sums()
        return df if orbits is None else df.with_columns(orbit_positions=pl.Series(orbits))

    def longest(self, puzzle: str) -> pl.DataFrame:
        """The positions farthest from the roots: columns ``position``, ``state``, ``depth``."""
        self.table(puzzle).check_files()  # a damaged table: one line, before any SQL
        partial = self.table(puzzle).manifest.partial_depth
        if partial is not None:
            raise NotBuilt(
                f"{puzzle} holds the first levels only (to depth {partial}): the longest "
                f"positions are not known; build it whole with {hints.build(puzzle, self.data)}"
            )
        return self.query((QUERIES / "longest.sql").read_text(), {"puzzle": puzzle})

    def summary(self) -> pl.DataFrame:
        """One row a table: ``puzzle``, ``positions``, ``max_depth``, ``max_depth_positions``."""
        return self.query((QUERIES / "summary.sql").read_text())

    def verify(self, puzzle: str, on_level: Callable[[int], None] | None = None) -> Report:
        """Check the table against its puzzle (see pipeline.verify.checks)."""
        from pipeline.verify.checks import verify

        report = verify(
            puzzles.get(puzzle, self.data).bind(self.data), self.table(puzzle), on_level
        )
        if report.ok:
            from pipeline.verify.checks import duplicates

            # Streamed by ranges of states, so a 239-million-row table need not fit in memory.
            dupes = duplicates(self.table(puzzle))
            if dupes:
                report.problems.append(f"{dupes} states appear at more than one depth")
            else:
                report.checks.append("each state once in the whole table")
        return report

    def draw(self, puzzle: str, position: str | int) -> str:
        p = puzzles.get(puzzle, self.data)
        return p.draw(self.state(puzzle, position))

    # -- pictures (pipeline/pictures) -------------------------------------
    def plot_histogram(
        self, names: str | Iterable[str], *, log: bool = False, percent: bool = False
    ) -> Any:
        """Positions per depth as a matplotlib figure: bars for one table, lines for several.

        A notebook shows the figure inline; ``pipeline.pictures.charts.save``
        writes it as SVG (bars and points tagged with their numbers) or PNG.
        """
        from pipeline.pictures import charts

        chosen = puzzles.expand_names([names] if isinstance(names, str) else list(names))
        series = [charts.Series(n, self.histogram(n).rows()) for n in chosen]
        return charts.histogram(series, log=log, percent=percent)

    def board_svg(self, puzzle: str, position: str | int) -> str:
        """The position drawn as an SVG board in its real shape, captioned with the
        puzzle, the position and (when the table is built) its depth."""
        from pipeline.pictures import boards

        p = puzzles.get(puzzle, self.data)
        state = self.state(puzzle, position)
        head = p.name
        if self.has_table(puzzle):
            with contextlib.suppress(BadPosition):  # not in its table: drawn, no depth
                head = f"{p.name}, depth {self.depth(puzzle, state)}"
        return boards.board(p, state, caption=f"{head}\n{p.text(state)}")

    def solution_svg(self, solution: Solution) -> str:
        """A solution as an SVG strip of boards, first position first, each move marked."""
        from pipeline.pictures import boards
        from pipeline.words import plural

        p = puzzles.get(solution.puzzle, self.data)
        line = solution.states if solution.origin != "start" else solution.states[::-1]
        return boards.strip(p, line, title=f"{p.name}: {plural(solution.moves, 'move')}")

    def report(self, out: str | os.PathLike[str] | None = None) -> Path:
        """Write the HTML report of every built table to ``out/report.html`` (default: here)."""
        from pipeline.pictures import report

        return report.write(self, Path(out) if out is not None else self.data)

    # -- SQL --------------------------------------------------------------
    def connection(self, write: bool = False) -> Any:
        """A DuckDB connection of your own with the catalog's views and macros (absolute paths).

        Read-only and sealed unless ``write``: a cursor of a read-only database
        that reads the data folder and nothing else outside the process
        (pipeline/query/readonly.py), so what a caller does on it (TEMP views, macros,
        variables) is seen by no other caller nor by the API's own queries.
        ``write``: a fresh in-memory connection on every call, unsealed
        (catalog.connect). The tables' files are checked first (remembered:
        storage/integrity.py).
        """
        if write:
            self._cursor(opened=False)
            from pipeline.query import catalog

            return catalog.connect(self.data, sealed=False)
        from pipeline.query import readonly

        return readonly.Cursor(self._cursor())  # writes no file (issue #44)

    def _cursor(self, opened: bool = True) -> Any:
        """A cursor of the read-only database, for the API's own guarded queries
        (``opened=False``: only the checks that the data folder is one)."""
        if self.data.exists() and not self.data.is_dir():
            raise NotBuilt(f"{self.data} is not a folder")
        self.require_folder()
        if not opened:
            return None
        if False not in self._cons:
            from pipeline.query import readonly

            self._cons[False] = readonly.connect(self.data)
        return self._cons[False].cursor()

    def query(
        self, query: str, params: dict[str, Any] | None = None, write: bool = False
    ) -> pl.DataFrame:
        """Run SQL (text, or the path of a .sql file) with variables ``params``; a DataFrame.

        Read-only unless ``write``: only SELECT, WITH, VALUES, DESCRIBE, SHOW,
        SUMMARIZE and EXPLAIN of those run (pipeline/query/sql_guard.py), on a cursor of
        the read-only database (:meth:`connection`), so a query neither writes a
        file nor changes what later calls see. ``write=True`` runs anything on a
        fresh unsealed connection of its own, closed after.
        Ctrl-C interrupts the query (KeyboardInterrupt: pipeline/query/interrupt.py).
        For a connection of your own, :meth:`connection`.
        """
        from pipeline.query import sql_guard

        query = _sql_text(query)
        if write:
            con = self.connection(write=True)
            frame = _frame(con, query, params)
            con.close()
            return frame
        sql_guard.refuse_writes(query)
        cursor = self._cursor()  # its own results and variables, never handed out
        frame = _frame(cursor, query, params)
        cursor.close()
        return frame


def _sql_text(query: str) -> str:
    """The SQL itself: ``query``, or the text of the .sql file it names."""
    from pipeline.errors import BadQuery

    if query.strip().endswith(".sql") and "\n" not in query.strip():
        path = Path(query.strip())
        if not path.is_file():
            raise BadQuery(f"no such file: {path}")
        return path.read_text()
    return query


def _frame(con: Any, sql: str, params: dict[str, Any] | None) -> pl.DataFrame:
    """Run ``sql`` on ``con`` (a connection or cursor) with variables ``params``."""
    from pipeline.query import interrupt

    for key, value in (params or {}).items():
        con.execute(f"SET VARIABLE {ident(key)} = ?", [value])

    def work() -> pl.DataFrame:
        import polars as pl

        relation = con.sql(sql)
        return pl.DataFrame() if relation is None else relation.pl()  # None: no result (SET)

    return interrupt.run(con, work)


def _with_requirements(chosen: list[Puzzle], data: Path | None = None) -> list[Puzzle]:
    """The puzzles in build order: each derived table after the tables it is computed from."""
    out: list[Puzzle] = []
    for p in chosen:
        for r in p.requires:
            if r not in [q.name for q in out]:
                out.extend(_with_requirements([puzzles.get(r, data)], data))
        if p.name not in [q.name for q in out]:
            out.append(p)
    return out


def open(data: str | os.PathLike[str] | None = None) -> Database:
    """Open the data folder (default ``data/`` or $PUZZLEDB_DATA)."""
    return Database(data)


def _walk_origin(p: Puzzle) -> str:
    """Where a table walk ends: "root" on a table enumerated from a typed position
    (``3x3~406f4178``: the walk ends there, not at the goal), else the puzzle's origin."""
    if p.origin == "goal" and ROOTED.fullmatch(p.name):
        return "root"
    return p.origin


def _beyond(text: str, puzzle: str, depth: int, data: Path) -> str:
    """Why a position is missing from a partial table: it lies deeper, if anywhere."""
    more = hints.build(f"{puzzle} --max-depth {depth + 10}", data)
    return (
        f"{text} is not within the first {depth} levels of the {puzzle} table (depth {depth} "
        f"and less; it was built with --max-depth {depth}): it needs more moves, if any "
        f"sequence reaches it; build more levels with {more}"
    )
