"""The human net's toasts (spec 05 §10): which open nets the window shows as non-modal toasts, what each
says and pre-fills, and how a toast the person closes stays closed for that raising only."""

from __future__ import annotations

from idea.application.agents.agent_activity import ActivityBook
from idea.application.agents.agent_rows import AgentRow, AgentState
from idea.application.agents.net_toasts import DEFAULT_NET_DELAY_MS, MAX_SHOWN, NetToasts
from idea.application.agents.templates import TemplateLink, TemplateStatus
from idea.domain.agent_states.events import (
    AgentLimitDismissed,
    AgentRateLimited,
    AgentRateLimitSuspected,
    AgentResumeScheduled,
    SuspicionReason,
)

NOW = 1_781_000_000_000


def row(book: ActivityBook, agent: str, *, live: bool = True, node: str | None = "leaf-1") -> AgentRow:
    return AgentRow(
        agent_id=agent, name=agent.title(), is_orchestrator=False, profile_id="p", profile_name="P",
        profile_missing=False, delegation="", state=AgentState.RUNNING if live else AgentState.EXITED,
        state_text="running" if live else "exited", exit_code=None, session_id="s-" + agent, node_id=node,
        cell_number=1 if node else None, template=TemplateStatus(TemplateLink.NONE), started_at_ms=NOW,
        uses_bridge=True, activity=book.of(agent),
    )


def suspect(book: ActivityBook, agent: str, at: int, resets: int | None = None,
            reason: SuspicionReason = SuspicionReason.NO_RESET_TIME) -> None:
    book.apply(AgentRateLimited(agent, resets), at)
    book.apply(AgentRateLimitSuspected(agent, resets, reason), at)


def test_an_open_net_of_a_live_agent_is_a_toast_with_its_reason_and_a_time_to_resume() -> None:
    book, toasts = ActivityBook(), NetToasts()
    suspect(book, "architect", NOW)
    shown = toasts.shown([row(book, "architect", node=None)], NOW + 5)
    (toast,) = shown.toasts
    assert toast.text == "Architect seems blocked by a usage limit, but IdeA could not read when it resets."
    assert toast.prefill_ms == NOW + DEFAULT_NET_DELAY_MS and toast.in_background
    assert toast.answers == ("Not a limit — dismiss", "Interrupt agent")
    assert shown.more == 0


def test_a_suspicious_reset_is_prefilled_and_a_stall_says_so() -> None:
    book, toasts = ActivityBook(), NetToasts()
    far = NOW + 9 * 24 * 3_600_000
    suspect(book, "architect", NOW, far, SuspicionReason.IMPLAUSIBLE_RESET)
    book.apply(AgentRateLimitSuspected("qa", None, SuspicionReason.STALLED), NOW + 1)
    shown = toasts.shown([row(book, "architect"), row(book, "qa")], NOW + 2)
    qa, architect = shown.toasts  # the most recent first
    assert architect.prefill_ms == far and "looks wrong" in architect.text
    assert qa.answers == ("Keep waiting", "Interrupt agent") and qa.text == "Qa has shown no activity for several minutes while working on a task."


def test_no_toast_for_an_agent_that_no_longer_runs_or_whose_net_was_answered() -> None:
    book, toasts = ActivityBook(), NetToasts()
    suspect(book, "architect", NOW)
    suspect(book, "qa", NOW)
    assert toasts.shown([row(book, "architect", live=False), row(book, "qa")], NOW).toasts[0].agent_id == "qa"
    book.apply(AgentResumeScheduled("qa", NOW + 60_000), NOW)  # "Resume at this time", from any view
    assert toasts.shown([row(book, "qa")], NOW).toasts == ()
    suspect(book, "qa", NOW + 1)
    book.apply(AgentLimitDismissed("qa"), NOW + 2)  # "Not a limit — dismiss"
    assert toasts.shown([row(book, "qa")], NOW).toasts == ()
    assert book.of("qa").limit is None and book.of("qa").human_net is None


def test_a_failed_resume_is_shown_even_for_an_agent_that_does_not_run_and_offers_to_try_now() -> None:
    book, toasts = ActivityBook(), NetToasts()
    book.apply(AgentRateLimitSuspected("qa", None, SuspicionReason.RESUME_FAILED, "Codex is not signed in"), NOW)
    (toast,) = toasts.shown([row(book, "qa", live=False)], NOW + 1).toasts
    assert toast.text == "IdeA could not resume Qa after its usage limit: Codex is not signed in"
    assert toast.prefill_ms == NOW and toast.answers == ("Dismiss",)
    assert toasts.shown([row(book, "architect", live=False)], NOW).toasts == ()


def test_a_closed_toast_stays_closed_until_the_net_is_raised_again() -> None:
    book, toasts = ActivityBook(), NetToasts()
    suspect(book, "architect", NOW)
    (toast,) = toasts.shown([row(book, "architect")], NOW).toasts
    toasts.close(toast)
    shown = toasts.shown([row(book, "architect")], NOW + 1_000)
    assert shown.toasts == () and shown.more == 0  # still open under Needs you, not in the corner
    suspect(book, "architect", NOW + 2_000)
    assert [t.raised_at_ms for t in toasts.shown([row(book, "architect")], NOW + 2_000).toasts] == [NOW + 2_000]


def test_many_nets_never_pile_up_past_the_limit() -> None:
    book, toasts = ActivityBook(), NetToasts()
    agents = [f"agent{i}" for i in range(MAX_SHOWN + 2)]
    for i, agent in enumerate(agents):
        suspect(book, agent, NOW + i)
    shown = toasts.shown([row(book, agent) for agent in agents], NOW + 10)
    assert [t.agent_id for t in shown.toasts] == agents[::-1][:MAX_SHOWN]
    assert shown.more == 2
