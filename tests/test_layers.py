"""The package's rooms import only the rooms below them (docs/ARCHITECTURE.md).

A room is a top-level module or package of ``pipeline``. The order, lowest
first: the words every room uses (errors, words, answers, then hints); the engine,
which knows no puzzle and no file; storage, the data contract on disk; the
puzzles; the executors; the build loop; the readers of built tables (query,
then verify and solvers); the service, which answers every question once; the
pictures; the API; the explorer; the command line.
"""

from __future__ import annotations

from tests.test_import_cycles import edges, modules

RANKS = {
    "errors": 0,
    "words": 0,
    "hints": 1,  # says sizes in words.py's words
    "answers": 0,
    "engine": 2,
    "draw": 2,
    "storage": 3,
    "puzzles": 4,
    "executors": 5,
    "build": 6,
    "query": 7,
    "verify": 8,
    "solvers": 8,
    "service": 9,
    "pictures": 10,
    "api": 11,
    "serve": 12,
    "cli": 13,
    "": 14,  # pipeline/__init__.py: the public import name
}


def room(module: str) -> str:
    return module.split(".")[1] if module.count(".") else ""


def test_every_room_has_a_rank() -> None:
    assert {room(m) for m in modules()} <= set(RANKS)


def test_rooms_import_only_rooms_below_them() -> None:
    known = modules()
    upward = sorted(
        f"{a} -> {b}"
        for a, path in known.items()
        for b in edges(a, path, known)
        if room(a) != room(b) and RANKS[room(a)] <= RANKS[room(b)]
    )
    assert upward == []
