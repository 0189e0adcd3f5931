"""A twisty table in the DuckDB catalog: ``board``, ``drawing`` and ``state_of`` read
its states; the first two through look-up tables of each set's arrangements and
orientations, ``state_of`` by arithmetic alone.

A twisty state is ranks in mixed radix (pack.py), not cells: a set's coordinate
is ``state // weight % size``, its arrangement ``coordinate // orientations`` and
its orientation value ``coordinate % orientations``, plain arithmetic; turning an
arrangement's rank back into pieces is a loop SQL has not, so the catalog holds
each rank's pieces (``twisty_arrangements``) and each orientation value's twists
(``twisty_orientations``), their rows bound as parameters, made from the registry's
puzzle. ``board`` gives the compact line (``puzzledb show``'s ``position``),
``drawing`` the rows ``puzzledb show`` prints, ``state_of`` reads a compact line
(with or without ``CPOS``; not a state block) and ranks it as pack.py does, a fold
over each set's pieces: it holds no subquery, since ``path(puzzle, state_of(...))``
gives it to a table function, which may hold none (and every table's ``state_of``
is one macro). ``cells`` says in one line that the
state is no cells. A table whose sets would need more than :data:`MAX_ROWS` rows
gets macros that say so in one line.
"""

from __future__ import annotations

import functools

import numpy as np

from pipeline.puzzles.base import sql_str
from pipeline.puzzles.family import Statement
from pipeline.puzzles.trusted import Checked
from pipeline.puzzles.twisty.board import BASE62, TwistyPuzzle, piece_width
from pipeline.puzzles.twisty.pack import SetCode, multinomial

#: Look-up rows a table may add to the catalog (arrangements and orientation values).
MAX_ROWS = 250_000
DIGITS = sql_str(BASE62)
TABLES = {
    "twisty_sets": "puzzle VARCHAR, piece_set INTEGER, name VARCHAR",
    "twisty_arrangements": "puzzle VARCHAR, piece_set INTEGER, arrangement UBIGINT, "
    "pieces INTEGER[], labels INTEGER[], slots INTEGER[]",
    "twisty_orientations": "puzzle VARCHAR, piece_set INTEGER, orientation UBIGINT, "
    "twists INTEGER[]",
}


def _listed(p: TwistyPuzzle) -> tuple[bool, ...] | None:
    """Whether each set's arrangements are look-up rows (the smallest sets first, while
    the rows fit :data:`MAX_ROWS` with every set's orientation values), or unranked by
    the macro ``twisty_unrank`` (not a set whose rank is halved: its parity is not
    computed there); None when the rows do not fit. (``state_of`` ranks by arithmetic
    alone: :func:`_rank_fold`.)"""
    rows = sum(c.twists for c in p.pack.sets)
    listed = [False] * len(p.pack.sets)
    for i in sorted(range(len(listed)), key=lambda i: p.pack.sets[i].arrangements):
        code = p.pack.sets[i]
        if rows + code.arrangements <= MAX_ROWS:
            listed[i] = True
            rows += code.arrangements
        elif code.even:
            return None
    return tuple(listed) if rows <= MAX_ROWS else None


def _fits(p: TwistyPuzzle) -> bool:
    return _listed(p) is not None


#: A multiset's arrangement of rank ``r`` (label indices from 0): ``c`` the count of
#: each label, ``t`` the arrangements (pack.py's rank undone a position at a time: the
#: arrangements that put a smaller label there come first).
MACROS = [
    "CREATE OR REPLACE MACRO twisty_widths(a) AS list_transform(a.c, lambda x: a.t * x // a.m)",
    "CREATE OR REPLACE MACRO twisty_ends(a) AS list_transform(range(1, len(a.c) + 1), "
    "lambda e: list_sum(list_slice(twisty_widths(a), 1, e)))",
    "CREATE OR REPLACE MACRO twisty_pick(a) AS "
    "list_position(list_transform(twisty_ends(a), lambda e: a.r < e), true)",
    "CREATE OR REPLACE MACRO twisty_step(a) AS {'r': a.r - CASE WHEN twisty_pick(a) = 1 "
    "THEN 0 ELSE twisty_ends(a)[twisty_pick(a) - 1] END, "
    "'t': twisty_widths(a)[twisty_pick(a)], 'm': a.m - 1, "
    "'c': list_transform(range(1, len(a.c) + 1), "
    "lambda y: a.c[y] - CASE WHEN y = twisty_pick(a) THEN 1 ELSE 0 END), "
    "'out': list_append(a.out, (twisty_pick(a) - 1)::INTEGER)}",
    # The fold starts from the first element (the DuckDB CLI takes no start of another
    # type): the start, then a placeholder a position.
    "CREATE OR REPLACE MACRO twisty_unrank(r, c, t) AS list_reduce(list_prepend("
    "{'r': r::HUGEINT, 't': t::HUGEINT, 'm': list_sum(c)::HUGEINT, 'c': c::HUGEINT[], "
    "'out': []::INTEGER[]}, list_transform(range(list_sum(c)::BIGINT), lambda j: "
    "{'r': 0::HUGEINT, 't': 0::HUGEINT, 'm': 0::HUGEINT, 'c': []::HUGEINT[], "
    "'out': []::INTEGER[]})), lambda a, x: twisty_step(a)).out",
]


