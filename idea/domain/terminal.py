"""What it takes to start a process in a terminal, and the environment every terminal child gets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_COLUMNS = 120
DEFAULT_LINES = 40


@dataclass(frozen=True)
class SpawnSpec:
    argv: tuple[str, ...]
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)
    columns: int = DEFAULT_COLUMNS
    lines: int = DEFAULT_LINES
    # What Shift+Enter types (an agent profile's `newlineSequence`: a new line in the CLI's prompt instead
    # of sending it); None: the key as the terminal sends it.
    shift_enter: str | None = None

    def __post_init__(self) -> None:
        if not self.argv or not self.argv[0]:
            raise ValueError("a terminal needs a program to run")
