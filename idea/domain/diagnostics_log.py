"""The diagnostics log read back (spec 07 §5): each line `<epoch_ms> <message>`, the message opening with its
`[tag]`, and ending with `project=<8 hex>` when one project's services wrote it. What Help ▸ Diagnostics
filters on, and what a bug report keeps of the settings (no secrets)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

PROJECT_KEY = "project="
PROJECT_MARK_LENGTH = 8  # hex digits of the project id: enough to tell a person's projects apart
REDACTED = "<redacted>"
SECRET_WORDS = ("token", "secret", "password", "passwd", "apikey", "credential", "bearer", "cookie")


def project_mark(project_id: str) -> str:
    """What ends a project's beacons: `project=` and the first hex digits of its id."""
    return PROJECT_KEY + _short(project_id)


def _short(project_id: str) -> str:
    return project_id.replace("-", "").lower()[:PROJECT_MARK_LENGTH]


@dataclass(frozen=True)
class LogLine:
    text: str  # the line as written, without its line break
    at_ms: int | None  # None: a line that does not start with a time (written by hand, or cut)
    tag: str | None  # "rendezvous" for "[rendezvous] ask …"
    message: str  # the line after its time
    project: str | None  # the project mark's hex digits, when the line ends with one


def parse_line(text: str) -> LogLine:
    first, _space, rest = text.partition(" ")
    at_ms = int(first) if first.isdigit() else None
    message = rest if at_ms is not None else text
    tag = None
    if message.startswith("[") and (end := message.find("]", 1)) > 1 and " " not in message[1:end]:
        tag = message[1:end]
    project = None
    last = message.rpartition(" ")[2]
    if last.startswith(PROJECT_KEY):
        mark = last[len(PROJECT_KEY):]
        if len(mark) == PROJECT_MARK_LENGTH and all(c in "0123456789abcdef" for c in mark):
            project = mark
    return LogLine(text, at_ms, tag, message, project)


@dataclass(frozen=True)
class LogFilter:
    """`tag`: only that tag's lines; `project`: only lines of that project (its mark, or its id written out in
    either form); `text`: only lines holding it, whatever the case."""

    tag: str | None = None
    project: str | None = None
    text: str = ""

    def matches(self, line: LogLine) -> bool:
        if self.tag is not None and line.tag != self.tag:
            return False
        if self.project is not None and not _about_project(line, self.project):
            return False
        return not self.text or self.text.casefold() in line.message.casefold()


def _about_project(line: LogLine, project_id: str) -> bool:
    if line.project is not None:
        return line.project == _short(project_id)
    simple = project_id.replace("-", "").lower()
    return project_id.lower() in line.message or simple in line.message


def tags_of(lines: Iterable[LogLine]) -> list[str]:
    return sorted({line.tag for line in lines if line.tag is not None})


def without_secrets(document: Any) -> Any:
    """`document` (JSON values) with the value of every key that names a secret replaced by `<redacted>`."""
    if isinstance(document, dict):
        return {
            key: REDACTED if _names_secret(key) else without_secrets(value) for key, value in document.items()
        }
    if isinstance(document, list):
        return [without_secrets(value) for value in document]
    return document


def _names_secret(key: object) -> bool:
    name = str(key).lower().replace("_", "").replace("-", "")
    return any(word in name for word in SECRET_WORDS) or name.endswith(("key", "auth"))
