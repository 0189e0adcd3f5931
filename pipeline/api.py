"""The Python API: one object per data folder, one method per question.

    >>> import pipeline
    >>> db = pipeline.open("data")
    >>> db.solve("3x3", "8 6 7 2 5 4 3 0 1").moves
    31

A thin front: each question is answered by the service (pipeline/service/:
the data folder read once, the one walk, a position's moves, a table's
histogram and numbers), which the CLI, the explorer and the report share.
The API is the one place that decides to build. Tables come back as polars
DataFrames, single answers as small dataclasses (pipeline/answers.py); heavy
imports (DuckDB, polars) happen only in the methods that need them, so a solve
starts fast.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.answers import (
    Distance,
    Histogram,
    Listed,
    MethodSolution,
    Position,
    SearchProgress,
    Solution,
)
from pipeline.answers import Summary as TableSummary
from pipeline.build import loop as build
from pipeline.build.loop import LevelDone
from pipeline.engine.budget import parse_memory
from pipeline.errors import BadQuery, NotBuilt
from pipeline.hints import DATA_ENV, default_data  # noqa: F401 (public names)
from pipeline.puzzles import registry
from pipeline.puzzles.base import Puzzle, ident
from pipeline.puzzles.names import rooted
from pipeline.puzzles.pegs.sym import sym_name
from pipeline.puzzles.spec import parse as spec
from pipeline.query import catalog, interrupt, readonly, sql_guard
from pipeline.service import distance, positions, tables, walks
from pipeline.service.folder import Folder, Stamps
from pipeline.service.solving import Needs, Solvers
from pipeline.storage import files, staging
from pipeline.storage.manifest import Manifest
from pipeline.storage.table import Table

if TYPE_CHECKING:
    import duckdb
    import polars as pl
    from matplotlib.figure import Figure

    from pipeline.executors.base import Executor
    from pipeline.query.readonly import Cursor
    from pipeline.solvers.optimal import RankedSolver, Solver
    from pipeline.solvers.twisty_solver import PuzzleSearch
    from pipeline.verify.report import Report

#: The SQL files the API runs (installed with the package; ``queries/`` at the
#: top of the repository is the same folder).
QUERIES = Path(__file__).resolve().parent / "query" / "sql"


class Database:
    """The tables under one data folder, opened lazily."""

    def __init__(self, data: str | os.PathLike[str] | None = None) -> None:
        self.data = Path(data) if data is not None else default_data()
        #: The folder's puzzles and tables, read once (again only when the folder changes).
        self.folder = Folder(self.data)
        self.solvers = Solvers(self.folder)
        #: The read-only catalog the API's queries are cursors of, and the stamps of the
        #: files it was checked against (a file changed since: a new one, checked anew).
        self._con: duckdb.DuckDBPyConnection | None = None
        self._con_files: Stamps = ()

    def _changed(self) -> None:
        """This process changed the folder: read it again, open new connections."""
        self.folder.forget()
        self._con = None

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
        executor: str | Executor = "local",
        master: str = "local[*]",
        engine: str | Executor | None = None,
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
        # at first use: the executors' modules (Spark's too) cost every command's start
        from pipeline.executors.registry import executor_for

        chosen = self.folder.puzzles(names)
        # A puzzle too large to tabulate: its pattern tables in its stead.
        chosen = [q for p in chosen for q in self.folder.puzzles(p.search_tables()) or [p]]
        if root is not None:
            chosen = [rooted(p, root) for p in chosen]
        named = {p.name for p in chosen}  # --max-depth is for these, not their requirements
        chosen = self.folder.with_requirements(chosen)
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
            self._changed()
        with build.os_errors(self.data, "", "catalog"):
            catalog.write(self.data, self.folder.tables())
        self._changed()
        from pipeline.pictures.report import REPORT

        if (self.data / REPORT).is_file():  # `make build-db` wrote one: keep it true
            with build.os_errors(self.data, "", "report"):
                self.report()
        return done

    def build_names(
        self, names: Iterable[str], *, symmetry: bool = False, default: bool = False
    ) -> list[str]:
        """The tables a build of ``names`` means: family names expanded (``pegs``),
        each board's symmetry-class table instead with ``symmetry`` (``<board>-sym``),
        then the default set with ``default``."""
        chosen = registry.expand_names(list(names))
        if symmetry:
            chosen = [sym_name(n) for n in chosen]
        if default:
            chosen += [p.name for p in registry.defaults() if p.name not in chosen]
        return chosen

    def add_spec(
        self,
        path: str | os.PathLike[str],
        name: str | None = None,
        memory: int | str | None = None,
    ) -> list[str]:
        """Check a puzzle spec (TOML, or a family's own file: a twsearch ``.tws``, kept
        as table ``name``, else the file's name) and keep it in ``<data>/specs/``;
        return its tables. The tables are not built: pass the names to :meth:`build`.
        A twisty definition too large to tabulate whose spec names no pattern tables
        gets them chosen within ``memory`` (their look-up arrays, a byte a position).
        """
        budget = None if memory is None else parse_memory(memory)
        return spec.add(Path(path), self.data, name, budget)

    def puzzle(self, name: str) -> Puzzle:
        """The puzzle of that name here: a built-in, a spec kept here, or a typed root."""
        return self.folder.puzzle(name)

    def known_puzzles(self) -> list[Puzzle]:
        """Every puzzle known here: built-ins, the specs kept here, every built table."""
        return self.folder.listed()

    def listing(self) -> list[Listed]:
        """Every puzzle known here with its table's positions, or the line saying why
        its table is damaged: what ``puzzledb list`` and the explorer show."""
        return tables.listing(self.folder)

    @property
    def snapshot(self) -> int:
        """A number that changes each time the folder's tables are read anew (after a
        table was built, removed or rewritten): what a cache of answers is keyed by."""
        self.folder.refresh()
        return self.folder.reads

    def write_catalog(self) -> Path:
        self.require_folder()
        self._changed()
        return catalog.write(self.data, self.folder.tables())

    # -- reading: each a few lines over the service (pipeline/service/) ------------
    def table(self, name: str) -> Table:
        """The complete table ``name``; NotBuilt names the command that builds it.

        CorruptTable when its manifest records another puzzle than the registry's
        (or the kept spec's) of that name: every answer is the registry's puzzle's.
        """
        return self.folder.table(self.puzzle(name))

    def not_built(self, puzzle: str) -> str:
        """What builds ``puzzle``'s table here, or answers instead where it is too large
        for the disk (its pattern tables): the line a question of an unbuilt table adds."""
        return self.folder.not_built(self.puzzle(puzzle))

    def require_folder(self, name: str | None = None) -> None:
        """NotBuilt when the data folder is missing: reading never creates it."""
        self.folder.require(name)

    def remove(self, name: str) -> list[str]:
        """Remove table ``name``, or spec ``name`` with the tables built from it; then
        rewrite the catalog. Each table under its build lock (BuildLocked while a
        build holds it); links are unlinked, never followed. Returns what went."""
        self.require_folder(name)
        tables, spec_file = self._removable(name)
        for t in tables:
            with staging.build_lock(self.data, t):
                files.remove_inside(self.data, t)
                files.remove_inside(self.data, ".staging", t)  # an interrupted build's levels
        names = [name + x for x in spec.suffixes(self.data, name)] if spec_file else [name]
        staged = [t for t in names if t not in tables and staging.interrupted(self.data, t)]
        for t in staged:  # an interrupted build of no table: its levels alone
            with staging.build_lock(self.data, t):
                files.remove_inside(self.data, ".staging", t)
        if spec_file is not None:
            files.remove_inside(self.data, spec.SPECS, spec_file)  # never through a link
        self._changed()
        catalog.write(self.data, self.folder.tables())
        went = tables + [f".staging/{t}" for t in staged]
        return went + ([f"{spec.SPECS}/{spec_file}"] if spec_file else [])

    def _removable(self, name: str) -> tuple[list[str], str | None]:
        """The tables ``remove`` takes for ``name`` (sound or damaged) and the spec file's
        name, if it is one (NotBuilt when neither: a name is only ever matched against
        what is there). A spec that cannot be read takes the tables of its name."""
        kept = spec.kept_file(self.data, name)
        if kept is not None:
            tables = [name + x for x in spec.suffixes(self.data, name) if self.has_table(name + x)]
            return tables, kept
        if self.has_table(name):
            return [name], None
        if staging.interrupted(self.data, name):
            return [], None
        raise NotBuilt(f"{name} is not built in {self.data}: nothing to remove")

    def built(self) -> list[str]:
        """The names of the complete tables in the data folder whose manifest records
        the registry's puzzle of their name (the tables the catalog has)."""
        return self.folder.built()

    def broken(self) -> dict[str, str]:
        """The tables here that :meth:`built` leaves out because they are damaged (their
        manifest, their puzzle or their files), each with the one line saying what is
        wrong and the command that mends it: ``verify --all`` names them."""
        return self.folder.broken()

    def is_built(self, name: str) -> bool:
        """Whether ``name`` is a sound complete table here (:meth:`table` opens it)."""
        return self.folder.is_built(name)

    def has_table(self, name: str) -> bool:
        """Whether a table of that name is there, sound or not: its manifest exists, so
        reading it answers or says in one line what is wrong (``show`` asks this, not
        :meth:`built`, which leaves a doctored table out)."""
        return self.folder.has(name)

    def manifests(self) -> list[Manifest]:
        """The manifests of the complete tables in the data folder (as ``built`` names them)."""
        return self.folder.manifests()

    def state(self, puzzle: str, position: str | int) -> int:
        """A typed position (or a state number) as a state of ``puzzle``."""
        return positions.state_of(self.puzzle(puzzle), position)

    def canonical(self, puzzle: str, position: str | int) -> int:
        """The state a symmetric table (``<board>-sym``) stores a position's class as:
        its smallest image; BadPosition for a table without symmetries."""
        p = self.puzzle(puzzle)
        return positions.canonical(p, positions.state_of(p, position))

    def solve(self, puzzle: str, position: str | int) -> Solution:
        """Walk parents from the position to the root: see :class:`Solution` (a peg
        board through its winnable table: a winning line). A puzzle too large to
        tabulate is searched instead (:meth:`solve_by`: its pattern tables built first)."""
        p = self.puzzle(puzzle)
        if p.search_tables():
            return self.solve_by(puzzle, position)
        return walks.solve(self.folder, p, positions.state_of(p, position))

    def walk(self, puzzle: str, position: str | int) -> Solution | None:
        """The walk along parents in the table itself (to the goal, or here from the
        start: a lost peg position still has one), or None when it is not there."""
        p = self.puzzle(puzzle)
        return walks.walk(self.folder, p, positions.state_of(p, position), p)

    def solve_by(
        self,
        puzzle: str,
        position: str | int,
        method: str = "auto",
        on_level: Callable[[str, LevelDone], None] | None = None,
        *,
        build: bool = True,
        on_build: Callable[[str], None] | None = None,
        on_search: Callable[[SearchProgress], None] | None = None,
    ) -> MethodSolution:
        """Solve by a method: the table, pattern databases or the loop (solvers/choose.py).

        ``auto`` walks the table when it is built, else searches with pattern
        databases on 4x4, building them on first use (``on_build`` is told what
        will be built and its cost before it starts, ``on_level`` each level;
        ``build=False`` refuses with NotBuilt instead). A puzzle too large to
        tabulate (``cube3``) is searched over its pattern tables, built so on
        first use: an optimal solution, proven (method ``search``); ``on_search``
        hears from a long search between its slices (Ctrl-C stops it there).
        """
        p = self.puzzle(puzzle)
        answer = self.solvers.solve_by(p, position, method, on_search)
        if isinstance(answer, Needs):
            self._build_needed(answer, build, on_build, on_level)
            answer = self.solvers.solve_by(p, position, method, on_search)
        if isinstance(answer, Needs):  # built, and still missing: its own line
            raise answer.refused()
        return answer

    def pattern_solver(
        self,
        board: str,
        on_level: Callable[[str, LevelDone], None] | None = None,
        reflect: bool = True,
        *,
        build: bool = True,
        on_build: Callable[[str], None] | None = None,
        databases: str | None = None,
    ) -> Solver | RankedSolver:
        """The IDA* search of ``board`` over its pattern databases (service/solving.py),
        its tables built first when missing (``build=False``: NotBuilt instead)."""
        search = self.solvers.pattern_solver(board, reflect, databases)
        if isinstance(search, Needs):
            self._build_needed(search, build, on_build, on_level)
            search = self.solvers.pattern_solver(board, reflect, databases)
        if isinstance(search, Needs):
            raise search.refused()
        return search

    def _searcher(
        self,
        p: Puzzle,
        build: bool,
        on_build: Callable[[str], None] | None,
        on_level: Callable[[str, LevelDone], None] | None,
    ) -> PuzzleSearch:
        """The search of a puzzle too large to tabulate, its pattern tables built first."""
        search = self.solvers.searcher(p)
        if isinstance(search, Needs):
            self._build_needed(search, build, on_build, on_level)
            search = self.solvers.searcher(p)
        if isinstance(search, Needs):
            raise search.refused()
        return search

    def _build_needed(
        self,
        needs: Needs,
        build: bool,
        on_build: Callable[[str], None] | None,
        on_level: Callable[[str, LevelDone], None] | None,
    ) -> None:
        """Build the tables an answer needs (the API decides), or refuse with NotBuilt."""
        if not build:
            raise needs.refused()
        if on_build:
            on_build(needs.announce)
        self.build(needs.tables, on_level=on_level)

    def slides_tiles(self, puzzle: str) -> bool:
        """Whether ``puzzle`` is a sliding puzzle (:meth:`tiles_slid` answers for it)."""
        return self.puzzle(puzzle).slides_tiles

    def tiles_slid(self, solution: Solution) -> list[int] | list[list[int]]:
        """The tile slid at each step of a sliding puzzle's walk, its first state first;
        on a board whose moves slide a line (3x3-multi) each step's tiles, as a list."""
        return walks.tiles_slid(self.puzzle(solution.puzzle), solution)

    def from_start(self, puzzle: str, position: str | int) -> MethodSolution:
        """The line from the start to the position in the puzzle's own table (a peg
        board's: reached, won or lost); one line for a table not enumerated from a start."""
        # at first use: the solvers' modules cost every command's start
        from pipeline.solvers import choose

        p = self.puzzle(puzzle)
        return choose.from_table(
            walks.from_start(self.folder, p, positions.state_of(p, position)), p
        )

    def from_turns(self, puzzle: str, turns: str) -> int:
        """The state the turns (``"R U R' U'"``) reach from solved, where positions may be
        typed so (the pocket cube, twisty definitions); one line otherwise."""
        return self.puzzle(puzzle).from_moves(turns)

    def depth(self, puzzle: str, position: str | int) -> int:
        """Fewest moves between the position and the roots of its table.

        The depth column, not the length of a walk: in a table with zero-cost
        moves (a pattern database) a walk also takes free moves, and a peg
        board is solved through its winnable table but measured in its own.
        """
        p = self.puzzle(puzzle)
        return positions.depth_of(self.folder, p, positions.state_of(p, position))

    def position(self, puzzle: str, position: str | int) -> Position:
        """A position, its depth and every move from it with the depth it leads to."""
        p = self.puzzle(puzzle)
        return positions.position(self.folder, p, positions.state_of(p, position))

    def properties(self, puzzle: str, position: str | int) -> dict[str, int | bool | None]:
        """A position's depth, whether it is solved, and its family's own properties
        (a peg board's ``pegs``; sliding tiles' ``blank cell``, ``tiles out of place``)."""
        p = self.puzzle(puzzle)
        return positions.properties(self.folder, p, positions.state_of(p, position))

    def distance(
        self,
        puzzle: str,
        a: str | int,
        b: str | int,
        *,
        build: bool = True,
        on_build: Callable[[str], None] | None = None,
        on_level: Callable[[str, LevelDone], None] | None = None,
    ) -> Distance:
        """The fewest moves from position ``a`` to ``b``, where a table answers it: ``b``
        a root, or ``b`` renamed to a goal (sliding tiles: of ``<board>@<cell>``; the
        pocket cube and twisty definitions of distinct pieces: solved). A puzzle too
        large to tabulate: the optimal length of A^-1 B, searched over its pattern
        tables (built first as :meth:`solve_by` builds them)."""
        p = self.puzzle(puzzle)
        first, second = (positions.state_of(p, x) for x in (a, b))
        if p.search_tables():
            search = self._searcher(p, build, on_build, on_level)
            return distance.searched(search, p, first, second)
        return distance.distance(self.folder, p, first, second)

    def random_position(self, puzzle: str, seed: int | None = None) -> str:
        """A uniformly random position of the puzzle, picked without a table (a twisty
        puzzle's group: Schreier-Sims); BadMethod for a family that picks from a depth
        of its table (:meth:`at_depth`)."""
        p = self.puzzle(puzzle)
        return p.text(positions.random_state(p, seed))

    def at_depth(self, puzzle: str, depth: int, nth: int | None = None) -> str:
        """The ``nth`` position at ``depth`` in state order (None: one at random), as text."""
        p = self.puzzle(puzzle)
        return p.text(positions.at_depth(self.folder, p, depth, nth))

    def histogram(self, puzzle: str) -> pl.DataFrame:
        """Positions at every depth: columns ``depth``, ``positions``; a table of
        symmetry classes (``-sym``) adds ``orbit_positions``, the positions of the
        whole board its classes stand for (``positions`` counts its rows, the classes).

        From the manifest, held against the files: a 239-million-row table answers at
        once; queries/histogram.sql counts the Parquet rows themselves.
        """
        import polars as pl

        rows = tables.histogram(self.folder, self.puzzle(puzzle)).rows()
        return pl.DataFrame(rows, schema={k: pl.Int64 for k in rows[0]} if rows else None)

    def longest(self, puzzle: str) -> pl.DataFrame:
        """The positions farthest from the roots: columns ``position``, ``state``, ``depth``."""
        import polars as pl

        p, depth = self.puzzle(puzzle), self.table(puzzle).max_depth
        states = tables.longest(self.folder, p)
        return pl.DataFrame(
            {"position": [p.text(s) for s in states], "state": states, "depth": depth},
            schema={"position": pl.String, "state": pl.UInt64, "depth": pl.Int32},
        )

    def levels(self, puzzle: str) -> Histogram:
        """Positions at every depth as the typed answer (:meth:`histogram`'s rows)."""
        return tables.histogram(self.folder, self.puzzle(puzzle))

    def deepest(self, puzzle: str, limit: int) -> list[str]:
        """Up to ``limit`` positions of the deepest level built (a partial table's last)."""
        p = self.puzzle(puzzle)
        return [p.text(s) for s in tables.deepest(self.folder, p, limit)]

    def table_summary(self, puzzle: str) -> TableSummary:
        """One table's numbers: positions, depths, build time, bytes (from its manifest)."""
        return tables.summary(self.folder, self.puzzle(puzzle))

    def summary(self) -> pl.DataFrame:
        """One row a table: ``puzzle``, ``positions``, ``max_depth``, ``max_depth_positions``."""
        return self.query((QUERIES / "summary.sql").read_text())

    def verify(self, puzzle: str, on_level: Callable[[int], None] | None = None) -> Report:
        """Check the table against its puzzle (see pipeline.verify.checks)."""
        from pipeline.verify.checks import verify_all

        return verify_all(self.puzzle(puzzle).in_folder(self.data), self.table(puzzle), on_level)

    def draw(self, puzzle: str, position: str | int) -> str:
        return self.puzzle(puzzle).draw(self.state(puzzle, position))

    # -- pictures (pipeline/pictures) -------------------------------------
    def plot_histogram(
        self, names: str | Iterable[str], *, log: bool = False, percent: bool = False
    ) -> Figure:
        """Positions per depth as a matplotlib figure: bars for one table, lines for several.

        A notebook shows the figure inline; ``pipeline.pictures.charts.save``
        writes it as SVG (bars and points tagged with their numbers) or PNG.
        """
        from pipeline.pictures import charts

        chosen = self.folder.puzzles([names] if isinstance(names, str) else names)
        found = [tables.histogram(self.folder, p) for p in chosen]
        return charts.histogram(found, log=log, percent=percent)

    def board_svg(self, puzzle: str, position: str | int) -> str:
        """The position drawn as an SVG board in its real shape, captioned with the
        puzzle, the position and (when the table is built) its depth."""
        p = self.puzzle(puzzle)
        state = positions.state_of(p, position)
        depth = positions.depth(self.folder, p, state) if self.is_built(puzzle) else None
        # at first use: the pictures' modules cost every command's start
        from pipeline.pictures import boards

        return boards.board_at(p, state, depth)

    def solution_svg(self, solution: Solution) -> str:
        """A solution as an SVG strip of boards, first position first, each move marked."""
        from pipeline.pictures import boards  # at first use, as in board_svg

        return boards.solution(self.puzzle(solution.puzzle), solution)

    def report(self, out: str | os.PathLike[str] | None = None) -> Path:
        """Write the HTML report of every built table to ``out/report.html`` (default: here)."""
        from pipeline.pictures import report

        return report.write(self.folder, Path(out) if out is not None else self.data)

    # -- SQL --------------------------------------------------------------
    def connection(self, write: bool = False) -> duckdb.DuckDBPyConnection | Cursor:
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
            self._check_folder()
            return catalog.connect(self.data, self.folder.tables(), sealed=False)

        return readonly.Cursor(self._cursor())  # writes no file

    def _check_folder(self) -> None:
        """NotBuilt unless the data folder is a folder that is there."""
        if self.data.exists() and not self.data.is_dir():
            raise NotBuilt(f"{self.data} is not a folder")
        self.require_folder()

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor of the read-only database, for the API's own guarded queries; the
        database made again when a level file changed since it was checked."""
        self._check_folder()
        now = self.folder.file_stamps()
        if self._con is None or now != self._con_files:
            self._con = readonly.connect(self.data, self.folder.tables())
            self._con_files = now
        return self._con.cursor()

    def query(
        self, query: str, params: Mapping[str, object] | None = None, write: bool = False
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
        query = _sql_text(query)
        if write:
            self._check_folder()
            con = catalog.connect(self.data, self.folder.tables(), sealed=False)
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
    if query.strip().endswith(".sql") and "\n" not in query.strip():
        path = Path(query.strip())
        if not path.is_file():
            raise BadQuery(f"no such file: {path}")
        return path.read_text()
    return query


def _frame(
    con: duckdb.DuckDBPyConnection, sql: str, params: Mapping[str, object] | None
) -> pl.DataFrame:
    """Run ``sql`` on ``con`` (a connection or cursor) with variables ``params``."""
    for key, value in (params or {}).items():
        con.execute(f"SET VARIABLE {ident(key)} = ?", [value])

    def work() -> pl.DataFrame:
        import polars as pl

        relation = con.sql(sql)
        if relation is None:  # no result (SET)
            return pl.DataFrame()
        frame: pl.DataFrame = relation.pl()
        return frame

    return interrupt.run(con, work)


def open(data: str | os.PathLike[str] | None = None) -> Database:
    """Open the data folder (default ``data/`` or $PUZZLEDB_DATA)."""
    return Database(data)
