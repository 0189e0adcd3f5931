"""The errors a user can cause. The CLI prints each as one line and exits non-zero."""


class PuzzleDBError(Exception):
    """Base: anything the user can fix (bad input, missing or damaged data)."""


class UnknownPuzzle(PuzzleDBError):
    """A registry name that does not exist."""


class BadPosition(PuzzleDBError):
    """A position that cannot be parsed, or that no sequence of moves reaches."""


class NotBuilt(PuzzleDBError):
    """A table that has not been built (or whose build never finished)."""


class CorruptTable(PuzzleDBError):
    """A table whose files disagree with its manifest or cannot be read."""


class BuildLocked(PuzzleDBError):
    """Another process is building the same table."""


class DiskFull(PuzzleDBError):
    """Not enough free disk for the next level; finished levels are kept."""


class CannotWrite(PuzzleDBError):
    """A data folder (or output) the process cannot write: not a folder, read-only."""


class TooBig(PuzzleDBError):
    """A build that would not fit the disk or would take hours (go on with --yes)."""


class PositionLost(BadPosition):
    """A reachable position from which no line reaches the goal (peg solitaire)."""


class Unsolvable(BadPosition):
    """A position no sequence of moves brings to the goal (the other parity)."""


class BadMethod(PuzzleDBError):
    """A solving method that does not apply to the puzzle, or does not exist."""


class BadOutput(PuzzleDBError):
    """An output file that cannot be written, or of a kind that is not drawn."""


class BadQuery(PuzzleDBError):
    """SQL that cannot run here: empty, missing, malformed, or writing without --write."""


class BadSpec(PuzzleDBError):
    """A puzzle spec file (TOML) that is malformed or describes no valid board."""


class LeftOut(UserWarning):
    """A damaged table left out of an answer over every table (the catalog, a list):
    the others answer. ``why`` is the line its own reads fail with; the CLI prints
    the warning unless its error line already says it."""

    def __init__(self, table: str, why: str, of: str = "the catalog") -> None:
        super().__init__(f"warning: {table} left out of {of}: {why}")
        self.table = table
        self.why = why
