"""`CodexFailedTurns`: the turns a Codex agent ended on an error, read from its rollouts.

When an API error ends a turn (a usage limit, a refused key, an unknown model), Codex 0.171 shows the error
in its TUI and writes the turn's `task_complete` record with an `error` (`message`, `codex_error_info`) to
its rollout, but runs neither its `notify` program nor a `Stop` hook (checked against a local server
answering 400, 401 and 429): the rollout is the only record of it. The `codex_error_info` is a name
("usage_limit_exceeded", "model_not_found", …) or one named object (`{"http_connection_failed":
{"http_status_code": 401}}`); IdeA reads it into `StopFailure`'s words where one fits.

Only what was appended since the agent started is read (records before are history), a few lines of each
read at most: the prompts of the turns and their ends.
"""

from __future__ import annotations

from typing import Any

from idea.domain.agent_states.turn_failure import RATE_LIMIT, FailedTurn
from idea.infrastructure.inspect.engine_sessions import TranscriptTail, codex_prompt, codex_rollouts

# The lines worth parsing: a turn's end, and the prompts that say whose turn it was.
_TURN_LINES = (b'"task_complete"', b'"user"', b'"user_message"')
_ERROR_NAMES = {"usage_limit_exceeded": RATE_LIMIT, "unauthorized": "authentication_failed"}
_SIGN_IN_STATUSES = (401, 403)


class CodexFailedTurns:
    def __init__(self, codex_home: str) -> None:
        """From now on: the rollouts already under `codex_home` are read from their current ends, those that
        appear later from their start."""
        self._home = codex_home
        self._tails = {path: TranscriptTail(path) for path in codex_rollouts(codex_home)}
        self._prompts: dict[str, str] = {}  # the last prompt seen in each rollout

    def new_failures(self) -> list[FailedTurn]:
        failures: list[FailedTurn] = []
        for path in codex_rollouts(self._home):
            tail = self._tails.get(path)
            if tail is None:
                tail = self._tails[path] = TranscriptTail(path, from_end=False)
            for record in tail.new_records(must_contain=_TURN_LINES):
                prompt = codex_prompt(record)
                if prompt is not None:
                    self._prompts[path] = prompt
                    continue
                failed = _failed_turn(record, self._prompts.get(path, ""))
                if failed is not None:
                    failures.append(failed)
        return failures


def _failed_turn(record: dict[str, Any], prompt: str) -> FailedTurn | None:
    payload = record.get("payload")
    if record.get("type") != "event_msg" or not isinstance(payload, dict) or payload.get("type") != "task_complete":
        return None
    error = payload.get("error")
    if not isinstance(error, dict):
        return None  # a turn that ended well: Codex's `notify` tells of it
    message = error.get("message")
    return FailedTurn(error_name(error.get("codex_error_info")), message if isinstance(message, str) else None, prompt)


def error_name(info: object) -> str:
    """`codex_error_info` in `StopFailure`'s words where one fits: a usage limit is "rate_limit", a refused
    sign-in "authentication_failed"; another error keeps Codex's name (with its HTTP status, if any)."""
    if isinstance(info, str) and info:
        return _ERROR_NAMES.get(info, info)
    if isinstance(info, dict) and len(info) == 1:
        [(name, details)] = info.items()
        status = details.get("http_status_code") if isinstance(details, dict) else None
        if status in _SIGN_IN_STATUSES:
            return "authentication_failed"
        if isinstance(status, int):
            return f"{name} {status}"
        return _ERROR_NAMES.get(name, name)
    return "unknown"
