"""The Python API: one object per data folder, one method per question.

    >>> import pipeline
    >>> db = pipeline.open("data")
    >>> db.solve("3x3", "8 6 7 2 5 4 3 0 1").moves
    31

The CLI, the tests and notebooks all go through this; heavy imports (DuckDB,
polars) happen only in the methods that need them, so a solve starts fast.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import puzzles
from pipeline.build import LevelDone
from pipeline.errors import BadPosition, PositionLost
from pipeline.puzzles.base import Puzzle
from pipeline.store import Table

#: The environment variable that names the data folder.
DATA_ENV = "PUZZLEDB_DATA"
QUERIES = Path(__file__).resolve().parent.parent / "queries"


def default_data() -> Path:
    return Path(os.environ.get(DATA_ENV) or "data")


@dataclass(frozen=True)
class Solution:
    """A walk along parents from a position to a root of its table.

    ``origin`` says what the walk means: "goal" (the table was enumerated from
    the goal, so this is an optimal solution) or "start" (a shortest way from
    the start to the position, listed here from the position back).
    """

    puzzle: str
    origin: str
    states: list[int]
    path: list[str]
    #: The line in the family's own notation (peg jumps: "(10,12)(3,10,12,3)"), start first.
    notation: str | None = None
    #: Moves when they are not one a step (zero-cost steps: peg runs on the moves board).
    cost: int | None = None

    @property
    def moves(self) -> int:
        return self.cost if self.cost is not None else len(self.states) - 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle,
            "origin": self.origin,
            "moves": self.moves,
            "path": self.path,
            "states": self.states,
            **({"notation": self.notation} if self.notation is not None else {}),
        }


class Database:
    """The tables under one data folder, opened lazily."""

    def __init__(self, data: str | os.PathLike[str] | None = None) -> None:
        self.data = Path(data) if data is not None else default_data()
        self._tables: dict[str, Table] = {}
        self._con: Any = None

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
    ) -> list[dict[str, Any]]:
        """Build (or resume) each table, then rewrite the catalog.

        ``paths`` adds the path-count column (see README: it costs time and disk).
        ``memory`` is the budget of the build process (default 3GB, e.g. "1GB").
        ``root``: build each named board from this typed position instead, as the
        table ``<board>~<hash>`` (pipeline/puzzles/names.py).
        """
        from pipeline import build, catalog

        chosen = [puzzles.get(n, self.data) for n in puzzles.expand_names(list(names))]
        if root is not None:
            from pipeline.puzzles.names import rooted

            chosen = [rooted(p, root) for p in chosen]
        chosen = _with_requirements(chosen, self.data)
        done = []
        for p in chosen:
            report = (lambda lv, name=p.name: on_level(name, lv)) if on_level else None
            done.append(
                build.build(p, self.data, force=force, paths=paths, on_level=report, memory=memory)
            )
            self._tables.pop(p.name, None)
        catalog.write(self.data)
        self._con = None
        return done

    def add_spec(self, path: str | os.PathLike[str]) -> list[str]:
        """Check a puzzle spec (TOML) and keep it in ``<data>/specs/``; return its tables.

        The tables are not built: pass the names to :meth:`build`.
        """
        from pipeline.puzzles import spec

        return spec.add(Path(path), self.data)

    def known_puzzles(self) -> list[Puzzle]:
        """Every puzzle known here: built-ins, the specs kept here, every built table."""
        from pipeline.puzzles.names import listed

        return listed(self.data)

    def write_catalog(self) -> Path:
        from pipeline import catalog

        self._con = None
        return catalog.write(self.data)

    # -- reading ----------------------------------------------------------
    def table(self, name: str) -> Table:
        """The complete table ``name``; NotBuilt names the command that builds it."""
        if name not in self._tables:
            puzzles.get(name, self.data)
            table = Table(self.data / name)
            table.check_sizes()
            self._tables[name] = table
        return self._tables[name]

    def built(self) -> list[str]:
        from pipeline import catalog

        return [m["table"] for m in catalog.manifests(self.data)]

    def state(self, puzzle: str, position: str | int) -> int:
        """A typed position (or a state number) as a state of ``puzzle``."""
        p = puzzles.get(puzzle, self.data)
        if isinstance(position, int):
            return position
        return p.parse(position)

    def solve(self, puzzle: str, position: str | int) -> Solution:
        """Walk parents from the position to the root: see :class:`Solution`."""
        p = puzzles.get(puzzle, self.data)
        if p.solved_by is not None:
            return self._solve_derived(p, position)
        state = self.state(puzzle, position)
        rows = self.table(puzzle).walk(state, p.depth_parity(state))
        if not rows:
            raise BadPosition(
                f"{p.text(state)} is not in the {puzzle} table: "
                "no sequence of moves reaches it from the roots"
            )
        states = [r.state for r in rows]
        return Solution(puzzle, p.origin, states, [p.text(s) for s in states])

    def _solve_derived(self, p: Puzzle, position: str | int) -> Solution:
        """Solve through the table that answers for ``p`` (peg boards: the winnable table).

        Walks parents there from every state the typed position stands for and
        keeps the shortest walk; a position missing there is lost (when the
        puzzle's own table holds it) or unreachable.
        """
        state = self.state(p.name, position)
        name = p.solved_by or p.name
        table = self.table(name)
        walks = [w for w in (table.walk(s) for s in p.variants(state)) if w]
        if not walks:
            own = self.table(p.name) if name != p.name and p.name in self.built() else None
            where = own.find(state) if own is not None else None
            if where is not None:
                goal = puzzles.get(name, self.data).root_texts[0]
                raise PositionLost(
                    f"{p.text(state)} is lost: the start reaches it ({where.depth} moves) "
                    f"but no line from it reaches the goal {goal}"
                )
            if own is not None or name == p.name:
                raise BadPosition(
                    f"{p.text(state)} is not reachable from the start of {p.name} "
                    f"({p.text(p.roots()[0])})"
                )
            raise BadPosition(
                f"{p.text(state)} is not in the {name} table: lost or unreachable "
                f"(build {p.name} to tell which)"
            )
        rows = min(walks, key=lambda w: (w[0].depth, w[0].state))
        states = [r.state for r in rows]
        origin = puzzles.get(name, self.data).origin
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
    ) -> Any:
        """Solve by a method: the table, pattern databases or the loop (pipeline.solvers.choose).

        ``auto`` walks the table when it is built, else searches with pattern
        databases on 4x4 (building them on first use, reported to ``on_level``).
        """
        from pipeline.solvers import choose

        return choose.solve(self, puzzle, position, method, on_level)

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

    def histogram(self, puzzle: str) -> list[tuple[int, int]]:
        """(depth, positions) for every depth.

        From the manifest: its counts are those of the rows written (verify
        checks them against the files), so a 239-million-row table answers at
        once; queries/histogram.sql counts the Parquet rows themselves.
        """
        return self.table(puzzle).histogram()

    def longest(self, puzzle: str) -> list[str]:
        """The positions farthest from the roots, as typed text, in state order."""
        self.table(puzzle)
        return [r[0] for r in self._run("longest", puzzle=puzzle)]

    def summary(self) -> list[tuple[str, int, int, int]]:
        """(puzzle, positions, maximum depth, positions at the maximum) per table."""
        return [tuple(r) for r in self._run("summary")]  # type: ignore[misc]

    def verify(self, puzzle: str, on_level: Callable[[int], None] | None = None) -> Any:
        """Check the table against its puzzle (see pipeline.verify)."""
        from pipeline.verify import verify

        report = verify(
            puzzles.get(puzzle, self.data).bind(self.data), self.table(puzzle), on_level
        )
        if report.ok:
            from pipeline.verify import duplicates

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

    # -- SQL --------------------------------------------------------------
    def connection(self) -> Any:
        """A DuckDB connection with the catalog's views and macros (absolute paths)."""
        if self._con is None:
            from pipeline import catalog

            self._con = catalog.connect(self.data)
        return self._con

    def sql(self, query: str, params: dict[str, Any] | None = None) -> Any:
        """Run SQL against the catalog (variables from ``params``); returns the cursor."""
        con = self.connection()
        if params:
            for key, value in params.items():
                con.execute(f"SET VARIABLE {key} = ?", [value])
        return con.execute(query)

    def query(self, query: str) -> Any:
        """Run SQL (text or a .sql file) and return a polars DataFrame."""
        path = Path(query)
        if query.endswith(".sql") and path.exists():
            query = path.read_text()
        return self.connection().sql(query).pl()

    def _run(self, name: str, **params: Any) -> list[tuple[Any, ...]]:
        """Run queries/<name>.sql with its variables set."""
        text = (QUERIES / f"{name}.sql").read_text()
        return self.sql(text, params).fetchall()


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
