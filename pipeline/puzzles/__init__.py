"""Puzzles: every family as data and moves, and the names that find them.

The layers, bottom up (a module imports none of a layer above its own):

- ``base.py``: the :class:`Puzzle` interface, whole, and the ``Cells`` codec;
  ``reserved.py``: names no table may have; ``family.py``: what a family
  declares about itself; ``spec/base.py``: what a spec loader sees;
  ``trusted.py``: a table's manifest checked against the puzzle of its name
  (``Checked``: what the catalog's SQL is made from), given the resolver.
- The families, a module or a folder each: ``tiles/``, ``pegs/``, ``cube/``,
  ``oshidori.py``, ``tours.py``, ``placements.py``, ``hanoi.py``, ``twisty/``
  (puzzles from twsearch definition files). A family is
  data (boards, rules, its drawing, its spec loader) plus its moves: numpy
  expanders, and compiled kernels in its ``*moves.py`` modules; it declares
  itself in one ``Family`` (a folder's ``family.py``).
- ``builtin.py``: the families, a line each, and their built-in tables by name.
- ``spec/parse.py``: puzzles defined in a TOML file; ``names.py``: the one name
  grammar (``3x3@4``, ``triangle15@3-winnable``, ``3x3~<hash>``), each family's
  suffixes as it declares them.
- ``registry.py``: ``Registry``, the one resolver of a data folder's names
  (service/folder.py holds it), and what the rest of the package imports.

The import rule (tests/test_puzzle_imports.py holds the code to it; imports in
functions and under TYPE_CHECKING count):

- From the rest of the package a puzzle module imports ``pipeline.errors``
  (and the text helpers ``pipeline.words`` and ``pipeline.hints``, and
  ``pipeline.answers`` for ``Origin``), ``pipeline.draw`` (the drawing toolkit),
  ``pipeline.engine.core`` (states, graph kinds, expanders) and
  ``pipeline.engine.packed``, ``pipeline.engine.space``,
  ``pipeline.engine.marks`` and ``pipeline.engine.bitmaps`` (the kernel
  toolkits of the ``*moves.py`` modules), nothing else of the engine, and never the build loop, the
  executors, the query, verify, API or CLI layers (``trusted.py`` also takes
  ``pipeline.hints`` for the rebuild command its errors name).
- Storage is read only where a data folder or a table is handed in: a derived
  table's ``bind(data)`` reads its source table (``WinnablePuzzle.bind``,
  through ``storage.table``: its levels, and the manifest its
  ``build_warning`` reads); verify's ``check_table(table)`` reads a family's
  own columns of the table it is given (``pegs/sym_check.py``, typing it
  only); and the names that live in a data folder (``names.py``: roots
  recorded in manifests; ``spec/parse.py``: specs kept there or recorded in
  manifests; ``registry.py``: the tables built there; ``trusted.py``:
  manifests checked, and their files' footers, through ``storage.integrity``)
  read it through ``storage.files``, ``storage.manifest`` and
  ``storage.format``; a twisty spec's ``file =``, beside the spec the user
  named, is read through ``storage.files``. Other storage types appear only
  under TYPE_CHECKING.
"""
