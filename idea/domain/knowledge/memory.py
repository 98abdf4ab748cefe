"""Project memory (spec 04 §11): durable notes `.ideai/memory/<slug>.md` with front matter, and their index
`MEMORY.md`, kept consistent with the files.

`write_note` applies IdeA's corrections of what the original's write tool produced (stacked front-matter
blocks, leaked tool markup, placeholder descriptions, a title silently dropped); the tool, the UI and the
harvest all go through it. Reading is tolerant: a hand-edited note is read as far as it is valid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.front_matter import Problem, render_block, split_front_matter
from idea.domain.wording import capitalized

MEMORY_DIR = "memory"
INDEX_FILE = "MEMORY.md"
NOTE_SUFFIX = ".md"
SLUG_MAX_CHARS = 80
DESCRIPTION_MAX_CHARS = 160
TOOL_DESCRIPTION_MAX_CHARS = 200
DEFAULT_INDEX_PREAMBLE = ("# Project memory", "")
_SLUG_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_SLUG_REST = _SLUG_FIRST | {"-"}
# Names of the function-call markup elements whose closing tags leaked at the end of the original's notes.
_MARKUP_ELEMENTS = frozenset(
    {"content", "invoke", "parameter", "function_calls", "function_call", "tool_call", "tool_use", "result"}
)


class MemoryType(StrEnum):
    PROJECT = "project"  # facts and decisions about this project
    REFERENCE = "reference"  # how-tos, external facts
    FEEDBACK = "feedback"  # rules learned from the user


def is_valid_slug(slug: str) -> bool:
    """`^[a-z0-9][a-z0-9-]{0,79}$`."""
    return (
        0 < len(slug) <= SLUG_MAX_CHARS
        and slug[0] in _SLUG_FIRST
        and all(ch in _SLUG_REST for ch in slug[1:])
    )


def require_slug(slug: str, code: ErrorCode = ErrorCode.INVALID) -> str:
    if not is_valid_slug(slug):
        raise AppError(
            code,
            f"`slug` {slug[:90]!r} is not a memory slug: use 1 to {SLUG_MAX_CHARS} lowercase letters, digits "
            "and '-', starting with a letter or a digit (for example 'git-owns-merges')",
        )
    return slug


def parse_type(value: Any) -> MemoryType | None:
    if isinstance(value, str):
        try:
            return MemoryType(value.strip().lower())
        except ValueError:
            return None
    return None


def slug_in_words(slug: str) -> str:
    words = slug.replace("-", " ").strip()
    return capitalized(words)


def placeholder_description(slug: str) -> str:
    """What the original wrote when no description was given; it made the index useless."""
    return f"memory note {slug}"


@dataclass(frozen=True)
class MemoryNote:
    slug: str
    description: str
    type: MemoryType
    body: str  # Markdown, without front matter, ending without trailing whitespace
    metadata: tuple[tuple[str, Any], ...] = ()  # other metadata keys, in order (unknown keys are kept)

    def render(self) -> str:
        """The note file: exactly one front-matter block in the canonical order, then the body."""
        metadata: dict[str, Any] = {"type": self.type.value}
        metadata.update(dict(self.metadata))
        block = render_block({"name": self.slug, "description": self.description, "metadata": metadata})
        return f"{block}{self.body}\n" if self.body else block


@dataclass(frozen=True)
class ReadNote:
    """A note file read as far as it is valid."""

    note: MemoryNote
    problems: tuple[Problem, ...] = ()
    title: str | None = None


def read_note(slug: str, text: str) -> ReadNote:
    """The note a file holds. Stacked front-matter blocks are merged (first block first); a file without
    front matter is all body; what cannot be read is reported with its line."""
    document = split_front_matter(text)
    merged = _merged_blocks((block.values for block in document.blocks), slug)
    problems = list(document.problems)
    note_type = parse_type(merged.get("type"))
    if merged.get("type") is not None and note_type is None:
        problems.append(Problem(1, f"unknown type {merged.get('type')!r}; read as 'project'"))
    body = _clean_body(document.body)
    description = merged.get("description")
    description = _flat(description) if isinstance(description, str) else ""
    name = merged.get("name")
    if isinstance(name, str) and name.strip() and name.strip() != slug:
        problems.append(Problem(1, f"`name` is {name.strip()!r} but the file is {slug}{NOTE_SUFFIX}"))
    title = merged.get("title")
    return ReadNote(
        MemoryNote(
            slug=slug,
            description=description,
            type=note_type or MemoryType.PROJECT,
            body=body,
            metadata=tuple(merged["metadata"].items()),
        ),
        tuple(problems),
        title if isinstance(title, str) and title.strip() else None,
    )


def _merged_blocks(blocks: Iterable[Mapping[str, Any]], slug: str) -> dict[str, Any]:
    """Recognised keys from the first block that has them (a placeholder description does not count);
    `metadata.type` counts as `type`; every other key ends up under `metadata`, first occurrence kept."""
    merged: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for values in blocks:
        for key, value in values.items():
            if key == "metadata" and isinstance(value, Mapping):
                for meta_key, meta_value in value.items():
                    if meta_key == "type":
                        merged.setdefault("type", meta_value)
                    else:
                        metadata.setdefault(str(meta_key), meta_value)
            elif key in ("name", "description", "type", "title"):
                placeholder = key == "description" and isinstance(value, str) and _is_placeholder(value, slug)
                if value is not None and not placeholder and key not in merged:
                    merged[key] = value
            else:
                metadata.setdefault(str(key), value)
    merged["metadata"] = metadata
    return merged


def _flat(text: str) -> str:
    return " ".join(text.split())


def _is_markup_closer(line: str) -> bool:
    stripped = line.strip()
    if not (stripped.startswith("</") and stripped.endswith(">")):
        return False
    return stripped[2:-1].split(":")[-1].strip() in _MARKUP_ELEMENTS


def _clean_body(body: str) -> str:
    """Trailing lines made only of function-call closing tags, and trailing whitespace, removed."""
    lines = body.rstrip().split("\n")
    while lines and (not lines[-1].strip() or _is_markup_closer(lines[-1])):
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(line.rstrip() for line in lines)


def derived_description(body: str, title: str | None, slug: str) -> str:
    """The first non-empty, non-heading body line, flattened, at most 160 characters; else the title, else
    the slug in words."""
    for line in body.split("\n"):
        stripped = _without_list_marker(line.strip())
        if stripped and not stripped.startswith("#") and stripped != "---" and not stripped.startswith("```"):
            return _flat(stripped)[:DESCRIPTION_MAX_CHARS]
    if title:
        return _flat(title)[:DESCRIPTION_MAX_CHARS]
    return slug_in_words(slug)


def index_description(read: ReadNote) -> str:
    """The description a note's index line shows: its own, else one derived like `write_note` does."""
    note = read.note
    if _is_placeholder(note.description, note.slug):
        return derived_description(note.body, read.title, note.slug)
    return note.description


