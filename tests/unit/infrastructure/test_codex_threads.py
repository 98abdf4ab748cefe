"""Which Codex `notify` events tell of the agent's own turns: a thread with no rollout in the agent's
CODEX_HOME is one Codex started by itself (the title of a new session, checked with Codex 0.171)."""

from __future__ import annotations

from pathlib import Path

from idea.infrastructure.hooks.codex_threads import CodexSideThreads

AGENT = "5a1e3b0c-1d2e-4f50-8a9b-0c1d2e3f4a5b"
SESSION = "01a2429a-ec2d-7833-aaab-96f50414db41"
TITLE = "01a2429b-040b-7cc1-aaff-76a7bb09bba1"


def notify(thread: object) -> dict[str, object]:
    return {"type": "agent-turn-complete", "thread-id": thread, "input-messages": ["Generate a concise … title"]}


def with_rollout(root: Path, session: str = SESSION) -> Path:
    folder = root / ".ideai" / "run" / AGENT / ".codex" / "sessions" / "2026" / "12" / "04"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"rollout-2026-12-04T19-49-39-{session}.jsonl").write_text("{}\n")
    return folder


def test_a_thread_without_a_rollout_beside_the_session_is_not_the_agent(tmp_path: Path) -> None:
    with_rollout(tmp_path)
    threads = CodexSideThreads(str(tmp_path))
    reason = threads.ignored(AGENT, "codex", notify(TITLE))
    assert reason is not None and TITLE in reason and "no rollout" in reason
    assert threads.ignored(AGENT, "codex", notify(SESSION)) is None


def test_without_any_rollout_or_a_thread_id_nothing_is_dropped(tmp_path: Path) -> None:
    threads = CodexSideThreads(str(tmp_path))
    assert threads.ignored(AGENT, "codex", notify(TITLE)) is None  # nothing to tell by
    with_rollout(tmp_path)
    assert threads.ignored(AGENT, "codex", notify(None)) is None
    assert threads.ignored(AGENT, "codex", notify("not-a-uuid")) is None
    assert threads.ignored(AGENT, "codex", {"type": "agent-turn-complete"}) is None
    assert threads.ignored(AGENT, "claude", notify(TITLE)) is None  # Claude's events are never judged here


def test_a_resumed_session_of_an_earlier_day_is_the_agent(tmp_path: Path) -> None:
    older = "01a10000-0000-7000-8000-000000000000"
    folder = with_rollout(tmp_path, older)
    (folder.parent / "03").mkdir()
    assert CodexSideThreads(str(tmp_path)).ignored(AGENT, "codex", notify(older)) is None
