"""What a spec family module sees: the parsed :class:`Spec` and the :class:`Problem`
it raises (parse.py reads the file, checks the top and locates the problem)."""

from __future__ import annotations

from dataclasses import dataclass


class Problem(Exception):
    """What is wrong with a spec, and where (a key path like ``tiles.adjacency[3]``)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


@dataclass(frozen=True)
class Spec:
    """A parsed spec: its name, title, family and the family's table."""

    name: str
    title: str
    family: str
    #: The family's table as TOML read it (each loader checks what it reads).
    table: dict[str, object]
    text: str
    #: The file (or manifest) it was read from, for messages.
    where: str
