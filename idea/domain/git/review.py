"""Diff reviews (spec 07 §3): comments anchored to lines of a diff, kept as drafts in
`.ideai/reviews/<reviewId>.json`, sent to an agent as one human ticket, marked with that ticket, and
checked against a later diff for a hint of which were addressed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from idea.domain.documents import CamelDocument
from idea.domain.errors import invalid, not_found
from idea.domain.git.diff import DiffKind, DiffSpec
from idea.domain.git.model import display_path
from idea.domain.wording import counted

REVIEW_VERSION = 1
EXCERPT_MAX_CHARS = 120
COMMENT_MAX_CHARS = 4000
HINT_WINDOW_LINES = 50  # how far an unchanged line may have moved and still count as the same line
CLOSING_LINE = "Please address each comment, then summarise what you changed."

Side = Literal["old", "new"]


class ReviewComment(CamelDocument):
    path: str
    side: Side
    line: int
    hunk_header: str
    excerpt: str
    text: str
    # IdeA additions, omitted until used:
    id: str | None = None
    sent_ticket: str | None = None
    sent_to: str | None = None
    sent_at_ms: int | None = None

    @property
    def sent(self) -> bool:
        return self.sent_ticket is not None


class ReviewTarget(CamelDocument):
    """Which diff the review is about, so the viewer can reopen it (an IdeA addition to the format)."""

    kind: DiffKind
    base: str | None = None
    head: str | None = None

    def spec(self) -> DiffSpec:
        return DiffSpec(self.kind, self.base, self.head)

    @classmethod
    def of(cls, spec: DiffSpec) -> ReviewTarget:
        return cls(kind=spec.kind, base=spec.base, head=spec.head)


class Review(CamelDocument):
    version: int = REVIEW_VERSION
    id: str
    base: str
    head: str
    created_at_ms: int
    comments: tuple[ReviewComment, ...] = Field(default_factory=tuple)
    target: ReviewTarget | None = None

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["comments"] = [comment.to_json() for comment in self.comments]
        return data

    def comment(self, comment_id: str) -> ReviewComment:
        found = next((c for c in self.comments if c.id == comment_id), None)
        if found is None:
            raise not_found(f"comment {comment_id} is not in review {self.id}")
        return found

    def unsent(self) -> list[ReviewComment]:
        return [c for c in self.comments if not c.sent]

    def with_comment(self, comment: ReviewComment) -> Review:
        if not comment.text.strip():
            raise invalid("A review comment needs some text.")
        if len(comment.text) > COMMENT_MAX_CHARS:
            raise invalid(f"A review comment has at most {COMMENT_MAX_CHARS} characters.")
        if comment.line < 1:
            raise invalid("A review comment is anchored to a line number from 1.")
        if comment.id is not None and any(c.id == comment.id for c in self.comments):
            comments = tuple(comment if c.id == comment.id else c for c in self.comments)
        else:
            comments = (*self.comments, comment)  # in the order the person wrote them
        return self.model_copy(update={"comments": comments})

    def without_comment(self, comment_id: str) -> Review:
        self.comment(comment_id)
        return self.model_copy(update={"comments": tuple(c for c in self.comments if c.id != comment_id)})

    def marked_sent(self, comment_ids: Sequence[str], ticket: str, agent: str, at_ms: int) -> Review:
        wanted = set(comment_ids)
        comments = tuple(
            c.model_copy(update={"sent_ticket": ticket, "sent_to": agent, "sent_at_ms": at_ms})
            if c.id in wanted
            else c
            for c in self.comments
        )
        return self.model_copy(update={"comments": comments})


def excerpt_of(line_text: str) -> str:
    """The anchored line as the ticket quotes it: without surrounding blanks, bounded."""
    text = line_text.strip()
    return text if len(text) <= EXCERPT_MAX_CHARS else text[: EXCERPT_MAX_CHARS - 1] + "…"


def ticket_text(review: Review, comments: Sequence[ReviewComment]) -> str:
    """The human ticket of spec 07 §3, for `comments` of `review` (in that order)."""
    if not comments:
        raise invalid("There is no comment to send.")
    count = len(comments)
    lines = [f"Review of {review.head} against {review.base} — {counted(count, 'comment')}:"]
    for number, comment in enumerate(comments, start=1):
        body = comment.text.strip().replace("\r\n", "\n").split("\n")
        quoted = _code(comment.excerpt)
        lines.append(
            f"{number}. {display_path(comment.path)}:{comment.line} ({comment.side}) {quoted} — {body[0]}"
        )
        lines.extend(f"   {more}" for more in body[1:])
    lines.append(CLOSING_LINE)
    return "\n".join(lines)


def _code(text: str) -> str:
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


class Hint(StrEnum):
    CHANGED = "changed"  # the commented line is no longer there as it was: probably addressed
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class FileNow:
    """A file as a later diff shows it: its new side's lines (None when the file is gone) and the range
    headers of its hunks."""

    new_lines: tuple[str, ...] | None
    hunk_headers: frozenset[str] = frozenset()


def address_hint(comment: ReviewComment, now: FileNow | None) -> Hint:
    """Whether the line a sent comment points at changed since (a hint that it was addressed).

    A comment on the new side is unchanged while its excerpt is still found at its line, or within
    HINT_WINDOW_LINES of it (lines moved by edits above); one on the old side while its hunk still reads
    the same. A file no longer in the diff counts as changed."""
    if now is None:
        return Hint.CHANGED
    if comment.side == "old":
        return Hint.UNCHANGED if comment.hunk_header in now.hunk_headers else Hint.CHANGED
    if now.new_lines is None:
        return Hint.CHANGED
    wanted = comment.excerpt.rstrip("…")
    lines = now.new_lines
    for distance in range(HINT_WINDOW_LINES + 1):
        for index in {comment.line - 1 - distance, comment.line - 1 + distance}:
            if 0 <= index < len(lines) and _same(lines[index], wanted, comment.excerpt):
                return Hint.UNCHANGED
    return Hint.CHANGED


def _same(line: str, wanted: str, excerpt: str) -> bool:
    text = line.strip()
    return text == excerpt or (excerpt.endswith("…") and text.startswith(wanted))
