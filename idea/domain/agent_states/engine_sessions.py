"""The CLI's own session id carried by its hook events (spec 02 §14, 05 §2.3): recorded per conversation,
whoever started the session (IdeA, the person in the cell, `/clear`), so a later resume names it
explicitly. Pure: reads the payload the relay forwarded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from idea.domain.ids import is_uuid

CODEX_ID_KEYS = ("thread-id", "thread_id", "session-id", "session_id", "conversation-id")


@dataclass(frozen=True)
class HookSession:
    engine_session_id: str
    transcript_path: str | None = None


def session_from_hook(source: str, payload: dict[str, Any]) -> HookSession | None:
    """Claude and Gemini: `session_id` and `transcript_path` of every hook event; Codex: the `notify` payload's
    thread id (verify per version)."""
    if source in ("claude", "gemini"):
        session_id = payload.get("session_id")
        if not isinstance(session_id, str) or not is_uuid(session_id):
            return None
        transcript = payload.get("transcript_path")
        return HookSession(session_id, transcript if isinstance(transcript, str) and transcript else None)
    if source == "codex":
        for key in CODEX_ID_KEYS:
            value = payload.get(key)
            if isinstance(value, str) and is_uuid(value):
                return HookSession(value)
    return None
