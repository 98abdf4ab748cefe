"""Agents ▸ Profiles ▸ Test (spec 02 §7): a profile's CLI started as IdeA starts an agent's — its program found
on the PATH agents get, its arguments, its environment entries (`{agentRunDir}` is the scratch folder,
`{projectRoot}` the project) — in a scratch folder of its own, in a cell of the project. No agent, persona or
IdeA tool takes part: what the cell shows is the CLI itself, so that a command, an argument or a variable can
be checked before an agent depends on it. The folder stays for the cell (its Restart runs there again); the
host clears scratch folders a day old when it makes a new one."""

from __future__ import annotations

from idea.application.agents.launch_preparation import cli_program, substituted
from idea.application.agents.ports import AgentProject
from idea.application.agents.side_cells import show_beside
from idea.application.sessions import LaunchRequest
from idea.domain.git.worktrees import worktree_slug
from idea.domain.ids import NodeId, SessionId
from idea.domain.profile import RUN_DIR_PLACEHOLDER, Profile
from idea.domain.session import SessionKind

TRIAL_LABEL = "test · {name}"


async def try_profile(project: AgentProject, profile: Profile, beside: NodeId | None = None) -> SessionId:
    """Start the trial and show it (the first empty cell, else a new one beside `beside`); AppError PROCESS,
    with what to do, when the program is not found."""
    host = project.host
    program = cli_program(host, profile)
    folder = host.scratch_dir(f"idea-test-{worktree_slug(profile.name) or 'profile'}-")
    env = substituted(profile.env, {RUN_DIR_PLACEHOLDER: folder, "{projectRoot}": project.root})
    info = await project.sessions.start(
        LaunchRequest(
            argv=tuple(host.launch_argv(program, profile.args)),
            cwd=folder,
            kind=SessionKind.SHELL,
            label=TRIAL_LABEL.format(name=profile.name),
            env=env,
            shift_enter=profile.newline_sequence or None,
        )
    )
    project.diagnostics.beacon(f"[launch] test of profile {profile.name} argv={program} cwd={folder}")
    await show_beside(project, info.id, beside)
    return info.id
