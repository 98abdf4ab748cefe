"""What a terminal runs in its foreground, for cell headers and for asking before a busy shell is closed or
replaced."""

from __future__ import annotations

from idea.application.projects import ProjectRuntime
from idea.domain.errors import AppError
from idea.domain.ids import SessionId
from idea.infrastructure.terminal.process_tree import process_name

UNNAMED_PROGRAM = "a program"


def program_in_front(runtime: ProjectRuntime, session_id: SessionId) -> str | None:
    """The program a shell runs in front of itself ("vim"); None when the shell itself waits at its
    prompt, or when the session is gone."""
    try:
        terminal = runtime.sessions.terminal(session_id)
    except AppError:
        return None
    foreground = terminal.foreground_pid()
    if foreground is None or foreground == terminal.pid():
        return None
    return process_name(foreground) or UNNAMED_PROGRAM
