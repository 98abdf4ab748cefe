"""Engine session ids recorded per conversation from hooks, whoever started the session, written only on change."""

from __future__ import annotations

from collections.abc import Callable

from idea.application.engine_sessions import EngineSessionRecorder
from idea.domain.providers import ProviderSessions
from tests.fakes import FakeClock, RecordingDiagnostics

FIRST = "9b2f7c1e-0d3a-4e5b-8c6d-7e8f9a0b1c2d"
AFTER_CLEAR = "01a228ba-8e6d-78e3-9bc1-15ddaff71950"


class MemoryProviders:
    def __init__(self) -> None:
        self.sessions = ProviderSessions()
        self.writes = 0

    def load(self, root: str) -> ProviderSessions:
        return self.sessions

    def save(self, root: str, sessions: ProviderSessions) -> None:
        self.sessions = sessions
        self.writes += 1

    def update(self, root: str, change: Callable[[ProviderSessions], ProviderSessions]) -> ProviderSessions:
        self.save(root, change(self.sessions))
        return self.sessions


def recorder(providers: MemoryProviders, provider: str | None = "claude") -> EngineSessionRecorder:
    return EngineSessionRecorder(
        root="/p",
        providers=providers,
        clock=FakeClock(),
        diagnostics=RecordingDiagnostics(),
        conversation_of=lambda agent: {"a": "conv-a"}.get(agent),
        provider_of=lambda agent: provider,
    )


def test_claude_hooks_record_the_session_once_and_its_replacement_after_clear() -> None:
    providers = MemoryProviders()
    sessions = recorder(providers)
    for event in ("SessionStart", "UserPromptSubmit", "Stop"):
        sessions.hook_event("a", "claude", {"session_id": FIRST, "transcript_path": "/t/1.jsonl", "e": event})
    assert providers.writes == 1
    assert providers.sessions.engine_session_for("conv-a", "claude") == FIRST
    sessions.hook_event("a", "claude", {"session_id": AFTER_CLEAR, "source": "clear"})
    assert providers.sessions.engine_session_for("conv-a", "claude") == AFTER_CLEAR
    assert providers.writes == 2
    assert sessions.transcripts["a"] == "/t/1.jsonl"


def test_codex_session_started_by_the_cli_itself_is_learned_from_notify() -> None:
    providers = MemoryProviders()
    recorder(providers, "codex").hook_event("a", "codex", {"type": "agent-turn-complete", "thread-id": FIRST})
    assert providers.sessions.engine_session_for("conv-a", "codex") == FIRST


def test_an_id_already_stored_is_not_rewritten_and_unknown_agents_record_nothing() -> None:
    providers = MemoryProviders()
    providers.sessions = providers.sessions.with_entry("conv-a", "claude", FIRST, 1)
    sessions = recorder(providers)
    sessions.hook_event("a", "claude", {"session_id": FIRST})
    sessions.hook_event("stranger", "claude", {"session_id": AFTER_CLEAR})
    sessions.hook_event("a", "claude", {"session_id": "garbage"})
    assert providers.writes == 0
    assert recorder(providers, provider=None).record("a", AFTER_CLEAR) is False
