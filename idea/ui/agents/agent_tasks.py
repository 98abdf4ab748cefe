"""Coroutines the agent screens submit to the core loop (through CoreClient): each one composes the
project's use cases so that a user gesture is a single step on the core, never a sequence the GUI thread
would have to coordinate. Nothing here touches Qt."""

from __future__ import annotations

from idea.application.agents.runner import ResumeCandidate
from idea.application.agents.templates import TemplateCatalogue, TemplateStatus
from idea.application.orchestrator.ports import LiveAgent
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, NodeId, TicketId
from idea.domain.orchestration import (
    CancelTicket,
    Human,
    Interrupt,
    ReadWorkState,
    Source,
    SubmitHumanInput,
)
from idea.domain.orchestration_events import AgentQueueSnapshot
from idea.domain.session import SessionKind
from idea.ui.agents.agent_activity import WorkRow

USER_LAUNCH = "user"


async def launch_in_cell(runtime: ProjectRuntime, agent_id: AgentId, leaf_id: NodeId) -> LiveAgent:
    """Start the agent in `leaf_id`; an idle shell or an ended session in that cell gives way to it."""
    await _vacate(runtime, leaf_id, agent_id)
    await _unpin_elsewhere(runtime, agent_id, keep=leaf_id)
    return await runtime.runner.launch(agent_id, node_id=leaf_id, reason=USER_LAUNCH)


async def launch_in_new_split(runtime: ProjectRuntime, agent_id: AgentId, beside: NodeId) -> LiveAgent:
    """Split `beside` to the right and start the agent in the new cell (the cell goes away if it cannot)."""
    new_leaf = runtime.ids.new_id()
    await runtime.mutate(lay.SplitCell(beside, lay.Direction.ROW, "after", new_leaf))
    try:
        await _unpin_elsewhere(runtime, agent_id, keep=new_leaf)
        return await runtime.runner.launch(agent_id, node_id=new_leaf, reason=USER_LAUNCH)
    except BaseException:
        failed_session = lay.find_leaf(runtime.active.root, new_leaf).session
        await runtime.mutate(lay.CloseCell(new_leaf))
        if failed_session is not None:
            runtime.release_unshown(failed_session)
        raise


async def launch_in_background(runtime: ProjectRuntime, agent_id: AgentId) -> LiveAgent:
    await _unpin_elsewhere(runtime, agent_id, keep=None)
    return await runtime.runner.launch(agent_id, reason=USER_LAUNCH)


async def attach_to_cell(runtime: ProjectRuntime, agent_id: AgentId, leaf_id: NodeId) -> LiveAgent:
    """Show a background agent in `leaf_id` (same process, same screen)."""
    await _vacate(runtime, leaf_id, agent_id)
    await _unpin_elsewhere(runtime, agent_id, keep=leaf_id)
    await runtime.runner.attach(agent_id, leaf_id)
    live = runtime.runner.live(agent_id)
    if live is None:
        raise AppError(ErrorCode.NOT_FOUND, f"{runtime.agents.agent(agent_id).name} stopped before it was attached")
    return live


async def attach_in_new_split(runtime: ProjectRuntime, agent_id: AgentId, beside: NodeId) -> LiveAgent:
    new_leaf = runtime.ids.new_id()
    await runtime.mutate(lay.SplitCell(beside, lay.Direction.ROW, "after", new_leaf))
    return await attach_to_cell(runtime, agent_id, new_leaf)


async def resume(runtime: ProjectRuntime, chosen: list[ResumeCandidate], declined: list[AgentId]) -> list[str]:
    """Resume the chosen agents where they ran (their cell, else the background) and stop offering the
    others. Returns one sentence per agent that could not be resumed."""
    failures = []
    for candidate in chosen:
        try:
            await runtime.runner.launch(
                candidate.agent_id,
                node_id=_still_there(runtime, candidate.node_id),
                reason="resume",
                conversation_id=candidate.conversation_id,
            )
        except AppError as exc:
            failures.append(f"{candidate.name}: {exc.message}")
    if declined:
        await runtime.runner.forget_resume(declined)
    return failures


async def resumable(runtime: ProjectRuntime) -> list[ResumeCandidate]:
    return runtime.runner.resumable()


async def read_persona(runtime: ProjectRuntime, agent_id: AgentId) -> str:
    return runtime.agents.persona(agent_id)


async def template_statuses(runtime: ProjectRuntime) -> dict[AgentId, TemplateStatus]:
    """Every agent's template link (reads personas and template bodies, hence on the core)."""
    return {
        agent.agent_id: runtime.agents.template_status(agent.agent_id)
        for agent in runtime.agents.manifest().agents
    }


