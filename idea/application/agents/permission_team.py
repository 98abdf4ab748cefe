"""The Permissions panel's use cases over an open project: its team's policies, and a restart that applies
a changed policy to a running agent."""

from __future__ import annotations

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.placement import AgentPlacement
from idea.application.agents.runner import AgentRunner
from idea.application.permissions.service import AgentRef, PermissionService, PermissionsOverview, overview
from idea.domain.errors import AppError


async def team_overview(
    service: PermissionService, root: str, team: AgentCatalogue, runner: AgentRunner
) -> PermissionsOverview:
    refs = []
    for entry in team.manifest().agents:
        try:
            profile = runner.profile_of(entry.agent_id)
        except AppError:
            continue  # an agent whose profile is gone cannot be launched; the Agents panel says why
        refs.append(AgentRef(entry.agent_id, entry.name, profile, runner.live(entry.agent_id) is not None))
    return overview(service, root, refs)


async def restart_to_apply(placement: AgentPlacement, agent_id: str) -> None:
    """Stop the agent and start it again in the same cell (or in the background), under the saved policy."""
    await placement.relaunch(agent_id, reason="permissions changed")
