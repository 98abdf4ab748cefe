"""The work panel's read model on real files (spec 04 §15; KN-13) and the surface rule: no text of a
transcript reaches an agent's context file except through the bounded handoff (spec 04 §1; KN-14)."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idea.application.agents.convention_file import ComposeInputs, MemoryPointer, SkillBrief, compose_convention_file
from idea.domain.events import OrchestrationNews
from idea.domain.ids import conversation_for_pair
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.handoff import HANDOFF_SUMMARY_MAX_CHARS, turn_line
from idea.domain.knowledge.work_state import AgentWork, LiveSession, NoticeLevel, RateLimit, WorkNotice
from idea.domain.orchestration.events import (
    AgentAttention,
    AgentQueueSnapshot,
    BusyState,
    DelegationDelivered,
    LateReplyView,
    QueuedTicketView,
    RendezvousEnded,
)
from idea.domain.orchestration.tickets import AgentSource, HumanSource, TicketPhase
from idea.infrastructure.resources import ResourcePromptLibrary
from tests.knowledge_support import ARCHITECT, MAIN, QA, KnowledgeWorld

PAIR = conversation_for_pair(ARCHITECT, MAIN)
HUMAN_CONVERSATION = conversation_for_pair(QA, None)


@pytest.fixture
def world(tmp_path: Path) -> KnowledgeWorld:
    return KnowledgeWorld(tmp_path / "project", tmp_path / "user-data")


def turn(conversation: str, index: int, text: str, role: TurnRole = TurnRole.PROMPT) -> ConversationTurn:
    source = HumanSource() if role is TurnRole.PROMPT else AgentSource(ARCHITECT)
    return ConversationTurn(f"00000000-0000-4000-8000-{index:012d}", conversation, 1700 + index, source, role, text)


def ticket(conversation: str, position: int, task: str, status: str = "queued") -> QueuedTicketView:
    return QueuedTicketView(
        ticket_id=f"10000000-0000-4000-8000-{position:012d}",
        conversation_id=conversation,
        position=position,
        status=status,
        phase=TicketPhase.AWAITING_REPLY if status == "inProgress" else TicketPhase.QUEUED,
        source=AgentSource(MAIN) if conversation == PAIR else HumanSource(),
        requester_label="Main" if conversation == PAIR else "you",
        task_preview=" ".join(task.split())[:160],
        task_len=len(task),
        delivered=status == "inProgress",
    )


def camel_only(value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            assert "_" not in key and key[:1].islower(), key
            camel_only(item)
    elif isinstance(value, list):
        for item in value:
            camel_only(item)


async def test_kn13_work_panel_json_is_camel_case_with_nulls_and_every_status(world: KnowledgeWorld) -> None:
    record = world.knowledge.record
    long_task = "Review   the storage\nports " + "and more " * 100
    await record.append(turn(PAIR, 1, long_task))  # folded: a handoff exists -> ready
    await record.append(turn(PAIR, 9, "A long answer " * 40, TurnRole.RESPONSE))
    await world.stores.conversations.append(turn(HUMAN_CONVERSATION, 2, "hello QA"))  # no handoff -> missing
    broken = conversation_for_pair(QA, MAIN)
    await world.stores.conversations.append(turn(broken, 3, "question"))
    handoff_path = world.stores.handoffs.path(broken)
    handoff_path.write_bytes(b"\xff not text")  # unreadable handoff, readable log -> partial
    gone = conversation_for_pair(QA, ARCHITECT)
    log_dir = world.root / ".ideai" / "conversations" / gone
    (log_dir / "log.jsonl").mkdir(parents=True)  # the log cannot be read as a file
    world.stores.handoffs.path(gone).parent.mkdir(parents=True, exist_ok=True)
    (log_dir / "handoff.md").mkdir()  # nor the handoff -> unavailable

    world.team.live[ARCHITECT] = LiveSession("5b0c7f3e-2a41-4d8e-9c1b-6e7f8a9b0c1d", "s-1", "pty")
    world.team.queues = (
        AgentQueueSnapshot(
            ARCHITECT, BusyState("10000000-0000-4000-8000-000000000000", 1234),
            (ticket(PAIR, 0, long_task, "inProgress"), ticket(broken, 1, "question")),
            (LateReplyView("30000000-0000-4000-8000-000000000001", PAIR, "QA", 1234),), True,
        ),
        AgentQueueSnapshot(QA, None, (ticket(HUMAN_CONVERSATION, 0, "hello QA"), ticket(gone, 1, "x")), (), False),
    )
    world.knowledge.signals.observe(AgentAttention(QA, "permission", "Allow Bash?"))

    state = await world.knowledge.work.read()
    document = json.loads(json.dumps(state.to_json()))

    camel_only(document)
    main, architect, qa = document["agents"]
    assert [a["name"] for a in document["agents"]] == ["Main", "Architect", "QA"]  # manifest order
    assert main == {
        "agentId": MAIN, "name": "Main", "profileId": "p", "live": None, "busy": {"state": "idle"}, "tickets": [],
        "bridgeConnected": False, "liveness": None, "attention": None, "rateLimit": None, "lateReplies": 0, "notices": [],
    }
    assert architect["live"] == {"nodeId": "5b0c7f3e-2a41-4d8e-9c1b-6e7f8a9b0c1d", "sessionId": "s-1", "kind": "pty"}
    assert architect["busy"] == {"state": "busy", "ticket": "10000000-0000-4000-8000-000000000000", "sinceMs": 1234}
    assert architect["tickets"][0]["status"] == "inProgress" and architect["tickets"][0]["phase"] == "awaitingReply"
    assert architect["tickets"][0]["taskPreview"] == " ".join(long_task.split())[:160]
    assert architect["tickets"][0]["taskLen"] == len(long_task)
    assert architect["lateReplies"] == 1 and architect["bridgeConnected"] is True
    assert qa["attention"] == {"reason": "permission", "message": "Allow Bash?"}

    by_id = {c["conversationId"]: c for c in document["conversations"]}
    assert list(by_id) == [PAIR, broken, HUMAN_CONVERSATION, gone]  # first-seen order of the tickets
    ready = by_id[PAIR]
    assert ready["status"] == "ready" and ready["recentTurns"] == []
    assert ready["objectivePreview"] == " ".join(long_task.split())[:160]
    assert len(ready["summaryPreview"]) == 480 and ready["summaryLen"] > 480 and ready["upTo"] == turn(PAIR, 9, "").id
    missing = by_id[HUMAN_CONVERSATION]
    assert missing == {
        "conversationId": HUMAN_CONVERSATION, "status": "missing", "objectivePreview": None, "summaryPreview": None,
        "summaryLen": 0, "upTo": None,
        "recentTurns": [{"role": "prompt", "source": {"kind": "human"}, "atMs": 1702, "textPreview": "hello QA", "textLen": 8}],
    }
    assert by_id[broken]["status"] == "partial" and by_id[broken]["recentTurns"][0]["textPreview"] == "question"
    assert by_id[gone] == {**by_id[gone], "status": "unavailable", "recentTurns": [], "summaryPreview": None}


async def test_recent_rendezvous_keep_their_conversations_reachable_and_delivery_clears_attention(
    world: KnowledgeWorld,
) -> None:
    signals = world.knowledge.signals
    assert signals.observe(RendezvousEnded("t1", MAIN, ARCHITECT, "replied", 10))
    assert signals.observe(RendezvousEnded("t2", None, QA, "replied", 10))
    assert signals.observe(RendezvousEnded("t3", MAIN, ARCHITECT, "noReply", 10))
    assert not signals.observe(object())
    signals.observe(AgentAttention(QA, "input"))
    signals.observe(DelegationDelivered(QA, "t4", 5))

    state = await world.knowledge.work.read()

    assert [c.conversation_id for c in state.conversations] == [PAIR, HUMAN_CONVERSATION]
    assert {c.status.value for c in state.conversations} == {"missing"}
    assert state.agents[2].attention is None


async def test_a_broken_queue_source_still_shows_the_agents(world: KnowledgeWorld) -> None:
    def broken() -> tuple[AgentQueueSnapshot, ...]:
        raise RuntimeError("core not ready")

    world.team.queue_snapshots = broken  # type: ignore[method-assign]
    state = await world.knowledge.work.read()
    assert [a.name for a in state.agents] == ["Main", "Architect", "QA"] and "queues" in state.problems[0]


@dataclass(frozen=True)
class LimitReached:
    """An event another feature's core would publish (a session limit, here)."""

    agent_id: str
    resets_at_ms: int


