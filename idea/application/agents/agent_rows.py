"""What the Agents panel shows for each agent, computed from the snapshots the GUI holds.

One row per manifest entry, in manifest order: the name, whether it orchestrates, its profile, the state of
its latest session, where that session is shown, how its persona stands against its template, whether its
context changed since it started (`launch_context.py`), and what the orchestration core says about it (busy or
idle, its queue, its live-state, its bridge, late replies, a call for the person's attention).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from idea.application.agents.agent_activity import (
    IDLE_STATUS,
    NOTHING_KNOWN,
    AgentActivity,
    LimitState,
    clock_text,
    elapsed_text,
)
from idea.application.agents.launch_context import CONTEXT_CHANGED, ContextChange
from idea.application.agents.profile_descriptions import delegation_label
from idea.application.agents.templates import TemplateLink, TemplateStatus
from idea.application.sign_in import SignInCheck
from idea.domain import layout as lay
from idea.domain.agent import AgentEntry, AgentManifest, Worktree
from idea.domain.agent_states.attention import AttentionReason, attention_title
from idea.domain.agent_states.session_limit import format_countdown
from idea.domain.ids import AgentId, NodeId, SessionId
from idea.domain.profile_book import ProfileBook
from idea.domain.session import SessionInfo, SessionState

NO_PLACE = "—"
BACKGROUND = "background"
WAITING_FOR_YOU = "waiting for you"  # the note of an agent that needs the person


class AgentState(StrEnum):
    STOPPED = "stopped"
    STARTING = "starting"
    RUNNING = "running"
    EXITED = "exited"
    FAILED = "failed"


TEMPLATE_TEXT = {
    TemplateLink.UPDATE_AVAILABLE: "update available",
    TemplateLink.LOCAL_EDITS: "local edits",
    TemplateLink.TEMPLATE_DELETED: "template deleted",
}


@dataclass(frozen=True)
class AgentRow:
    agent_id: AgentId
    name: str
    is_orchestrator: bool
    profile_id: str
    profile_name: str
    profile_missing: bool
    delegation: str  # profile_descriptions.delegation_label, "" when the profile is missing
    state: AgentState
    state_text: str  # "running", "exited with code 1", "failed: reason"
    exit_code: int | None
    session_id: SessionId | None  # the latest session, live or ended
    node_id: NodeId | None  # the cell of the active layout showing that session
    cell_number: int | None  # 1-based, in reading order
    template: TemplateStatus
    started_at_ms: int | None  # of the latest session
    uses_bridge: bool  # its CLI reaches IdeA over the MCP bridge
    activity: AgentActivity
    worktree: Worktree | None = None  # it runs in its own worktree (spec 07 §2)
    context_change: ContextChange | None = None  # of its running session: "context changed — restart to apply"
    sign_in: SignInCheck | None = None  # its CLI has no credentials (spec 02 §13.3): "Codex not signed in"

    @property
    def is_live(self) -> bool:
        return self.state in (AgentState.STARTING, AgentState.RUNNING)

    @property
    def in_background(self) -> bool:
        return self.is_live and self.node_id is None

    @property
    def in_cell(self) -> bool:
        return self.is_live and self.node_id is not None

    @property
    def place_text(self) -> str:
        if self.cell_number is not None:
            return f"cell {self.cell_number}"
        return BACKGROUND if self.is_live else NO_PLACE

    @property
    def template_text(self) -> str:
        return TEMPLATE_TEXT.get(self.template.link, "")

    @property
    def has_template_update(self) -> bool:
        return self.template.link in (TemplateLink.UPDATE_AVAILABLE, TemplateLink.LOCAL_EDITS)

    @property
    def ended_badly(self) -> bool:
        """Failed to start, or exited with a non-zero code or a signal."""
        return self.state is AgentState.FAILED or (self.state is AgentState.EXITED and self.exit_code not in (0, None))

    @property
    def is_busy(self) -> bool:
        return self.activity.busy is not None

    @property
    def queue_depth(self) -> int:
        return self.activity.queue_depth

    @property
    def bridge_text(self) -> str:
        if not (self.uses_bridge and self.is_live):
            return ""
        return "bridge connected" if self.activity.bridge_connected else "bridge not connected"

    @property
    def work_text(self) -> str:
        """What a running agent is doing, from its live-state row: "working: review of the storage ports"."""
        work = self.activity.work
        if not self.is_live or work is None or (work.status == IDLE_STATUS and not work.intent):
            return ""
        return work.text

    @property
    def attention_phrase(self) -> str:
        """What the agent waits for, after its name: "asks whether you trust its folder", "needs you to sign
        in"; empty when it needs nobody."""
        if not (self.is_live and self.activity.attention):
            return ""
        try:
            return attention_title(self.name, AttentionReason(self.activity.attention)).removeprefix(f"{self.name} ")
        except ValueError:
            return f"needs you: {self.activity.attention}"

    @property
    def attention_text(self) -> str:
        """The row's mark: "needs you: asks whether you trust its folder", "needs you to sign in"."""
        phrase = self.attention_phrase
        return phrase if not phrase or phrase.startswith("needs you") else f"needs you: {phrase}"

    def limit_text(self, now_ms: int, format_time: Callable[[int], str]) -> str:
        """ "limited until 15:00 · resumes in 12 min", "limited until 15:00 — automatic resume cancelled",
        "usage limit (reset time unknown)"; empty when the agent is not limited."""
        limit = self.activity.limit
        return describe_limit(limit, now_ms, format_time) if limit is not None else ""

    @property
    def stalled_text(self) -> str:
        return "no sign of work for a while" if self.is_live and self.activity.stalled else ""

    @property
    def context_text(self) -> str:
        """The row's mark when the running agent's context changed since it started; empty otherwise."""
        return CONTEXT_CHANGED if self.context_change is not None and self.is_live else ""

    @property
    def context_change_text(self) -> str:
        """What changed, for the tooltip: "Persona changed since it started — restart to apply"."""
        return self.context_change.describe() if self.context_text and self.context_change else ""

    @property
    def sign_in_text(self) -> str:
        """The row's mark when its CLI has no credentials; empty otherwise."""
        return f"{self.sign_in.cli} not signed in" if self.sign_in is not None else ""

    @property
    def can_sign_in(self) -> bool:
        """IdeA can run its CLI's sign-in in a cell."""
        return self.sign_in is not None and self.sign_in.login is not None

    @property
    def late_reply_text(self) -> str:
        count = self.activity.late_replies
        if count == 0:
            return ""
        return "late reply" if count == 1 else f"{count} late replies"

    def note(self, now_ms: int) -> str:
        """Beside the name: busy or idle and for how long for a running agent (waiting for the person when it
        needs them: it is neither), else its state; then the depth of its queue."""
        if self.attention_text:
            text = WAITING_FOR_YOU
        elif self.state is AgentState.RUNNING:
            text = f"{'busy' if self.is_busy else 'idle'} {elapsed_text(now_ms - self._since_ms())}"
        else:
            text = self.state_text
        return f"{text} · queue {self.queue_depth}" if self.queue_depth else text

    def since_text(self) -> str:
        """For the tooltip: "Busy since 14:02 with a task from you", "Idle since 13:40"."""
        if self.state is not AgentState.RUNNING:
            return ""
        busy = self.activity.busy
        if busy is None:
            return f"Idle since {clock_text(self._since_ms())}"
        head = self.activity.ticket(busy.ticket)
        task = f" with a task from {head.requester_label}" if head is not None else ""
        return f"Busy since {clock_text(busy.since_ms)}{task}"

    def _since_ms(self) -> int:
        busy = self.activity.busy
        if busy is not None:
            return busy.since_ms
        return max(self.activity.idle_since_ms or 0, self.started_at_ms or 0)

    def details(self) -> str:
        """The panel's second line: profile · its worktree's branch · place · bridge · template link (the state
        is shown beside the name)."""
        parts = [self.profile_name]
        if self.worktree is not None:
            parts.append(f"⎇ {self.worktree.branch}")
        if self.is_live or self.cell_number is not None:
            parts.append(self.place_text)
        if self.bridge_text:
            parts.append(self.bridge_text)
        if self.template_text:
            parts.append(self.template_text)
        return " · ".join(parts)