def statements(found: list[Checked]) -> list[Statement]:
    """The look-up tables, their rows bound; none when no twisty table is built (a
    catalog without one keeps the tables it had)."""
    rows: dict[str, list[list[object]]] = {t: [] for t in TABLES}
    twisty = [t.puzzle for t in found if isinstance(t.puzzle, TwistyPuzzle)]
    for p in twisty:
        for table, made in _rows(p).items():
            rows[table] += made
    if not twisty:
        return []
    out: list[Statement] = list(MACROS)
    for table, columns in TABLES.items():
        out.append(f"CREATE OR REPLACE TABLE {table} ({columns})")
        if rows[table]:
            n = len(rows[table][0])
            values = ", ".join(f"unnest(?::{_type(columns, i)}[])" for i in range(n))
            lists = [list(c) for c in zip(*rows[table], strict=True)]
            out.append((f"INSERT INTO {table} SELECT {values}", lists))
    return out


def _type(columns: str, i: int) -> str:
    return columns.split(", ")[i].split(" ", 1)[1]


@functools.lru_cache(maxsize=16)
def _rows(p: TwistyPuzzle) -> dict[str, list[list[object]]]:
    """The look-up rows of ``p``'s table (none when they do not fit), made once a puzzle
    object: each catalog connection binds them (the 2x2x2 cube's 42,507 rows)."""
    table = p.name
    out: dict[str, list[list[object]]] = {t: [] for t in TABLES}
    listed = _listed(p)
    if listed is None:
        return out
    for i, (s, code) in enumerate(zip(p.definition.sets, p.pack.sets, strict=True)):
        out["twisty_sets"].append([table, i, s.name])
        out["twisty_orientations"] += [
            [table, i, q, tw] for q, tw in enumerate(_orientation_rows(code).tolist())
        ]
        if not listed[i]:
            continue
        ranks = np.arange(code.arrangements, dtype=np.uint64)
        seqs, _ = code.decode_many(ranks * np.uint64(code.twists))
        labels = np.asarray(code.labels, np.int64)[seqs]
        slots = _slots(code, seqs)
        out["twisty_arrangements"] += [
            [table, i, r, seq, lab, slot]
            for r, seq, lab, slot in zip(
                range(code.arrangements), seqs.tolist(), labels.tolist(), slots, strict=True
            )
        ]
    return out


def _orientation_rows(code: SetCode) -> np.ndarray:
    """A row an orientation value: each position's twist (the implied one included), or
    for a set whose ``?`` pieces keep no digit, its digits (``slots`` place them)."""
    q = np.arange(code.twists, dtype=np.uint64)
    return code.digits_many(q) if code.slotted else code.twists_many(q)


def _slots(code: SetCode, seqs: np.ndarray) -> list[list[int]]:
    """Each arrangement's place of each position's twist in its orientation row (from 1;
    0 for a ``?`` piece, whose twist reads 0)."""
    if not code.slotted:
        return [list(range(1, code.n + 1))] * len(seqs)
    return (code.slots_many(seqs) + 1).tolist()


def codec(table: Checked) -> dict[str, str] | None:
    """``board``, ``cells``, ``drawing`` and ``state_of`` for a twisty table (None: not one)."""
    p = table.puzzle
    if not isinstance(p, TwistyPuzzle):
        return None
    m = table.manifest
    t = sql_str(m.table)
    if not _fits(p):
        why = (
            f"{m.table}: its sets need too many look-up rows for the catalog (orientation "
            f"values, or arrangements whose rank is halved: over {MAX_ROWS:,}): puzzledb "
            "show reads its states"
        )
        return dict.fromkeys(("board", "cells", "drawing", "state_of"), f"error({sql_str(why)})")
    no_cells = f"{m.table}: a twisty state is ranks, not cells: board(), drawing() read it"
    return {
        "board": _decoded(p, t, "state", _line(p)),
        "cells": f"error({sql_str(no_cells)})",
        "drawing": _decoded(p, t, "state", _draw(p)),
        "state_of": _parse(p, t),
    }


