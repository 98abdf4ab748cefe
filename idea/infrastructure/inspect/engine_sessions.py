"""The CLIs' own sessions, read from what they write (spec 02 §14, 05 §4, §6.1, §11): the engine session id
to resume by (whoever started the session: IdeA, the person in the cell, the CLI itself after `/clear`), the
transcript, the "last subject" shown in the resume dialog, and the usage-limit records some CLIs write.

Read-only: IdeA never modifies a CLI's transcripts or session files. Every reader tolerates partial lines
(a CLI appending at the same moment), unknown record shapes and missing folders: None, never an exception.

- Claude Code: hooks carry `session_id` and `transcript_path`; the transcript is
  `~/.claude/projects/<encode_cwd(cwd)>/<session id>.jsonl`, one JSON record per line (`type` "user" /
  "assistant", `message.content`).
- Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (IdeA gives each agent its own
  CODEX_HOME, so the newest rollout there is the agent's); the first record is `session_meta` with
  `payload.id` (older versions: a bare `id`); `notify` payloads carry `thread-id` (verify per version).
- Gemini CLI: `~/.gemini/tmp/<sha256(project dir)>/chats/session-*.json` (a JSON document with `sessionId`
  and `messages`), or `session-*.jsonl` whose first record carries `sessionId` (0.61; newer versions name
  the folder from a project registry); IdeA assigns the id itself (`--session-id`) and resumes it with
  `--resume <id>` (verified with 0.61), so reading these files is only needed for sessions started inside
  the CLI.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from idea.domain.ids import is_uuid
from idea.domain.orchestration.delivery import is_idea_delivery
from idea.domain.profile import Profile
from idea.infrastructure.inspect.activity import CODEX_HOME_DIR, encode_cwd

SUBJECT_MAX_CHARS = 80
HEAD_BYTES = 256 * 1024  # the first records of a transcript, where its first prompt is
CODEX_ROLLOUT_PREFIX = "rollout-"


@dataclass(frozen=True)
class EngineSession:
    engine_session_id: str
    transcript_path: str | None = None


# --- session files -------------------------------------------------------------------------------------


def codex_rollouts(codex_home: str) -> list[str]:
    """Every rollout under `codex_home/sessions/YYYY/MM/DD/`, in name order."""
    return sorted(
        os.path.join(folder, name)
        for folder, _, files in os.walk(os.path.join(codex_home, "sessions"))
        for name in files
        if name.startswith(CODEX_ROLLOUT_PREFIX) and name.endswith(".jsonl")
    )


def rollout_of(rollouts: list[str], session_id: str) -> str | None:
    """The rollout of `rollouts` whose file name carries `session_id` (a thread's id), if any."""
    return next((path for path in rollouts if session_id in os.path.basename(path)), None)


def latest_codex_session(codex_home: str) -> EngineSession | None:
    """The newest rollout under `codex_home/sessions`, by modification time."""
    newest: tuple[float, str] | None = None
    for path in codex_rollouts(codex_home):
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            continue
        if newest is None or mtime > newest[0]:
            newest = (mtime, path)
    if newest is None:
        return None
    session_id = _codex_id(newest[1])
    return EngineSession(session_id, newest[1]) if session_id else None


def _codex_id(path: str) -> str | None:
    first = next(_records(path, limit=1), None)
    if first is not None:
        payload = first.get("payload") if first.get("type") == "session_meta" else first
        value = payload.get("id") if isinstance(payload, dict) else None
        if isinstance(value, str) and is_uuid(value):
            return value
    stem = os.path.basename(path)[: -len(".jsonl")]
    tail = stem[-36:]
    return tail if is_uuid(tail) else None


def gemini_project_hash(project_dir: str) -> str:
    return hashlib.sha256(project_dir.encode("utf-8")).hexdigest()


def latest_gemini_session(home: str, project_dir: str) -> EngineSession | None:
    """The newest chat of Gemini CLI for `project_dir` (its working directory)."""
    chats = os.path.join(home, ".gemini", "tmp", gemini_project_hash(project_dir), "chats")
    try:
        names = [n for n in os.listdir(chats) if n.startswith("session-") and n.endswith((".json", ".jsonl"))]
    except OSError:
        return None
    dated = []
    for name in names:
        path = os.path.join(chats, name)
        try:
            dated.append((os.stat(path).st_mtime, path))
        except OSError:
            continue
    for _, path in sorted(dated, reverse=True):
        document = _json_file(path) if path.endswith(".json") else next(_records(path, limit=1), None)
        session_id = document.get("sessionId") if isinstance(document, dict) else None
        if isinstance(session_id, str) and session_id:
            return EngineSession(session_id, path)
    return None


# --- the last subject ----------------------------------------------------------------------------------


def last_subject(kind: str, transcript_path: str) -> str | None:
    """The first prompt of a session, on one line, at most 80 characters: what the resume dialog shows next
    to the agent's name. A task IdeA delivered shows as its task, without the header. `kind`: "claude",
    "codex" or "gemini"."""
    if kind == "gemini":
        document = _json_file(transcript_path)
        messages = document.get("messages") if isinstance(document, dict) else None
        prompts = (
            _text(m.get("content")) for m in (messages or []) if isinstance(m, dict) and m.get("type") == "user"
        )
    elif kind == "codex":
        prompts = (codex_prompt(record) for record in _records(transcript_path))
    else:
        prompts = (_claude_prompt(record) for record in _records(transcript_path))
    for prompt in prompts:
        subject = _subject(prompt)
        if subject:
            return subject
    return None


def _claude_prompt(record: dict[str, Any]) -> str | None:
    if record.get("type") != "user" or record.get("isMeta") or record.get("isSidechain"):
        return None
    message = record.get("message")
    return _text(message.get("content")) if isinstance(message, dict) else None


def codex_prompt(record: dict[str, Any]) -> str | None:
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return None
    if record.get("type") == "event_msg" and payload.get("type") == "user_message":
        return _text(payload.get("message"))
    if payload.get("type") == "message" and payload.get("role") == "user":
        text = _text(payload.get("content"))
        return None if text is None or text.lstrip().startswith("<") else text  # environment, instructions
    return None


def _subject(prompt: str | None) -> str | None:
    if not prompt:
        return None
    text = prompt.strip()
    if text.startswith("<") or text.startswith("Caveat:"):
        return None  # command output and caveats Claude records as user turns
    if is_idea_delivery(text):
        text = text.split("]", 1)[1] if "]" in text else text
        text = text.split("\n\nIdeA:", 1)[0]
    flat = " ".join(text.split())
    if not flat:
        return None
    return flat if len(flat) <= SUBJECT_MAX_CHARS else flat[: SUBJECT_MAX_CHARS - 1] + "…"


# --- usage-limit records (level 1) ---------------------------------------------------------------------

CLAUDE_LIMIT_MARK = "usage limit reached|"
# What Claude Code's API error messages say when a usage limit stops it: "5-hour limit reached ∙ resets 3pm"
# (earlier versions), "You've hit your session limit · resets 3pm (Europe/Paris)", "You're out of usage
# credits · resets Dec 8, 3pm (Europe/Paris)" (2.1). Each part after " · " is a separate clause. Codex's
# failed turns say "You’ve hit your usage limit. … try again at 8:58 PM." (or "… try again later.").
CLAUDE_LIMIT_WORDS = ("limit reached", "you've hit your", "you're out of usage credits", "is out of usage")
_RESET_MARKERS = ("resets at ", "resets ", "reset at ", "try again at ")
_CLAUSE_BREAKS = (" · ", " ∙ ")
# The transcript lines worth parsing for a limit: the old mark, or an API error record.
CLAUDE_LIMIT_LINES = (CLAUDE_LIMIT_MARK.encode(), b'"isApiErrorMessage"')


@dataclass(frozen=True)
class LimitRecord:
    resets_at_text: str | None  # what to give to parse_reset_time; None: no time in the record
    text: str


def claude_limit_in_record(record: dict[str, Any]) -> LimitRecord | None:
    """A limit record of Claude Code's transcript: an assistant message `Claude AI usage limit
    reached|<epoch seconds>` (some versions), or an API error message that says a limit was reached, with the
    reset time it gives, if any."""
    if record.get("type") != "assistant":
        return None
    message = record.get("message")
    text = _text(message.get("content")) if isinstance(message, dict) else None
    if not text:
        return None
    if CLAUDE_LIMIT_MARK in text:
        words = text.split(CLAUDE_LIMIT_MARK, 1)[1].split()
        stamp = words[0] if words else ""
        return LimitRecord(stamp if stamp.isdigit() else None, text)
    return limit_in_api_error(text) if record.get("isApiErrorMessage") else None


def limit_in_api_error(text: str) -> LimitRecord | None:
    """The usage limit an API error message tells of (a Claude transcript record's text, the
    `last_assistant_message` of Claude's `StopFailure` hook, the error of a Codex rollout's failed turn), None
    when it tells of another error."""
    lowered = text.lower().replace("’", "'")
    if not any(words in lowered for words in CLAUDE_LIMIT_WORDS):
        return None
    for marker in _RESET_MARKERS:
        if marker in lowered:
            start = lowered.index(marker) + len(marker)
            return LimitRecord(_first_clause(text[start:]).strip().rstrip("."), text)
    return LimitRecord(None, text)


def _first_clause(text: str) -> str:
    for separator in _CLAUSE_BREAKS:
        text = text.split(separator, 1)[0]
    return text


class TranscriptTail:
    """Records appended to a JSONL transcript since the last read: a limit check costs only the new bytes."""

    def __init__(self, path: str, from_end: bool = True) -> None:
        self.path = path
        self._offset = _size(path) if from_end else 0
        self._partial = b""

    def new_records(self, must_contain: tuple[bytes, ...] | None = None) -> list[dict[str, Any]]:
        """The complete records appended since the last call; with `must_contain`, only the lines holding one
        of those byte strings are parsed (a turn can append megabytes of tool output)."""
        size = _size(self.path)
        if size < self._offset:  # rewritten or rotated: start over
            self._offset, self._partial = 0, b""
        if size == self._offset:
            return []
        try:
            with open(self.path, "rb") as file:
                file.seek(self._offset)
                data = file.read(size - self._offset)
        except OSError:
            return []
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        if must_contain is not None:
            lines = [line for line in lines if any(marks in line for marks in must_contain)]
        return [record for line in lines if (record := _record(line)) is not None]


# --- helpers -------------------------------------------------------------------------------------------


def _records(path: str, limit: int | None = None) -> Iterator[dict[str, Any]]:
    try:
        with open(path, "rb") as file:
            head = file.read(HEAD_BYTES)
    except OSError:
        return
    count = 0
    for line in head.split(b"\n"):
        record = _record(line)
        if record is None:
            continue
        yield record
        count += 1
        if limit is not None and count >= limit:
            return


def _record(line: bytes) -> dict[str, Any] | None:
    line = line.strip()
    if not line:
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _json_file(path: str) -> Any:
    try:
        with open(path, "rb") as file:
            return json.loads(file.read(16 * 1024 * 1024))
    except (OSError, ValueError):
        return None


def _text(content: Any) -> str | None:
    """Message content as text: a string, or the text parts of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block.get("text")
            for block in content
            if isinstance(block, dict)
            and block.get("type") in ("text", "input_text")
            and isinstance(block.get("text"), str)
        ]
        return "\n".join(parts) if parts else None
    return None


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


class LocalSessionInspector:
    """`SessionInspector` on the CLIs' session files: Claude's transcript of the session, Codex's rollout
    in the agent's own CODEX_HOME, Gemini's chat."""

    def __init__(self, home: str | None = None) -> None:
        self._home = home

    def subject(self, profile: Profile, run_dir: str, engine_session_id: str) -> str | None:
        home = self._home if self._home is not None else os.path.expanduser("~")
        kind = profile.provider_key
        if kind == "claude":
            path = os.path.join(home, ".claude", "projects", encode_cwd(run_dir), f"{engine_session_id}.jsonl")
            return last_subject("claude", path) if os.path.isfile(path) else None
        if kind == "codex":
            path = rollout_of(codex_rollouts(os.path.join(run_dir, CODEX_HOME_DIR)), engine_session_id)
            return last_subject("codex", path) if path is not None else None
        if kind == "gemini":
            session = latest_gemini_session(home, run_dir)
            if session is not None and session.engine_session_id == engine_session_id and session.transcript_path:
                return last_subject("gemini", session.transcript_path)
        return None
