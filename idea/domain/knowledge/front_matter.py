"""The YAML front-matter blocks of IdeA's Markdown files (memory notes, handoffs, context proposals).

Only the subset those files use is understood: `key: value` scalars, nested mappings by indentation, lists of
scalars, quoted strings, comments. Reading is tolerant: a line that cannot be understood is reported with its
line number and skipped, and everything valid is kept. Writing produces one canonical block that YAML
readers accept (values quoted when plain text would be ambiguous).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FENCE = "---"
_BOM = "\ufeff"
_PLAIN_UNSAFE_START = tuple("-?:,[]{}#&*!|>'\"%@`")
_RESERVED_WORDS = frozenset({"null", "~", "true", "false", "yes", "no", "on", "off"})


@dataclass(frozen=True)
class Problem:
    """Something in a file that could not be read: its 1-based line number and why."""

    line: int
    message: str

    def describe(self, file_name: str) -> str:
        return f"{file_name}:{self.line}: {self.message}"


@dataclass(frozen=True)
class FrontMatterBlock:
    values: dict[str, Any]
    first_line: int  # 1-based line of the opening fence


@dataclass(frozen=True)
class SplitDocument:
    """A Markdown file cut into its leading front-matter blocks and its body."""

    blocks: tuple[FrontMatterBlock, ...]
    body: str
    body_first_line: int  # 1-based line where the body starts
    problems: tuple[Problem, ...] = field(default=())


def split_front_matter(text: str) -> SplitDocument:
    """Every front-matter block stacked at the top of `text` (blank lines between blocks allowed), then the
    body. An opening fence without a closing one is not front matter: the whole text is then the body."""
    lines = text.removeprefix(_BOM).replace("\r\n", "\n").split("\n")
    blocks: list[FrontMatterBlock] = []
    problems: list[Problem] = []
    index = 0
    while True:
        probe = index
        while blocks and probe < len(lines) and not lines[probe].strip():
            probe += 1
        if probe >= len(lines) or lines[probe].rstrip() != FENCE:
            break
        closing = next((i for i in range(probe + 1, len(lines)) if lines[i].rstrip() == FENCE), None)
        if closing is None:
            if not blocks:
                problems.append(Problem(probe + 1, "front matter opened with '---' is never closed"))
            break
        values, block_problems = parse_block(lines[probe + 1 : closing], first_line=probe + 2)
        blocks.append(FrontMatterBlock(values, probe + 1))
        problems.extend(block_problems)
        index = closing + 1
    body = "\n".join(lines[index:])
    return SplitDocument(tuple(blocks), body, index + 1, tuple(problems))


def parse_block(lines: Sequence[str], first_line: int = 1) -> tuple[dict[str, Any], list[Problem]]:
    """The mapping written by `lines` (the inside of one block) and the lines that could not be read."""
    problems: list[Problem] = []
    entries = [
        (first_line + offset, line)
        for offset, line in enumerate(lines)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    values, _ = _mapping(entries, 0, _indent(entries[0][1]) if entries else 0, problems)
    return values, problems


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _mapping(
    entries: list[tuple[int, str]], start: int, indent: int, problems: list[Problem]
) -> tuple[dict[str, Any], int]:
    result: dict[str, Any] = {}
    index = start
    while index < len(entries):
        number, line = entries[index]
        current = _indent(line)
        if current < indent:
            break
        if current > indent:
            problems.append(Problem(number, f"unexpected indentation: {line.strip()[:60]}"))
            index += 1
            continue
        key, sep, rest = line.strip().partition(":")
        key = _scalar(key.strip()) if key.strip()[:1] in "\"'" else key.strip()
        if not sep or not key or (rest and not rest.startswith(" ")):
            problems.append(Problem(number, f"expected 'key: value', found: {line.strip()[:60]}"))
            index += 1
            continue
        rest = rest.strip()
        index += 1
        if rest:
            result[str(key)] = _scalar(rest)
            continue
        if index < len(entries) and _indent(entries[index][1]) > indent:
            child_indent = _indent(entries[index][1])
            if entries[index][1].strip().startswith("- ") or entries[index][1].strip() == "-":
                result[str(key)], index = _sequence(entries, index, child_indent, problems)
            else:
                result[str(key)], index = _mapping(entries, index, child_indent, problems)
        else:
            result[str(key)] = None
    return result, index


def _sequence(
    entries: list[tuple[int, str]], start: int, indent: int, problems: list[Problem]
) -> tuple[list[Any], int]:
    items: list[Any] = []
    index = start
    while index < len(entries):
        number, line = entries[index]
        if _indent(line) < indent:
            break
        stripped = line.strip()
        if _indent(line) == indent and (stripped.startswith("- ") or stripped == "-"):
            items.append(_scalar(stripped[1:].strip()))
        else:
            problems.append(Problem(number, f"unexpected line in a list: {stripped[:60]}"))
        index += 1
    return items, index


def _scalar(text: str) -> Any:
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return json.loads(text)
        except ValueError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if " #" in text:  # a trailing comment after a plain value
        text = text.split(" #", 1)[0].rstrip()
    return text


def render_block(values: Mapping[str, Any]) -> str:
    """One canonical front-matter block, fences included, ending with a newline. None values are omitted."""
    lines = [FENCE]
    _render_mapping(values, 0, lines)
    lines.append(FENCE)
    return "\n".join(lines) + "\n"


def _render_mapping(values: Mapping[str, Any], indent: int, lines: list[str]) -> None:
    pad = " " * indent
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            if not value:
                continue
            lines.append(f"{pad}{_plain_or_quoted(str(key))}:")
            _render_mapping(value, indent + 2, lines)
        elif isinstance(value, list | tuple):
            lines.append(f"{pad}{_plain_or_quoted(str(key))}:")
            lines.extend(f"{pad}  - {render_scalar(item)}" for item in value)
        else:
            lines.append(f"{pad}{_plain_or_quoted(str(key))}: {render_scalar(value)}")


def render_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return _plain_or_quoted(str(value))


def _plain_or_quoted(text: str) -> str:
    """`text` as a plain YAML scalar when that reads back as the same string, else double-quoted."""
    plain = (
        text != ""
        and text == text.strip()
        and "\n" not in text
        and not text.startswith(_PLAIN_UNSAFE_START)
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and text.lower() not in _RESERVED_WORDS
        and not _looks_numeric(text)
        and text.isprintable()
    )
    return text if plain else json.dumps(text, ensure_ascii=False)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
