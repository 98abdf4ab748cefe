"""`.ideai/conversations/<id>/handoff.md` (spec 04 §6.1).

Written atomically but without fsync: a handoff is derived from the conversation log, which is durable, and
a lost write is folded again from the log at the next record. A file that cannot be read as a handoff is
moved aside (`handoff.md.corrupt-<ms>`), never overwritten.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.front_matter import Problem
from idea.domain.knowledge.handoff import Handoff, parse_handoff, render_handoff
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_text, quarantine, read_text
from idea.infrastructure.stores.document_file import path_lock

CONVERSATIONS_DIR = "conversations"
HANDOFF_NAME = "handoff.md"


class MarkdownHandoffStore:
    def __init__(self, project_root: str) -> None:
        self._root = Path(project_root) / IDEAI_DIR / CONVERSATIONS_DIR
        self.problems: list[str] = []  # what hand-edited files had that could not be read, as "file:line: why"

    def path(self, conversation: str) -> Path:
        try:
            name = str(uuid.UUID(conversation))
        except ValueError:
            raise AppError(ErrorCode.INVALID, f"conversation id {conversation!r} is not a UUID") from None
        return self._root / name / HANDOFF_NAME

    def load(self, conversation: str) -> Handoff | None:
        """The handoff, None when there is none yet; CorruptFileError (file kept aside) when unreadable."""
        path = self.path(conversation)
        with path_lock(path):
            text = read_text(path)
            if text is None:
                return None
            parsed = parse_handoff(text)
            if parsed.handoff is None:
                raise quarantine(path, _described(parsed.problems))
            self.problems.extend(problem.describe(str(path)) for problem in parsed.problems)
            return parsed.handoff

    def save(self, conversation: str, handoff: Handoff) -> None:
        path = self.path(conversation)
        with path_lock(path):
            atomic_write_text(path, render_handoff(handoff), 0o600, durable=False)


def _described(problems: tuple[Problem, ...]) -> str:
    return "; ".join(f"line {problem.line}: {problem.message}" for problem in problems) or "not a handoff"
