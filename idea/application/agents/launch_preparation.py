"""Before an agent's CLI starts (spec 02 §10): its program on PATH, its sign-in, its worktree, its run dir
(convention file, MCP declaration, hooks with the launch secret) and its environment. Nothing here starts a
process: `AgentRunner.start` does, with what this prepares."""

from __future__ import annotations

from collections.abc import Mapping

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.convention_file import ComposeInputs, SkillBrief, compose_convention_file
from idea.application.agents.launch_deps import AgentLaunchDeps
from idea.application.agents.ports import AgentProject, BridgeEndpoint, LaunchInjection, PreparedRunDir, RunDirRequest
from idea.application.permissions.service import LaunchPermissions
from idea.application.ports import Host
from idea.domain.agent import AgentEntry
from idea.domain.errors import AppError, ErrorCode
from idea.domain.git.worktrees import WorktreeMissing
from idea.domain.ids import AgentId
from idea.domain.launch_secret import TOKEN_ENV_VAR
from idea.domain.mcp_wiring import rendezvous_tool_timeout_ms
from idea.domain.profile import Profile

DELEGATED_LAUNCH_REASONS = frozenset({"launch"})  # idea_launch_agent: an agent started it


class LaunchPreparation:
    def __init__(self, project: AgentProject, catalogue: AgentCatalogue, deps: AgentLaunchDeps) -> None:
        self._project = project
        self._catalogue = catalogue
        self._deps = deps

    def program(self, profile: Profile) -> str:
        return cli_program(self._project.host, profile)

    def check_sign_in(self, name: str, profile: Profile, reason: str) -> None:
        """A CLI without credentials would wait on its login screen. Started for a delegation (nobody may be
        looking), the launch is refused with what to do; started by the person, it starts (they can sign in in
        its cell) and they are told what to do."""
        checker = self._deps.sign_in
        check = checker.check(profile) if checker is not None else None
        if check is None or check.signed_in:
            return
        message = check.refusal(name)
        self._project.diagnostics.beacon(f"[launch] {name}: {check.cli} is not signed in (reason={reason})")
        if reason.startswith("ask from") or reason in DELEGATED_LAUNCH_REASONS:
            raise AppError(ErrorCode.PROCESS, message, data={"signIn": check.cli})
        self._project.report_problem(message)

    def worktree_root(self, entry: AgentEntry) -> str | None:
        """The agent's own worktree when it runs in one (spec 07 §2): its project root, which must still be
        there (WorktreeMissing otherwise, before anything is written)."""
        worktree = entry.worktree
        if worktree is None:
            return None
        if not self._project.host.is_dir(worktree.path):
            raise WorktreeMissing(entry.agent_id, entry.name, worktree.path, worktree.branch)
        return worktree.path

    def prepare_run_dir(
        self,
        entry: AgentEntry,
        profile: Profile,
        token: str,
        permissions: LaunchPermissions,
        worktree: str | None,
        knowledge: LaunchInjection,
    ) -> PreparedRunDir:
        """Write `.ideai/run/<agentId>/` (always in the main project, like the MCP endpoint): the convention
        file, the MCP declaration and hooks with this launch's secret, what the CLI's settings need."""
        project = self._project
        agent_id, name = entry.agent_id, entry.name
        uses_bridge = profile.materializes_idea_bridge() or profile.hooks is not None
        bridge = BridgeEndpoint(self._deps.endpoint_for(project.id), token) if uses_bridge else None
        prepared = self._deps.run_dirs.prepare(
            RunDirRequest(
                project_root=project.root,
                project_id=project.id,
                agent_id=agent_id,
                profile=profile,
                convention_text=self._convention_text(entry, profile, permissions.summary, worktree, knowledge),
                bridge=bridge,
                tool_timeout_ms=rendezvous_tool_timeout_ms(
                    self._deps.rendezvous_window_ms, self._deps.rendezvous_ceiling_ms
                ),
                trust_run_dir=project.settings().trust_run_dirs_automatically,
                work_root=worktree,
                **permissions.run_dir_fields(),
            )
        )
        for warning in prepared.warnings:
            project.diagnostics.beacon(f"[launch] {name}: {warning}")
        return prepared

    def environment(
        self, agent_id: AgentId, profile: Profile, prepared: PreparedRunDir, token: str, work_root: str
    ) -> dict[str, str]:
        """The profile's variables (placeholders replaced; `{projectRoot}` is the agent's own worktree when it
        runs in one), the run dir's, and the agent's identity."""
        project = self._project
        placeholders = {"{agentRunDir}": prepared.run_dir, "{projectRoot}": work_root}
        env = substituted(profile.env, placeholders)
        env.update(prepared.extra_env)
        env.update(
            {
                "IDEA_PROJECT_ID": project.id,
                "IDEA_AGENT_ID": agent_id,
                "IDEA_RUN_DIR": prepared.run_dir,
                "IDEA_PROJECT_ROOT": project.root,
                TOKEN_ENV_VAR: token,
            }
        )
        return env

    def _convention_text(
        self,
        entry: AgentEntry,
        profile: Profile,
        permission_summary: str | None,
        worktree: str | None,
        knowledge: LaunchInjection,
    ) -> str:
        agent_id = entry.agent_id
        requests_dir = f"{self._project.root}/.ideai/requests/{agent_id}"
        return compose_convention_file(
            ComposeInputs(
                project_root=worktree or self._project.root,
                main_root=self._project.root if worktree else "",
                worktree_branch=entry.worktree.branch if worktree and entry.worktree else "",
                agent_id=agent_id,
                agent_name=entry.name,
                uses_mcp=profile.materializes_idea_bridge(),
                orchestration=self._deps.prompts.orchestration_texts(),
                requests_dir="" if profile.materializes_idea_bridge() else requests_dir,
                persona=self._catalogue.persona(agent_id),
                live_state=self._project.orchestrator.work_state_rows(excluding=agent_id),
                permission_summary=permission_summary,
                skills=tuple(SkillBrief(s.name, s.effective_description, s.body) for s in knowledge.skills),
                project_context=knowledge.project_context,
                memory=knowledge.memory,
                handoff=knowledge.handoff,
            )
        )


def cli_program(host: Host, profile: Profile) -> str:
    """The CLI's path on the PATH an agent gets; AppError PROCESS, with what to do, when it is not there."""
    program = host.which(profile.command, host.environ().get("PATH"))
    if program is None:
        raise AppError(
            ErrorCode.PROCESS,
            f"{profile.name} ({profile.command}) is not installed or not on PATH. Install it, or give its "
            "full path in the profile (Agents ▸ Profiles).",
        )
    return program


def substituted(values: Mapping[str, str], placeholders: dict[str, str]) -> dict[str, str]:
    """A profile's variables with its placeholders (`{agentRunDir}`, `{projectRoot}`) replaced."""
    return {key: _substitute(value, placeholders) for key, value in values.items()}


def _substitute(value: str, placeholders: dict[str, str]) -> str:
    for placeholder, replacement in placeholders.items():
        value = value.replace(placeholder, replacement)
    return value