def _decoded(p: TwistyPuzzle, t: str, state: str, made: str) -> str:
    """``made`` (over the look-up rows a{i}, o{i} of each set) for the state's sets."""
    joins, where = [], []
    listed = _listed(p)
    assert listed is not None
    for i, (code, w) in enumerate(zip(p.pack.sets, p.pack.weights, strict=True)):
        c = f"(({state})::HUGEINT // {w} % {code.size})"
        joins += [f"twisty_orientations o{i}", f"twisty_sets s{i}"]
        where += [f"{x}.puzzle = {t} AND {x}.piece_set = {i}" for x in (f"o{i}", f"s{i}")]
        where.append(f"o{i}.orientation = {c} % {code.twists}")
        if listed[i]:
            joins.append(f"twisty_arrangements a{i}")
            where.append(f"a{i}.puzzle = {t} AND a{i}.piece_set = {i}")
            where.append(f"a{i}.arrangement = {c} // {code.twists}")
        else:
            joins.append(_unranked(code, f"{c} // {code.twists}", f"a{i}"))
    bad = sql_str(f"not a state of {p.name} (0 <= state < {p.pack.size})")
    found = _select(made, joins, where)
    return f"CASE WHEN ({state})::HUGEINT >= {p.pack.size} THEN error({bad}) ELSE {found} END"


def _unranked(code: SetCode, rank: str, alias: str) -> str:
    """A set's arrangement of rank ``rank`` as the look-up row ``alias`` (its ``pieces``,
    ``labels`` and ``slots``), made by ``twisty_unrank``."""
    labels = list(code.labels)
    if code.slotted:
        counted = f"NOT {_wild(code, 'v')}"
        before = f"len(list_filter(list_slice(pieces, 1, j), lambda v: {counted}))"
        slots = (
            f"list_transform(range(1, {code.n + 1}), lambda j: CASE WHEN "
            f"{_wild(code, 'pieces[j]')} THEN 0 ELSE {before} END)"
        )
    else:
        slots = str(list(range(1, code.n + 1)))
    total = multinomial(code.counts)
    made = f"twisty_unrank({rank}, {list(code.counts)}, {total}) AS pieces"
    return (
        f"(SELECT pieces, list_transform(pieces, lambda v: {labels}[v + 1]) AS labels, "
        f"{slots} AS slots FROM (SELECT {made})) {alias}"
    )


def _select(made: str, joins: list[str], where: list[str]) -> str:
    return f"(SELECT {made} FROM {', '.join(joins)} WHERE {' AND '.join(where)})"


def _wild(code: SetCode, piece: str) -> str:
    """Whether label index ``piece`` is a ``?`` piece (SQL)."""
    wild = [v for v, w in enumerate(code.wild) if w]
    return f"list_contains({wild}, {piece})" if wild else "false"


def _twists(i: int) -> str:
    """Set i's twist at each position, from its orientation row and arrangement's slots."""
    return f"list_transform(list_select(o{i}.twists, a{i}.slots), lambda x: coalesce(x, 0))"


def _line(p: TwistyPuzzle) -> str:
    """The compact line: each piece ``index * orientations + twist`` in base 62."""
    out = []
    for i, code in enumerate(p.pack.sets):
        x = f"(p[1] * {code.o} + CASE WHEN {_wild(code, 'p[1]')} THEN 0 ELSE p[2] END)"
        w = piece_width(code)
        chars = " || ".join(
            f"substr({DIGITS}, ({x} // {62**k} % 62)::INTEGER + 1, 1)" for k in reversed(range(w))
        )
        out.append(
            f"array_to_string(list_transform(list_zip(a{i}.pieces, {_twists(i)}), "
            f"lambda p: {chars}), '')"
        )
    return " || ".join(out)


def _draw(p: TwistyPuzzle) -> str:
    """A row a set: its name, then each position's label, ``+k`` when twisted k times."""
    width = max(len(s.name) for s in p.definition.sets)
    rows = []
    for i, code in enumerate(p.pack.sets):
        cell = (
            f"p[1]::VARCHAR || CASE WHEN {_wild(code, 'p[3]')} OR p[2] = 0 THEN '' "
            f"ELSE '+' || p[2]::VARCHAR END"
        )
        cells = (
            f"list_transform(list_zip(a{i}.labels, {_twists(i)}, a{i}.pieces), lambda p: {cell})"
        )
        cw = f"list_max(list_transform({cells}, lambda c: length(c)))::INTEGER"
        padded = f"list_transform({cells}, lambda c: lpad(c, {cw}, ' '))"
        rows.append(f"rpad(s{i}.name, {width}, ' ') || '  ' || array_to_string({padded}, ' ')")
    return " || chr(10) || ".join(rows)


