"""The review document, the ticket text of spec 07 §3, and the addressed hint."""

from __future__ import annotations

import pytest

from idea.domain.errors import AppError
from idea.domain.git.diff import DiffKind
from idea.domain.git.review import (
    FileNow,
    Hint,
    Review,
    ReviewComment,
    ReviewTarget,
    address_hint,
    excerpt_of,
    ticket_text,
)


def comment(path: str, line: int, excerpt: str, text: str, side: str = "new", cid: str = "c") -> ReviewComment:
    return ReviewComment(
        id=cid, path=path, side=side, line=line, hunk_header="@@ -30,7 +30,12 @@", excerpt=excerpt, text=text
    )


def review() -> Review:
    return Review(id="r1", base="develop", head="feature/storage-ports", created_at_ms=1781368615582)


def test_the_ticket_text_is_exactly_the_spec_format() -> None:
    r = review().with_comment(comment("src/store.py", 42, "def save(self, doc):", "Write atomically (tmp + rename).", cid="1"))
    r = r.with_comment(comment("README.md", 10, "## Install", "Mention the constraints file.", cid="2"))
    assert ticket_text(r, r.unsent()) == (
        "Review of feature/storage-ports against develop — 2 comments:\n"
        "1. src/store.py:42 (new) `def save(self, doc):` — Write atomically (tmp + rename).\n"
        "2. README.md:10 (new) `## Install` — Mention the constraints file.\n"
        "Please address each comment, then summarise what you changed."
    )


def test_one_comment_multi_line_text_and_backticks_keep_the_list_readable() -> None:
    r = review().with_comment(comment("a.py", 3, "x = `y`", "First line.\nSecond line.", side="old"))
    assert ticket_text(r, r.unsent()).splitlines()[:3] == [
        "Review of feature/storage-ports against develop — 1 comment:",
        "1. a.py:3 (old) `` x = `y` `` — First line.",
        "   Second line.",
    ]


def test_the_document_keeps_the_original_keys_first_and_omits_what_is_unset() -> None:
    r = review().with_comment(comment("a.py", 3, "x", "fix"))
    r = r.model_copy(update={"target": ReviewTarget(kind=DiffKind.BRANCH, base="develop", head="feature/storage-ports")})
    data = r.to_json()
    assert list(data) == ["version", "id", "base", "head", "createdAtMs", "comments", "target"]
    assert data["comments"] == [
        {"path": "a.py", "side": "new", "line": 3, "hunkHeader": "@@ -30,7 +30,12 @@", "excerpt": "x", "text": "fix", "id": "c"}
    ]
    assert Review.from_json({**data, "futureKey": 1}).to_json()["futureKey"] == 1  # unknown keys survive


def test_marking_sent_and_editing_rules() -> None:
    r = review().with_comment(comment("a.py", 3, "x", "fix", cid="1")).with_comment(comment("b.py", 1, "y", "also", cid="2"))
    sent = r.marked_sent(["1"], "ticket-9", "QA", 5)
    assert [c.sent_ticket for c in sent.comments] == ["ticket-9", None]
    assert [c.id for c in sent.unsent()] == ["2"]
    edited = sent.with_comment(comment("b.py", 1, "y", "changed", cid="2"))
    assert [c.text for c in edited.comments] == ["fix", "changed"]  # edited in place, order kept
    with pytest.raises(AppError, match="needs some text"):
        r.with_comment(comment("a.py", 1, "x", "   "))
    with pytest.raises(AppError, match="no comment to send"):
        ticket_text(r, [])


def test_excerpts_are_trimmed_and_bounded() -> None:
    assert excerpt_of("    return x  ") == "return x"
    long = excerpt_of("x" * 300)
    assert len(long) == 120 and long.endswith("…")


def test_the_addressed_hint_follows_the_line() -> None:
    c = comment("a.py", 3, "def save(self, doc):", "atomic")
    same = FileNow(("import os", "", "def save(self, doc):"))
    moved = FileNow(("# new header", "import os", "", "def save(self, doc):"))
    changed = FileNow(("import os", "", "def save(self, doc, atomic=True):"))
    assert address_hint(c, same) is Hint.UNCHANGED
    assert address_hint(c, moved) is Hint.UNCHANGED  # lines moved by an edit above, the line itself kept
    assert address_hint(c, changed) is Hint.CHANGED
    assert address_hint(c, FileNow(None)) is Hint.CHANGED  # the file is gone
    old = comment("a.py", 31, "x", "y", side="old")
    assert address_hint(old, FileNow(None, frozenset({"@@ -30,7 +30,12 @@"}))) is Hint.UNCHANGED
    assert address_hint(old, FileNow(None, frozenset({"@@ -30,7 +30,9 @@"}))) is Hint.CHANGED
