"""Every duration the orchestration core waits for, in one place, with the spec defaults (03 §9.5).

Built from the environment so integration tests (and a user diagnosing a problem) can shorten them; an
override is a positive integer of milliseconds, anything else is ignored. Nothing here is ever infinite.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from idea.domain.mcp_wiring import rendezvous_tool_timeout_ms
from idea.domain.orchestration import rules

WINDOW_ENV = "IDEA_ASK_RENDEZVOUS_TIMEOUT_MS"
CEILING_ENV = "IDEA_ASK_RENDEZVOUS_CEILING_MS"
NO_REPLY_GRACE_ENV = "IDEA_NO_REPLY_GRACE_MS"
SUBMIT_VERIFY_ENV = "IDEA_SUBMIT_VERIFY_MS"
OVERLAY_FLOOR_ENV = "IDEA_OVERLAY_FLOOR_MS"
COLD_START_SETTLE_ENV = "IDEA_COLD_START_SETTLE_MS"
NO_REPLY_QUIET_ENV = "IDEA_NO_REPLY_QUIET_MS"
KEYSTROKE_QUIET_ENV = "IDEA_KEYSTROKE_QUIET_MS"
ATTENTION_NOTICE_ENV = "IDEA_ATTENTION_NOTICE_MS"
ATTENTION_NOTICE_MS = 10_000  # a dialog still unanswered this long ends the asks waiting on its agent

@dataclass(frozen=True)
class OrchestratorTimings:
    window_ms: int = rules.DEFAULT_RENDEZVOUS_WINDOW_MS  # inactivity window W (per target: turnTimeoutMs)
    ceiling_ms: int = rules.DEFAULT_RENDEZVOUS_CEILING_MS  # absolute ceiling C
    no_reply_grace_ms: int = rules.NO_REPLY_GRACE_MS
    no_reply_quiet_ms: int = rules.NO_REPLY_QUIET_MS  # quiet heuristic, profiles without a turn-end hook
    submit_verify_ms: int = rules.SUBMIT_VERIFY_MS
    overlay_floor_ms: int = rules.OVERLAY_FLOOR_MS
    cold_start_settle_ms: int = rules.COLD_START_SETTLE_MS
    keystroke_quiet_ms: int = rules.KEYSTROKE_QUIET_MS
    human_line_banner_after_ms: int = rules.HUMAN_LINE_BANNER_AFTER_MS
    chunk_pause_ms: int = rules.CHUNK_PAUSE_MS
    native_prompt_after_delivery_ms: int = rules.NATIVE_PROMPT_AFTER_DELIVERY_MS
    declared_intent_fresh_ms: int = rules.DECLARED_INTENT_FRESH_MS
    poll_ms: int = 100  # how often a waiting delivery re-checks its boundary
    attention_notice_ms: int = ATTENTION_NOTICE_MS

    @staticmethod
    def from_env(env: Mapping[str, str]) -> OrchestratorTimings:
        defaults = OrchestratorTimings()

        def pick(name: str, default: int) -> int:
            override = rules.parse_override_ms(env.get(name))
            return override if override is not None else default

        return OrchestratorTimings(
            window_ms=pick(WINDOW_ENV, defaults.window_ms),
            ceiling_ms=pick(CEILING_ENV, defaults.ceiling_ms),
            no_reply_grace_ms=pick(NO_REPLY_GRACE_ENV, defaults.no_reply_grace_ms),
            no_reply_quiet_ms=pick(NO_REPLY_QUIET_ENV, defaults.no_reply_quiet_ms),
            submit_verify_ms=pick(SUBMIT_VERIFY_ENV, defaults.submit_verify_ms),
            overlay_floor_ms=pick(OVERLAY_FLOOR_ENV, defaults.overlay_floor_ms),
            cold_start_settle_ms=pick(COLD_START_SETTLE_ENV, defaults.cold_start_settle_ms),
            keystroke_quiet_ms=pick(KEYSTROKE_QUIET_ENV, defaults.keystroke_quiet_ms),
            attention_notice_ms=pick(ATTENTION_NOTICE_ENV, defaults.attention_notice_ms),
        )

    def mcp_safety_net_ms(self) -> int:
        """The MCP adapter's outer bound on one idea_ask_agent call: longer than any rendezvous."""
        return rendezvous_tool_timeout_ms(self.window_ms, self.ceiling_ms)