def _parse(p: TwistyPuzzle, t: str) -> str:
    """``state_of``: a compact line (``CPOS`` first or not) as its state.

    Plain arithmetic over the line, no subquery (a subquery in it would make every
    ``path(puzzle, state_of(...))`` of the catalog fail: a table function's argument
    may hold none): each set's rank is :meth:`SetCode.rank` as a fold over its
    pieces, its orientation value the twists as base-``o`` digits."""
    txt = "regexp_replace(trim(txt), '^CPOS\\s+', '')"
    valid, even, terms, at = [], [], [], 0
    for code, w in zip(p.pack.sets, p.pack.weights, strict=True):
        k = piece_width(code)
        digit = " + ".join(
            f"(instr({DIGITS}, substr(c, {d + 1}, 1)) - 1) * {62 ** (k - 1 - d)}" for d in range(k)
        )
        # No lambda reads the line itself: it may be a subquery (board(...) inside).
        chunks = f"regexp_extract_all(substr({txt}, {at + 1}, {code.n * k}), '.{{{k}}}')"
        xs = f"list_transform({chunks}, lambda c: {digit})"
        pieces = f"list_transform({xs}, lambda x: x // {code.o})"
        wild = _wild(code, f"x // {code.o}")
        twists = f"list_transform({xs}, lambda x: CASE WHEN {wild} THEN 0 ELSE x % {code.o} END)"
        if code.slotted:  # the digits: the twists of the pieces not ?, in order
            kept = f"list_filter({xs}, lambda x: NOT {wild})"
            twists = f"list_transform({kept}, lambda x: x % {code.o})"
        solved = sorted(i for i, c in enumerate(code.counts) for _ in range(c))
        valid.append(f"list_sort({pieces}) = {solved}")
        if code.implied:
            valid.append(f"list_sum({twists}) % {code.o} = {code.total}")
        fold = _rank_fold(code, pieces)
        rank = f"{fold}['r'] // 2" if code.even else f"{fold}['r']"
        if code.even:
            even.append(f"{fold}['inv'] % 2 = {code.parity}")
        terms.append(f"(({rank}) * {code.twists} + {_digits(code, twists)}) * {w}")
        at += code.n * k
    bad = sql_str(f"not a position of {p.name} (its compact line: {at} base-62 characters)")
    return (
        f"CASE WHEN length({txt}) != {at} OR NOT regexp_full_match({txt}, '[0-9A-Za-z]*') "
        f"OR NOT ({' AND '.join(valid)}) THEN error({bad}) "
        + (f"WHEN NOT ({' AND '.join(even)}) THEN error({bad}) " if even else "")
        + f"ELSE ({' + '.join(terms)})::UBIGINT END"
    )


def _rank_fold(code: SetCode, pieces: str) -> str:
    """The fold of :meth:`SetCode.rank` over ``pieces`` (label indices), a struct: ``r``
    the rank before halving, ``inv`` the inversions (the parity of distinct pieces).
    ``rem`` holds the pieces not yet placed, by label; each step adds the
    arrangements that put a smaller label there, ``total * smaller // m``."""
    counts = f"{list(code.counts)}::INTEGER[]"
    full = multinomial(code.counts)
    start = f"{{'r': 0::HUGEINT, 'total': {full}::HUGEINT, 'rem': {counts}, 'v': 0, 'inv': 0}}"
    each = "{'r': 0::HUGEINT, 'total': 0::HUGEINT, 'rem': []::INTEGER[], 'v': v::INTEGER, 'inv': 0}"
    smaller = "coalesce(list_sum(list_slice(acc['rem'], 1, x['v'])), 0)"
    m = "list_sum(acc['rem'])"
    step = (
        f"lambda acc, x: {{'r': (acc['r'] + acc['total'] * {smaller} // {m})::HUGEINT, "
        f"'total': (acc['total'] * acc['rem'][x['v'] + 1] // {m})::HUGEINT, "
        "'rem': list_transform(acc['rem'], "
        "lambda c, i: CASE WHEN i = x['v'] + 1 THEN c - 1 ELSE c END), "
        f"'v': 0, 'inv': (acc['inv'] + {smaller})::INTEGER}}"
    )
    return f"list_reduce(list_prepend({start}, list_transform({pieces}, lambda v: {each})), {step})"


def _digits(code: SetCode, twists: str) -> str:
    """The orientation value: the first ``digits`` twists in base ``o``."""
    if code.digits == 0:
        return "0"
    first = f"list_transform(list_slice({twists}, 1, {code.digits}), lambda d: d::HUGEINT)"
    return f"list_reduce(list_prepend(0::HUGEINT, {first}), lambda q, d: q * {code.o} + d)"