def _without_list_marker(line: str) -> str:
    """`- item`, `* item`, `1. item` -> `item`."""
    for marker in ("- ", "* ", "+ "):
        if line.startswith(marker):
            return line[len(marker) :].strip()
    number, dot, rest = line.partition(". ")
    return rest.strip() if dot and number.isdigit() else line


def _is_placeholder(description: str, slug: str) -> bool:
    return not description.strip() or description.strip() == placeholder_description(slug)


def _first_heading(body: str) -> str | None:
    for line in body.split("\n"):
        if line.strip():
            stripped = line.strip()
            return stripped.lstrip("#").strip() if stripped.startswith("# ") else None
    return None


def write_note(
    slug: str,
    content: str,
    *,
    description: str | None = None,
    note_type: MemoryType | None = None,
    title: str | None = None,
) -> MemoryNote:
    """The note to save for submitted `content` (spec 04 §11.2, rules 1-5): front-matter blocks merged with
    explicit arguments first, markup leftovers stripped, a real description, the title as first heading."""
    require_slug(slug)
    document = split_front_matter(content)
    merged = _merged_blocks((block.values for block in document.blocks), slug)
    body = _clean_body(document.body)
    title = title if title and title.strip() else merged.get("title")
    title = _flat(title) if isinstance(title, str) and title.strip() else None
    metadata = dict(merged["metadata"])
    heading = _first_heading(body)
    if title and heading is None:
        body = f"# {title}\n\n{body}" if body else f"# {title}"
    elif title and heading != title:  # the body has its own heading: the title is kept, not stacked on it
        metadata.setdefault("title", title)
    chosen = description if description and description.strip() else merged.get("description")
    chosen = _flat(chosen) if isinstance(chosen, str) else ""
    if _is_placeholder(chosen, slug):
        chosen = derived_description(body, title, slug)
    kind = note_type or parse_type(merged.get("type")) or MemoryType.PROJECT
    return MemoryNote(slug=slug, description=chosen, type=kind, body=body, metadata=tuple(metadata.items()))


# --------------------------------------------------------------------------------------------- the index


@dataclass(frozen=True)
class IndexEntry:
    slug: str
    description: str

    def render(self) -> str:
        line = f"- [{self.slug}]({self.slug}{NOTE_SUFFIX})"
        return f"{line} — {self.description}" if self.description else line


