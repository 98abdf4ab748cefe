"""A worktree's setup command (`worktreeSetup`, e.g. `npm ci`, spec 07 §2) run where the person sees it: a
shell cell whose working folder is the new worktree. The person's own shell runs the command, then stays
open there, so its output and a failure can be read and acted on."""

from __future__ import annotations

import shlex

from idea.application.agents.ports import AgentProject
from idea.application.agents.side_cells import show_beside_agent
from idea.application.sessions import LaunchRequest
from idea.domain.git.worktrees import SetupCommand
from idea.domain.ids import AgentId, NodeId, SessionId
from idea.domain.path_names import last_part
from idea.domain.session import SessionKind


def setup_argv(shell: str, command: str) -> tuple[str, ...]:
    """`shell -c`: show the command, run it, then hand the cell over to an interactive shell in the same
    folder. Lines, not `;`, so that a `#` comment in the command ends with its line."""
    script = f"printf '%s\\n' {shlex.quote('$ ' + command)}\n{command}\nexec {shlex.quote(shell)}"
    return (shell, "-c", script)


async def run_setup_in_cell(
    project: AgentProject, setup: SetupCommand, agent_id: AgentId, beside: NodeId | None
) -> SessionId:
    """Start the setup shell and show it beside the agent (`show_beside_agent`)."""
    shell = project.host.login_shell()
    label = f"setup · {last_part(setup.cwd)}"
    info = await project.sessions.start(
        LaunchRequest(argv=setup_argv(shell, setup.command), cwd=setup.cwd, kind=SessionKind.SHELL, label=label,
                      env={})
    )
    await show_beside_agent(project, info.id, agent_id, beside)
    return info.id
