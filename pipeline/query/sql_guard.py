"""Which SQL a read-only query may run: an allow list, decided on DuckDB's own parse.

A data folder is untrusted input, and a query is how users read it; a query
that is not asked to write (``--write``, ``write=True``) must neither write a
file nor change what later queries see. So only statements that read are let
through: SELECT (with WITH, UNION, ...), VALUES, FROM-first, DESCRIBE, SHOW,
SUMMARIZE and UNPIVOT (DuckDB parses all of these as SELECT), and EXPLAIN of
one of those, never EXPLAIN ANALYZE (it runs the statement). Everything else
is refused by name: COPY, PREPARE/EXECUTE (a prepared COPY), CREATE, INSERT,
SET, ATTACH, PIVOT (several statements in one), ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.errors import BadQuery

if TYPE_CHECKING:
    import duckdb

#: The statement types (DuckDB's ``StatementType`` names) a read-only query runs as they are.
READ_ONLY = frozenset({"SELECT"})
#: Run only when what follows the EXPLAIN keyword is itself one SELECT.
EXPLAINED = "EXPLAIN"
ALLOWED = "SELECT, WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE and EXPLAIN of those"


def refuse_writes(sql: str) -> None:
    """BadQuery naming the first statement that is not on the allow list (or the
    parser's error): nothing of ``sql`` has run yet."""
    found = _parse(sql)
    if not found:
        raise BadQuery("no SQL statement given")
    for st in found:
        if not _reads(st):
            raise BadQuery(
                f"{_kind(st.query)} statements are refused in a read-only query (only "
                f"{ALLOWED} run): run the query with --write to allow it"
            )


#: What a caller's own cursor (``db.connection()``) may run besides reads: statements
#: that change only that cursor's memory (TEMP views, macros and tables, variables,
#: transactions). Not COPY, EXPORT, ATTACH, PRAGMA, CALL, PREPARE/EXECUTE, LOAD...:
#: those may write a file, and DuckDB lets a sealed connection write where it reads.
IN_MEMORY = frozenset(
    {"CREATE", "CREATE_FUNC", "DROP", "INSERT", "UPDATE", "DELETE", "MERGE_INTO", "ALTER", "SET"}
    | {"VARIABLE_SET", "TRANSACTION"}
)


def refuse_files(sql: object) -> None:
    """BadQuery naming the first statement of ``sql`` that may write a file (anything
    but a read, or a statement that changes the cursor's memory only): nothing ran."""
    if not isinstance(sql, str):
        raise BadQuery("a read-only connection runs SQL given as text")
    for st in _parse(sql):
        if not (_reads(st) or st.type.name in IN_MEMORY):
            raise BadQuery(
                f"{_kind(st.query)} statements are refused on a read-only connection (they "
                "may write a file): open the database's connection(write=True) to allow it"
            )


def _parse(sql: str) -> list[duckdb.Statement]:
    import duckdb

    try:
        return list(duckdb.extract_statements(sql))
    except duckdb.Error as e:
        raise BadQuery(_first_line(e)) from None


def _reads(st: duckdb.Statement) -> bool:
    """Whether one parsed statement only reads: a SELECT, or EXPLAIN of exactly one SELECT.

    EXPLAIN is decided on what DuckDB parses after the keyword: ``ANALYZE`` or an
    option list there is not a SELECT, so EXPLAIN ANALYZE is refused in every
    spelling (``ANALYSE``, ``(ANALYZE)``, comments between the words)."""
    if st.type.name in READ_ONLY:
        return True
    if st.type.name != EXPLAINED:
        return False
    rest = _after_first_word(st.query)
    try:
        inner = _parse(rest)
    except BadQuery:
        return False
    return len(inner) == 1 and inner[0].type.name in READ_ONLY


def _after_first_word(sql: str) -> str:
    """``sql`` from its second token on (comments are tokens too, and are skipped)."""
    words = _words(sql)
    return sql[words[1] :] if len(words) > 1 else ""


def _words(sql: str) -> list[int]:
    """The offsets of the tokens of ``sql`` that are not comments."""
    import duckdb

    return [pos for pos, kind in duckdb.tokenize(sql) if kind != duckdb.token_type.comment]


def _kind(sql: str) -> str:
    """How a refused statement is named: its first word, and the second after EXPLAIN."""
    starts = _words(sql)
    words = [sql[a:b].split()[0] for a, b in zip(starts, [*starts[1:], len(sql)], strict=True)]
    head = [w.upper() for w in words[:2]]
    if head[:1] == ["EXPLAIN"] and len(head) == 2 and head[1].isalpha():
        return " ".join(head)
    return head[0] if head else "empty"


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