@dataclass(frozen=True)
class MemoryIndex:
    """`MEMORY.md`: the preamble (lines before the first entry, kept as written), then one line per note.
    Other lines among the entries (a comment, a blank line) are kept in place."""

    preamble: tuple[str, ...] = DEFAULT_INDEX_PREAMBLE
    items: tuple[IndexEntry | str, ...] = ()

    @property
    def entries(self) -> tuple[IndexEntry, ...]:
        return tuple(item for item in self.items if isinstance(item, IndexEntry))

    def entry(self, slug: str) -> IndexEntry | None:
        return next((entry for entry in self.entries if entry.slug == slug), None)

    def render(self) -> str:
        lines = [*self.preamble, *(item.render() if isinstance(item, IndexEntry) else item for item in self.items)]
        while lines and not lines[-1].strip():
            lines.pop()
        return "\n".join(lines) + "\n"

    def with_entry(self, entry: IndexEntry) -> MemoryIndex:
        """The note's line replaced in place, or appended at the end."""
        if self.entry(entry.slug) is None:
            items = list(self.items)
            while items and isinstance(items[-1], str) and not items[-1].strip():
                items.pop()
            return MemoryIndex(self.preamble, (*items, entry))
        return MemoryIndex(
            self.preamble,
            tuple(entry if isinstance(item, IndexEntry) and item.slug == entry.slug else item for item in self.items),
        )

    def without(self, slug: str) -> MemoryIndex:
        return MemoryIndex(
            self.preamble, tuple(item for item in self.items if not (isinstance(item, IndexEntry) and item.slug == slug))
        )


def parse_index(text: str) -> MemoryIndex:
    lines = text.replace("\r\n", "\n").removeprefix("\ufeff").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    preamble: list[str] = []
    items: list[IndexEntry | str] = []
    seen: set[str] = set()
    for line in lines:
        entry = parse_index_line(line)
        if entry is None:
            (items if items else preamble).append(line)
        elif entry.slug not in seen:  # a repeated line for the same note is dropped
            seen.add(entry.slug)
            items.append(entry)
    return MemoryIndex(tuple(preamble), tuple(items))


def parse_index_line(line: str) -> IndexEntry | None:
    """`- [slug](slug.md) — description` (also `*` bullets and `-`, `–` or `:` separators)."""
    stripped = line.strip()
    if not stripped.startswith(("- [", "* [")):
        return None
    label, sep, rest = stripped[3:].partition("](")
    target, sep2, tail = rest.partition(")")
    if not sep or not sep2:
        return None
    slug = target.strip()
    slug = slug[: -len(NOTE_SUFFIX)] if slug.endswith(NOTE_SUFFIX) else label.strip()
    if not is_valid_slug(slug):
        return None
    description = tail.strip()
    for separator in ("—", "–", "-", ":"):
        if description.startswith(separator):
            description = description[len(separator) :].strip()
            break
    return IndexEntry(slug, description)


@dataclass(frozen=True)
class Reconciliation:
    index: MemoryIndex
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    refreshed: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.refreshed)


def reconcile_index(index: MemoryIndex, descriptions: Mapping[str, str]) -> Reconciliation:
    """`MEMORY.md` made consistent with the note files (`descriptions`: slug -> front-matter description):
    lines of missing files removed, files without a line appended (in slug order), descriptions refreshed."""
    removed = tuple(entry.slug for entry in index.entries if entry.slug not in descriptions)
    refreshed: list[str] = []
    items: list[IndexEntry | str] = []
    for item in index.items:
        if isinstance(item, IndexEntry):
            if item.slug not in descriptions:
                continue
            wanted = descriptions[item.slug]
            if wanted != item.description:
                refreshed.append(item.slug)
                item = IndexEntry(item.slug, wanted)
        items.append(item)
    reconciled = MemoryIndex(index.preamble, tuple(items))
    present = {entry.slug for entry in reconciled.entries}
    added = tuple(sorted(slug for slug in descriptions if slug not in present))
    for slug in added:
        reconciled = reconciled.with_entry(IndexEntry(slug, descriptions[slug]))
    return Reconciliation(reconciled, added, removed, tuple(refreshed))


# -------------------------------------------------------------------------------------- links and pointers


@dataclass(frozen=True)
class MemoryPointerLine:
    """One line of the index as injected into an agent's context file (the body is read on demand)."""

    slug: str
    description: str


def pointers(index: MemoryIndex) -> tuple[MemoryPointerLine, ...]:
    return tuple(MemoryPointerLine(entry.slug, entry.description) for entry in index.entries)


def wiki_links(body: str) -> tuple[str, ...]:
    """The `[[slug]]` links of a body, in order, each once (`[[slug|label]]` names `slug`)."""
    found: list[str] = []
    rest = body
    while True:
        start = rest.find("[[")
        if start < 0:
            break
        end = rest.find("]]", start + 2)
        if end < 0:
            break
        target = rest[start + 2 : end].split("|", 1)[0].strip()
        if target and "\n" not in target and target not in found:
            found.append(target)
        rest = rest[end + 2 :]
    return tuple(found)


@dataclass(frozen=True)
class LinkReport:
    links: tuple[str, ...]
    broken: tuple[str, ...]
    backlinks: tuple[str, ...]


def link_report(slug: str, bodies: Mapping[str, str]) -> LinkReport:
    """For note `slug` among `bodies` (slug -> body): its links, those to no note, the notes linking to it."""
    links = wiki_links(bodies.get(slug, ""))
    return LinkReport(
        links=links,
        broken=tuple(link for link in links if link not in bodies),
        backlinks=tuple(sorted(other for other, body in bodies.items() if other != slug and slug in wiki_links(body))),
    )
