"""Sign in from a cell (spec 02 §13.3 rule 5): an agent whose CLI has no credentials is not started for a
delegation; the person asks IdeA to run the CLI's sign-in (`claude auth login`; `codex login` with the user's
Codex home, the login every Codex agent shares; `gemini`, which asks how to authenticate) in a cell beside the
agent, follows it there, then starts the agent."""

from __future__ import annotations

from idea.application.agents.ports import AgentProject
from idea.application.agents.runner import AgentRunner
from idea.application.agents.side_cells import show_beside_agent
from idea.application.sessions import LaunchRequest
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, NodeId, SessionId
from idea.domain.session import SessionKind


async def open_sign_in(
    project: AgentProject, runner: AgentRunner, agent_id: AgentId, beside: NodeId | None = None
) -> SessionId:
    """Start the agent's CLI sign-in in a terminal shown beside the agent; refused with the way out when IdeA
    cannot run it for this CLI."""
    name = runner.manifest().require(agent_id).name
    check = runner.sign_in_check(agent_id)
    if check is None or check.login is None:
        profile = runner.profile_of(agent_id)
        how = f": {check.what_to_do}" if check is not None and check.what_to_do else ""
        raise AppError(ErrorCode.INVALID, f"IdeA cannot run the sign-in of {profile.name} for {name} in a cell{how}.")
    info = await project.sessions.start(
        LaunchRequest(
            argv=check.login.argv,
            cwd=project.root,
            kind=SessionKind.SHELL,
            label=f"sign in · {check.cli}",
            env=check.login.env,
        )
    )
    project.diagnostics.beacon(f"[launch] sign-in of {check.cli} for {name} started in session {info.id}")
    await show_beside_agent(project, info.id, agent_id, beside)
    return info.id
