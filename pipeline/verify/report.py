"""What verify found, as the API hands it back (the checks fill it as they go)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    """What verify found; ``ok`` when nothing is wrong."""

    table: str
    positions: int = 0
    levels: int = 0
    problems: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems
