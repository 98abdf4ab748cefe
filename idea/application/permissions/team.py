"""The Permissions panel's use cases over an open project: its team's policies, and a restart that applies
a changed policy to a running agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from idea.application.permissions.service import AgentRef, PermissionService, PermissionsOverview, overview
from idea.domain.errors import AppError

if TYPE_CHECKING:
    from idea.application.projects import ProjectRuntime


async def team_overview(service: PermissionService, runtime: ProjectRuntime) -> PermissionsOverview:
    refs = []
    for entry in runtime.agents.manifest().agents:
        try:
            profile = runtime.runner.profile_of(entry.agent_id)
        except AppError:
            continue  # an agent whose profile is gone cannot be launched; the Agents panel says why
        refs.append(AgentRef(entry.agent_id, entry.name, profile, runtime.runner.live(entry.agent_id) is not None))
    return overview(service, runtime.root, refs)


async def restart_to_apply(runtime: ProjectRuntime, agent_id: str) -> None:
    """Stop the agent and start it again in the same cell (or in the background), under the saved policy."""
    live = runtime.runner.live(agent_id)
    node_id = live.node_id if live is not None else None
    if live is not None:
        await runtime.runner.stop(agent_id)
    await runtime.runner.launch(agent_id, node_id=node_id, visible=node_id is not None, reason="permissions changed")
