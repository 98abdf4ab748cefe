"""Coroutines the agent screens submit to the core loop (through CoreClient): each one composes the
project's use cases so that a user gesture is a single step on the core, never a sequence the GUI thread
would have to coordinate. Nothing here touches Qt."""

from __future__ import annotations

from idea.application.agents.runner import ResumeCandidate
from idea.application.agents.templates import TemplateCatalogue, TemplateStatus
from idea.application.projects import ProjectRuntime
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, TicketId
from idea.domain.orchestration import (
    CancelTicket,
    Human,
    Interrupt,
    ReadWorkState,
    Source,
    SubmitHumanInput,
)
from idea.domain.orchestration_events import AgentQueueSnapshot
from idea.ui.agents.agent_activity import WorkRow


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