class SessionLimits:
    """A work-panel contributor as another feature writes one: it learns from events, annotates entries."""

    refreshing_events = (LimitReached,)

    def __init__(self) -> None:
        self.limits: dict[str, int] = {}

    def observe(self, event: object) -> None:
        if isinstance(event, LimitReached):
            self.limits[event.agent_id] = event.resets_at_ms

    def annotate(self, agent: AgentWork) -> AgentWork:
        reset = self.limits.get(agent.agent_id)
        if reset is None:
            return agent
        notice = WorkNotice("Usage limit reached; IdeA resumes it after the reset", NoticeLevel.WARNING, reset)
        return replace(agent, rate_limit=RateLimit(reset, reset + 60_000), notices=(*agent.notices, notice))


class Broken:
    refreshing_events = ()

    def observe(self, event: object) -> None:
        raise RuntimeError("observing")

    def annotate(self, agent: AgentWork) -> AgentWork:
        raise RuntimeError("annotating")


async def test_another_feature_adds_its_entries_to_the_work_panel_and_its_failures_cost_only_its_part(
    world: KnowledgeWorld,
) -> None:
    work = world.knowledge.work
    assert not work.refreshes_on(LimitReached(QA, 5))
    work.add_contributor(SessionLimits())
    work.add_contributor(Broken())

    world.knowledge.observe(LimitReached(QA, 1_781_370_000_000))  # as the project runtime feeds the core's events
    state = await world.knowledge.work.read()

    assert work.refreshes_on(LimitReached(QA, 5)) is True
    assert work.refreshes_on(OrchestrationNews("p", LimitReached(QA, 5))) is True
    qa = next(agent for agent in state.agents if agent.agent_id == QA)
    assert qa.rate_limit == RateLimit(1_781_370_000_000, 1_781_370_060_000)
    assert qa.to_json()["notices"] == [
        {"text": "Usage limit reached; IdeA resumes it after the reset", "level": "warning", "sinceMs": 1_781_370_000_000}
    ]
    assert [agent.name for agent in state.agents] == ["Main", "Architect", "QA"]
    assert any("Broken: annotating" in problem for problem in state.problems)
    assert any("[work] Broken failed on LimitReached" in line for line in world.diagnostics.lines)


