"""A turn the agent's CLI ended on an error of its model's API, and what that error asks of IdeA.

Claude Code says so with its `StopFailure` hook (`error`: "rate_limit", "overloaded", "authentication_failed",
"server_error", …); Codex only in its rollout (the turn's `task_complete` record carries an `error`), where
IdeA reads it into the same words. A usage limit arms the resume; a failed sign-in asks the person to sign in,
since the next turn would fail the same way; any failure ends the turn, and an asker left without a reply is
told which error ended it.
"""

from __future__ import annotations

from dataclasses import dataclass

RATE_LIMIT = "rate_limit"
SIGN_IN_FAILURES = frozenset({"authentication_failed", "oauth_org_not_allowed"})


@dataclass(frozen=True)
class FailedTurn:
    error: str  # the failure's name, in Claude's `StopFailure` words where one fits ("unknown" when none given)
    message: str | None  # what the CLI said about it, as it showed it to the person
    prompt: str = ""  # the failed turn's prompt, when the CLI's records give it ("" otherwise)

    @property
    def usage_limit(self) -> bool:
        return self.error == RATE_LIMIT

    @property
    def needs_sign_in(self) -> bool:
        return self.error in SIGN_IN_FAILURES