def build_rows(
    manifest: AgentManifest,
    sessions: Iterable[SessionInfo],
    active_root: lay.Node,
    profiles: ProfileBook,
    templates: Mapping[AgentId, TemplateStatus],
    activities: Mapping[AgentId, AgentActivity],
    context_changes: Mapping[AgentId, ContextChange] | None = None,
    signed_out: Mapping[AgentId, SignInCheck] | None = None,
) -> list[AgentRow]:
    latest = latest_sessions(sessions)
    cell_order = {leaf.id: number for number, leaf in enumerate(lay.leaves(active_root), start=1)}
    orchestrator = manifest.effective_orchestrator()
    rows = []
    for agent in manifest.agents:
        session = latest.get(agent.agent_id)
        leaf = lay.leaf_showing_session(active_root, session.id) if session is not None else None
        rows.append(
            _row(
                agent,
                session,
                leaf.id if leaf else None,
                cell_order.get(leaf.id) if leaf else None,
                is_orchestrator=orchestrator is not None and orchestrator.agent_id == agent.agent_id,
                profiles=profiles,
                template=templates.get(agent.agent_id, TemplateStatus(TemplateLink.NONE)),
                activity=activities.get(agent.agent_id, NOTHING_KNOWN),
                context_change=(context_changes or {}).get(agent.agent_id),
                sign_in=(signed_out or {}).get(agent.agent_id),
            )
        )
    return rows