async def template_comparison(
    runtime: ProjectRuntime, templates: TemplateCatalogue, agent_id: AgentId
) -> tuple[str, str]:
    """The agent's persona and its template's current body, for the diff."""
    status = runtime.agents.template_status(agent_id)
    if status.template is None:
        raise AppError(ErrorCode.INVALID, "this agent's template no longer exists")
    return runtime.agents.persona(agent_id), templates.body(status.template.id)


async def keep_persona(runtime: ProjectRuntime, agent_id: AgentId) -> None:
    """"Keep mine": the persona stays as edited and the template's current version counts as seen, so the
    update is not offered again until the template changes once more. Taking the template then writing the
    persona back gives exactly that through the public use cases; nothing yields in between."""
    persona = runtime.agents.persona(agent_id)
    await runtime.agents.pull_template(agent_id)
    await runtime.agents.update_persona(agent_id, persona)


async def orchestration_state(
    runtime: ProjectRuntime,
) -> tuple[tuple[AgentQueueSnapshot, ...], dict[AgentId, WorkRow]]:
    """Every agent's queue and live-state row, read together."""
    return runtime.orchestrator.queue_snapshots(), await work_rows(runtime)


async def work_rows(runtime: ProjectRuntime) -> dict[AgentId, WorkRow]:
    outcome = await runtime.orchestrator.dispatch(Human(), ReadWorkState(), Source.UI)
    entries = (outcome.data or {}).get("entries", [])
    return {entry["agentId"]: WorkRow(entry["status"], entry.get("intent") or "") for entry in entries}


async def send_task(runtime: ProjectRuntime, agent_name: str, text: str) -> TicketId:
    """A ticket from the person, typed into the agent's terminal as is; a stopped agent is started first."""
    outcome = await runtime.orchestrator.dispatch(Human(), SubmitHumanInput(target=agent_name, text=text), Source.UI)
    return (outcome.data or {})["ticket"]


async def cancel_ticket(runtime: ProjectRuntime, ticket_id: TicketId) -> str:
    outcome = await runtime.orchestrator.dispatch(Human(), CancelTicket(ticket=ticket_id), Source.UI)
    return outcome.detail


async def interrupt(runtime: ProjectRuntime, agent_name: str) -> None:
    """Esc in the agent's terminal; its tickets stay as they are."""
    await runtime.orchestrator.dispatch(Human(), Interrupt(target=agent_name), Source.UI)


async def deliver_now(runtime: ProjectRuntime, ticket_id: TicketId) -> None:
    """The waiting delivery goes without waiting for the person's line any longer, which it clears."""
    runtime.orchestrator.force_delivery(ticket_id)


async def _vacate(runtime: ProjectRuntime, leaf_id: NodeId, agent_id: AgentId) -> None:
    """Empty a cell for the agent: stop its shell, drop an ended session; refuse to displace another
    running agent."""
    leaf = lay.find_leaf(runtime.active.root, leaf_id)
    session = leaf.session
    if session is not None and runtime.sessions.is_live(session):
        info = runtime.sessions.info(session)
        if info.agent_id == agent_id:
            return
        if info.kind is SessionKind.AGENT:
            raise AppError(
                ErrorCode.INVALID,
                f"{info.label} is running in that cell; choose another cell or launch in a new split",
            )
        await runtime.stop_session(session)
    if leaf.is_empty or (leaf.agent == agent_id and session is None):
        return
    await runtime.mutate(lay.ClearCell(leaf_id))
    if session is not None:
        runtime.release_unshown(session)


async def _unpin_elsewhere(runtime: ProjectRuntime, agent_id: AgentId, keep: NodeId | None) -> None:
    """A cell still showing the agent's ended run gives it up, so the agent can start somewhere else."""
    pinned = lay.leaf_pinning_agent(runtime.active.root, agent_id)
    if pinned is None or pinned.id == keep:
        return
    if pinned.session is not None and runtime.sessions.is_live(pinned.session):
        return  # the runner decides (rebind or refuse with the cell that hosts it)
    await runtime.mutate(lay.ClearCell(pinned.id))
    if pinned.session is not None:
        runtime.release_unshown(pinned.session)


def _still_there(runtime: ProjectRuntime, node_id: NodeId | None) -> NodeId | None:
    if node_id is None:
        return None
    try:
        lay.find_leaf(runtime.active.root, node_id)
    except AppError:
        return None
    return node_id
