"""Agent processes: the launch pipeline (spec 02 §10), one live session per agent, the launch secrets, what
is done when an agent's CLI ends, and what is remembered so a reopened project can offer to resume them.

Which cell shows an agent is not decided here: that is the placement service (`placement.py`), which calls
`start` and places the session it returns."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.convention_file import ComposeInputs, compose_convention_file
from idea.application.agents.ports import (
    AgentProject,
    BridgeEndpoint,
    PreparedRunDir,
    PromptLibrary,
    ProviderSessionStore,
    RunDirRequest,
    RunDirWriter,
    RunningAgentsStore,
)
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.orchestrator.ports import LiveAgent
from idea.application.permissions.service import LaunchPermissions, NoPermissions, PermissionService
from idea.application.ports import Unsubscribe
from idea.application.sessions import LaunchRequest
from idea.domain import layout as lay
from idea.domain.agent import AgentManifest
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, ConversationId, NodeId, conversation_for_pair
from idea.domain.launch_secret import TOKEN_ENV_VAR
from idea.domain.mcp_wiring import rendezvous_tool_timeout_ms
from idea.domain.orchestration import Human, Source, SubmitHumanInput
from idea.domain.profile import Assign, Profile, SessionPlan, plan_session, resolve_cwd, session_args
from idea.domain.providers import RunningAgent
from idea.domain.session import SessionInfo, SessionKind

ExitListener = Callable[[AgentId, "int | None"], None]


@dataclass(frozen=True)
class AgentLaunchDeps:
    """What launching agents needs beyond the project runtime; built once by the composition root."""

    profiles: ProfileCatalogue
    providers: ProviderSessionStore
    running: RunningAgentsStore
    run_dirs: RunDirWriter
    prompts: PromptLibrary
    endpoint_for: Callable[[str], str]  # project id -> absolute path of its MCP socket
    new_token: Callable[[], str]  # a fresh launch secret
    rendezvous_window_ms: int
    rendezvous_ceiling_ms: int
    permissions: PermissionService | NoPermissions = NoPermissions()  # spec 06


@dataclass(frozen=True)
class ResumeCandidate:
    """An agent that was running when the project was last closed (or when IdeA stopped)."""

    agent_id: AgentId
    name: str
    node_id: NodeId | None  # its cell in the active layout, None = it ran in the background
    conversation_id: ConversationId | None


class AgentRunner:
    def __init__(self, project: AgentProject, catalogue: AgentCatalogue, deps: AgentLaunchDeps) -> None:
        self._project = project
        self._catalogue = catalogue
        self._deps = deps
        self._tokens: dict[AgentId, str] = {}
        self._exit_listeners: list[ExitListener] = []
        self._closing = False
        project.sessions.on_exit(self._session_exited)

    # -- queries --

    @property
    def closing(self) -> bool:
        """The project is closing: agents stop, but the record that they ran stays for the resume offer."""
        return self._closing

    def manifest(self) -> AgentManifest:
        return self._catalogue.manifest()

    def profile_of(self, agent_id: AgentId) -> Profile:
        return self._deps.profiles.profile(self._catalogue.agent(agent_id).profile_id)

    def live(self, agent_id: AgentId) -> LiveAgent | None:
        info = self._project.sessions.live_agent_session(agent_id)
        if info is None:
            return None
        leaf = lay.leaf_showing_session(self._project.active.root, info.id)
        return LiveAgent(
            agent_id=agent_id,
            session_id=info.id,
            node_id=leaf.id if leaf else None,
            terminal=self._project.sessions.terminal(info.id),
            profile=self.profile_of(agent_id),
        )

    def on_exit(self, listener: ExitListener) -> Unsubscribe:
        self._exit_listeners.append(listener)
        return lambda: self._exit_listeners.remove(listener)

    def verify_token(self, agent_id: AgentId, token: str) -> bool:
        expected = self._tokens.get(agent_id)
        return expected is not None and bool(token) and hmac.compare_digest(expected, token)

    async def update_persona(self, agent_id: AgentId, content: str) -> None:
        await self._catalogue.update_persona(agent_id, content)

    def resumable(self) -> list[ResumeCandidate]:
        """Agents that were running at the last close or crash and are not running now."""
        manifest = self._catalogue.manifest()
        root = self._project.active.root
        seen: set[AgentId] = set()
        candidates = []
        for leaf in lay.leaves(root):
            entry = manifest.by_id(leaf.agent) if leaf.agent else None
            if entry is not None and leaf.agent_was_running and self.live(entry.agent_id) is None:
                candidates.append(ResumeCandidate(entry.agent_id, entry.name, leaf.id, leaf.conversation_id))
                seen.add(entry.agent_id)
        for running in self._deps.running.load(self._project.root).agents:
            entry = manifest.by_id(running.agent_id)
            if entry is not None and entry.agent_id not in seen and self.live(entry.agent_id) is None:
                leaf = lay.leaf_pinning_agent(root, entry.agent_id)
                candidates.append(
                    ResumeCandidate(entry.agent_id, entry.name, leaf.id if leaf else None, running.conversation_id)
                )
        return candidates

    # -- processes --

    async def start(self, agent_id: AgentId, conversation_id: ConversationId | None, reason: str) -> SessionInfo:
        """Start the agent's CLI in a new terminal session (no cell). A program that cannot start gives a
        FAILED session; a CLI missing from PATH raises AppError PROCESS before anything is written."""
        project = self._project
        name = self._catalogue.agent(agent_id).name
        profile = self.profile_of(agent_id)
        program = self._program(profile)
        token = self._deps.new_token()
        permissions = self._deps.permissions.for_launch(project.root, agent_id, name, profile)  # fail-closed
        prepared = self._prepare_run_dir(agent_id, name, profile, token, permissions)
        conversation = conversation_id or conversation_for_pair(agent_id, None)
        plan = self._session_plan(profile, conversation)
        argv = permissions.wrap((program, *profile.args, *prepared.extra_args, *session_args(profile, plan)))
        self._tokens[agent_id] = token
        cwd = resolve_cwd(profile, prepared.run_dir, project.root)
        project.orchestrator.agent_launching(agent_id)
        env = self._environment(agent_id, profile, prepared, token)
        info = await project.sessions.start(
            LaunchRequest(argv=argv, cwd=cwd, kind=SessionKind.AGENT, label=name, env=env, agent_id=agent_id,
                          shift_enter=profile.newline_sequence or None)
        )
        if isinstance(plan, Assign) and profile.provider_key is not None and info.is_live:
            self._deps.providers.update(
                project.root,
                lambda sessions: sessions.with_entry(
                    conversation, profile.provider_key, plan.session_id, project.clock.now_ms()
                ),
            )
        if not info.is_live:
            self._tokens.pop(agent_id, None)
        elif prepared.first_turn:
            project.schedule(self._deliver_first_turn(name, prepared.first_turn))
        project.diagnostics.beacon(f"[launch] {name} argv={argv[0]} cwd={cwd} reason={reason}")
        return info

    def _program(self, profile: Profile) -> str:
        """The CLI's path on the PATH the agent gets."""
        host = self._project.host
        program = host.which(profile.command, host.environ().get("PATH"))
        if program is None:
            raise AppError(
                ErrorCode.PROCESS,
                f"{profile.name} ({profile.command}) is not installed or not on PATH; install it or set the "
                f"full path of the program in the profile",
            )
        return program

    def _prepare_run_dir(
        self, agent_id: AgentId, name: str, profile: Profile, token: str, permissions: LaunchPermissions
    ) -> PreparedRunDir:
        """Write `.ideai/run/<agentId>/`: the convention file, the MCP declaration and hooks with this
        launch's secret, what the CLI's settings need."""
        project = self._project
        uses_bridge = profile.materializes_idea_bridge() or profile.hooks is not None
        bridge = BridgeEndpoint(self._deps.endpoint_for(project.id), token) if uses_bridge else None
        prepared = self._deps.run_dirs.prepare(
            RunDirRequest(
                project_root=project.root,
                project_id=project.id,
                agent_id=agent_id,
                profile=profile,
                convention_text=self._convention_text(agent_id, name, profile, permissions.summary),
                bridge=bridge,
                tool_timeout_ms=rendezvous_tool_timeout_ms(
                    self._deps.rendezvous_window_ms, self._deps.rendezvous_ceiling_ms
                ),
                trust_run_dir=project.settings().trust_run_dirs_automatically,
                **permissions.run_dir_fields(),
            )
        )
        for warning in prepared.warnings:
            project.diagnostics.beacon(f"[launch] {name}: {warning}")
        return prepared

    def _environment(
        self, agent_id: AgentId, profile: Profile, prepared: PreparedRunDir, token: str
    ) -> dict[str, str]:
        """The profile's variables (placeholders replaced), the run dir's, and the agent's identity."""
        project = self._project
        placeholders = {"{agentRunDir}": prepared.run_dir, "{projectRoot}": project.root}
        env = {key: _substitute(value, placeholders) for key, value in profile.env.items()}
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

    def launched(
        self, info: SessionInfo, node_id: NodeId | None, conversation: ConversationId | None, reason: str
    ) -> None:
        """A started agent is placed: remember it for the resume offer and tell the orchestration core."""
        agent_id = info.agent_id
        assert agent_id is not None
        self.remember_running(agent_id, node_id, conversation)
        self._project.diagnostics.beacon(
            f"[launch] {info.label} id={agent_id} pid={info.pid} cell={node_id or 'background'} reason={reason}"
        )
        self._project.orchestrator.agent_launched(agent_id)

    def remember_running(self, agent_id: AgentId, node_id: NodeId | None, conversation: ConversationId | None) -> None:
        now = self._project.clock.now_ms()
        entry = RunningAgent(agent_id=agent_id, node_id=node_id, conversation_id=conversation, since_ms=now)
        self._deps.running.update(self._project.root, lambda running: running.with_agent(entry, now))

    def forget_running(self, agent_id: AgentId) -> None:
        """Not running any more, or not to be resumed: nothing to offer next time."""
        now = self._project.clock.now_ms()
        self._deps.running.update(self._project.root, lambda running: running.without(agent_id, now))

    async def stop_all_for_close(self) -> None:
        """Project close: stop every agent but keep the record that they were running (resume offer)."""
        self._closing = True
        for info in self._project.sessions.snapshot():
            if info.kind is SessionKind.AGENT and info.is_live:
                await self._project.sessions.stop(info.id)

    # -- the pipeline --

    async def _deliver_first_turn(self, name: str, text: str) -> None:
        """`stdin` context injection: once the CLI is ready, it is told to read its context file."""
        try:
            await self._project.orchestrator.dispatch(Human(), SubmitHumanInput(name, text), Source.UI)
        except AppError as exc:
            self._project.diagnostics.beacon(f"[launch] {name}: first turn not delivered: {exc.message}")

    def _session_plan(self, profile: Profile, conversation: ConversationId) -> SessionPlan:
        engine = None
        if profile.provider_key is not None:
            engine = self._deps.providers.load(self._project.root).engine_session_for(
                conversation, profile.provider_key
            )
        return plan_session(profile, engine, assign_id=self._project.ids.new_id())

    def _convention_text(
        self, agent_id: AgentId, name: str, profile: Profile, permission_summary: str | None
    ) -> str:
        requests_dir = f"{self._project.root}/.ideai/requests/{agent_id}"
        return compose_convention_file(
            ComposeInputs(
                project_root=self._project.root,
                agent_id=agent_id,
                agent_name=name,
                uses_mcp=profile.materializes_idea_bridge(),
                orchestration=self._deps.prompts.orchestration_texts(),
                requests_dir="" if profile.materializes_idea_bridge() else requests_dir,
                persona=self._catalogue.persona(agent_id),
                live_state=self._project.orchestrator.work_state_rows(excluding=agent_id),
                permission_summary=permission_summary,
            )
        )

    def _session_exited(self, info: SessionInfo) -> None:
        if info.kind is not SessionKind.AGENT or info.agent_id is None:
            return
        agent_id = info.agent_id
        self._tokens.pop(agent_id, None)
        # A CLI that quits by itself can leave daemons behind (Codex's app-server); ending the exited
        # session ends whatever still carries the agent's marker.
        self._project.schedule(self._project.sessions.terminal(info.id).terminate())
        if not self._closing:
            self.forget_running(agent_id)  # stopped or exited while the project stays open
        for listener in list(self._exit_listeners):
            listener(agent_id, info.exit_code)


def _substitute(value: str, placeholders: dict[str, str]) -> str:
    for placeholder, replacement in placeholders.items():
        value = value.replace(placeholder, replacement)
    return value
