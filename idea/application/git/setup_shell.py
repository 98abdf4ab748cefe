"""A worktree's setup command (`worktreeSetup`, e.g. `npm ci`, spec 07 §2) run where the person sees it: a
shell cell whose working folder is the new worktree. The person's own shell runs the command, then stays
open there, so its output and a failure can be read and acted on."""

from __future__ import annotations

import shlex

from idea.application.agents.placement_rules import split_target
from idea.application.agents.ports import AgentProject
from idea.application.sessions import LaunchRequest
from idea.domain import layout as lay
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
    """Start the setup shell and show it: in the first empty cell, else in a new cell beside the agent's
    cell (or `beside`, or the last cell). One saved change of the layout."""
    shell = project.host.login_shell()
    label = f"setup · {last_part(setup.cwd)}"
    info = await project.sessions.start(
        LaunchRequest(argv=setup_argv(shell, setup.command), cwd=setup.cwd, kind=SessionKind.SHELL, label=label,
                      env={})
    )
    root = project.active.root
    empty = lay.first_empty_leaf(root)
    ops: list[lay.LayoutOp] = []
    if empty is not None:
        leaf_id = empty.id
    else:
        pinned = lay.leaf_pinning_agent(root, agent_id)
        target = split_target(root, pinned.id if pinned is not None else beside)
        if target is None:  # no cell at all: the session stays in the background
            return info.id
        leaf_id = project.ids.new_id()
        ops.append(lay.SplitCell(target, lay.Direction.ROW, "after", leaf_id))
    ops.append(lay.SetSession(leaf_id, info.id))
    await project.change_layout(ops)
    return info.id