# ------------------------------------------------------------------------------------ the surface rule

WORD = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x2FF), min_size=3, max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(WORD, min_size=1, max_size=60).map(" ".join), min_size=1, max_size=40))
async def test_kn14_no_context_file_holds_transcript_text_that_is_not_in_the_handoff(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = KnowledgeWorld(Path(tmp) / "project", Path(tmp) / "data")
        knowledge = world.knowledge
        for index, text in enumerate(texts):
            role = TurnRole.PROMPT if index % 2 == 0 else TurnRole.RESPONSE
            await knowledge.record.append(turn(PAIR, index + 1, f"{text} \u27e6{index}\u27e7", role))
        await knowledge.memory.write("note", "A note.")
        await knowledge.context.write("# Context\n")
        skill = await knowledge.skills.create("lint", "# Lint\nruff")
        await knowledge.skills.assign(ARCHITECT, "project", skill.record.id)

        injected = await knowledge.injection(ARCHITECT, PAIR)
        context_file = compose_convention_file(
            ComposeInputs(
                project_root=str(world.root),
                agent_id=ARCHITECT,
                agent_name="Architect",
                uses_mcp=True,
                orchestration=ResourcePromptLibrary().orchestration_texts(),
                skills=tuple(SkillBrief(s.name, s.effective_description, s.body) for s in injected.skills),
                project_context=injected.project_context,
                persona="# Architect\n",
                memory=tuple(MemoryPointer(p.slug, p.description) for p in injected.memory),
                handoff=injected.handoff,
            )
        )

        handoff = knowledge.record.current(PAIR)
        assert handoff is not None and injected.handoff == handoff.summary
        assert len(injected.handoff) <= HANDOFF_SUMMARY_MAX_CHARS
        resume = context_file.split("# Conversation resume\n\n", 1)[1]
        assert resume.rstrip("\n") == injected.handoff
        outside_resume = context_file.split("# Conversation resume", 1)[0]
        for index, text in enumerate(texts):
            role = TurnRole.PROMPT if index % 2 == 0 else TurnRole.RESPONSE
            recorded = turn(PAIR, index + 1, f"{text} \u27e6{index}\u27e7", role)
            assert f"\u27e6{index}\u27e7" not in outside_resume  # nothing of a turn outside the resume section
            if f"\u27e6{index}\u27e7" in resume:  # inside, only as its bounded handoff line
                assert turn_line(recorded) in resume.split("\n")
            flat = " ".join(recorded.text.split())
            if len(flat) > 240:  # a long turn is never injected whole
                assert flat not in context_file