def latest_sessions(sessions: Iterable[SessionInfo]) -> dict[AgentId, SessionInfo]:
    """Each agent's live session, else its most recently started ended one."""
    latest: dict[AgentId, SessionInfo] = {}
    for info in sessions:
        if info.agent_id is None:
            continue
        known = latest.get(info.agent_id)
        if known is None or _rank(info) > _rank(known):
            latest[info.agent_id] = info
    return latest


def _rank(info: SessionInfo) -> tuple[bool, int]:
    return (info.is_live, info.started_at_ms)


def describe_state(session: SessionInfo | None) -> tuple[AgentState, str]:
    if session is None:
        return AgentState.STOPPED, "stopped"
    match session.state:
        case SessionState.STARTING:
            return AgentState.STARTING, "starting"
        case SessionState.RUNNING:
            return AgentState.RUNNING, "running"
        case SessionState.FAILED:
            return AgentState.FAILED, f"failed: {session.error or 'could not start'}"
    if session.exit_code is None:
        return AgentState.EXITED, "exited"
    if session.exit_code < 0:
        return AgentState.EXITED, f"killed by signal {-session.exit_code}"
    return AgentState.EXITED, f"exited with code {session.exit_code}"


def _row(
    agent: AgentEntry,
    session: SessionInfo | None,
    node_id: NodeId | None,
    cell_number: int | None,
    *,
    is_orchestrator: bool,
    profiles: ProfileBook,
    template: TemplateStatus,
    activity: AgentActivity,
    context_change: ContextChange | None,
    sign_in: SignInCheck | None,
) -> AgentRow:
    state, state_text = describe_state(session)
    if context_change is not None and (session is None or session.id != context_change.session_id):
        context_change = None  # about an earlier run: the relaunch gave the agent its current context
    profile = profiles.by_id(agent.profile_id)
    return AgentRow(
        agent_id=agent.agent_id,
        name=agent.name,
        is_orchestrator=is_orchestrator,
        profile_id=agent.profile_id,
        profile_name=profile.name if profile is not None else "missing profile",
        profile_missing=profile is None,
        delegation=delegation_label(profile) if profile is not None else "",
        state=state,
        state_text=state_text,
        exit_code=session.exit_code if session is not None else None,
        session_id=session.id if session is not None else None,
        node_id=node_id,
        cell_number=cell_number,
        template=template,
        started_at_ms=session.started_at_ms if session is not None else None,
        uses_bridge=profile is not None and profile.materializes_idea_bridge(),
        activity=activity,
        worktree=agent.worktree,
        context_change=context_change,
        sign_in=sign_in,
    )


def describe_limit(limit: LimitState, now_ms: int, format_time: Callable[[int], str]) -> str:
    if limit.resets_at_ms is not None:
        text = f"limited until {format_time(limit.resets_at_ms)}"
    else:
        text = "usage limit (reset time unknown)"
    if limit.fire_at_ms is not None:
        return f"{text} · resumes in {format_countdown(max(0, limit.fire_at_ms - now_ms))}"
    if limit.cancelled:
        return f"{text} — automatic resume cancelled"
    return text
