"""The `idea-memory` blocks an agent ends its reply with to save a memory note (spec 04 §12).

````markdown
```idea-memory
slug: appimage-offline-runtime
title: Building the AppImage without network
description: Attach the project's own AppImage runtime when building offline.
type: reference
---
Body in Markdown…
```
````

Header lines `key: value` until a `---` line, then the body. Each block is validated on its own: a bad
block is reported with its reason and never stops the others. Parsing never raises.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.knowledge.memory import MemoryType, is_valid_slug

BLOCK_TAG = "idea-memory"
MAX_DIRECTIVES = 5
BODY_MAX_CHARS = 16_000
TITLE_MAX_CHARS = 120
DESCRIPTION_MAX_CHARS = 200
_HEADER_KEYS = ("slug", "title", "description", "type")


@dataclass(frozen=True)
class MemoryDirective:
    slug: str
    title: str
    description: str | None
    type: MemoryType
    body: str


@dataclass(frozen=True)
class HarvestParse:
    found: int  # blocks tagged idea-memory
    directives: tuple[MemoryDirective, ...]
    errors: tuple[str, ...]  # one reason per skipped block


@dataclass(frozen=True)
class _Block:
    number: int  # 1-based, in reply order
    lines: tuple[str, ...]
    closed: bool


def parse_memory_blocks(text: str) -> HarvestParse:
    blocks = _fenced_blocks(text)
    directives: list[MemoryDirective] = []
    errors: list[str] = []
    for block in blocks:
        if block.number > MAX_DIRECTIVES:
            errors.append(f"block {block.number}: more than {MAX_DIRECTIVES} idea-memory blocks in one reply; ignored")
            continue
        result = _directive(block)
        if isinstance(result, str):
            errors.append(f"block {block.number}: {result}")
        else:
            directives.append(result)
    return HarvestParse(len(blocks), tuple(directives), tuple(errors))


def _fenced_blocks(text: str) -> list[_Block]:
    """Blocks opened by a fence of 3+ backticks (or tildes) tagged `idea-memory` and closed by a fence of the
    same character at least as long, so a body may itself hold shorter code fences."""
    lines = text.replace("\r\n", "\n").split("\n")
    blocks: list[_Block] = []
    index = 0
    while index < len(lines):
        fence = _opening_fence(lines[index])
        if fence is None:
            index += 1
            continue
        fence_char, fence_len, info = fence
        closing = None
        for probe in range(index + 1, len(lines)):
            if _closes(lines[probe], fence_char, fence_len):
                closing = probe
                break
        end = closing if closing is not None else len(lines)
        if info == BLOCK_TAG:
            blocks.append(_Block(len(blocks) + 1, tuple(lines[index + 1 : end]), closing is not None))
        index = end + 1
    return blocks


def _opening_fence(line: str) -> tuple[str, int, str] | None:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped[:1] in ("`", "~"):
        return None
    char = stripped[0]
    count = len(stripped) - len(stripped.lstrip(char))
    if count < 3:
        return None
    info = stripped[count:].strip()
    if char == "`" and "`" in info:
        return None
    return char, count, info.split(" ", 1)[0].lower() if info else ""


def _closes(line: str, char: str, length: int) -> bool:
    stripped = line.strip()
    return len(stripped) >= length and stripped == char * len(stripped)


def _directive(block: _Block) -> MemoryDirective | str:
    if not block.closed:
        return "the block is never closed with a fence"
    separator = next((i for i, line in enumerate(block.lines) if line.strip() == "---"), None)
    if separator is None:
        return "no '---' line between the header and the body"
    header: dict[str, str] = {}
    for line in block.lines[:separator]:
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or key not in _HEADER_KEYS:
            return f"unexpected header line {line.strip()[:60]!r} (expected slug, title, description, type)"
        header[key] = value.strip()
    body = "\n".join(block.lines[separator + 1 :]).strip("\n").rstrip()
    slug = header.get("slug", "")
    if not slug:
        return "`slug` is required"
    if not is_valid_slug(slug):
        return f"`slug` {slug[:90]!r} is not a kebab-case id (a-z, 0-9 and '-', at most 80 characters)"
    title = header.get("title", "")
    if not title:
        return f"{slug}: `title` is required"
    if len(title) > TITLE_MAX_CHARS:
        return f"{slug}: `title` has {len(title)} characters, more than {TITLE_MAX_CHARS}"
    description = header.get("description") or None
    if description is not None and len(description) > DESCRIPTION_MAX_CHARS:
        return f"{slug}: `description` has {len(description)} characters, more than {DESCRIPTION_MAX_CHARS}"
    raw_type = header.get("type", "").lower() or MemoryType.PROJECT.value
    try:
        note_type = MemoryType(raw_type)
    except ValueError:
        return f"{slug}: `type` {raw_type[:40]!r} is not project, reference or feedback"
    if not body.strip():
        return f"{slug}: the body is empty"
    if len(body) > BODY_MAX_CHARS:
        return f"{slug}: the body has {len(body)} characters, more than {BODY_MAX_CHARS}"
    return MemoryDirective(slug=slug, title=title, description=description, type=note_type, body=body)
