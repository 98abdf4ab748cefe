"""Running agents: the launch pipeline (spec 02 §10), one live session per agent, background agents,
attach, stop, and what is remembered so a reopened project can offer to resume them."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from idea.application.agents.compose import ComposeInputs, compose_convention_file
from idea.application.agents.ports import (
    BridgeEndpoint,
    PromptLibrary,
    ProviderSessionStore,
    RunDirRequest,
    RunDirWriter,
    RunningAgentsStore,
)
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.orchestrator.ports import LiveAgent
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

if TYPE_CHECKING:
    from idea.application.agents.catalogue import AgentCatalogue
    from idea.application.projects import ProjectRuntime

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


@dataclass(frozen=True)
class ResumeCandidate:
    """An agent that was running when the project was last closed (or when IdeA stopped)."""

    agent_id: AgentId
    name: str
    node_id: NodeId | None  # its cell in the active layout, None = it ran in the background
    conversation_id: ConversationId | None


class AgentRunner:
    def __init__(self, runtime: ProjectRuntime, catalogue: AgentCatalogue, deps: AgentLaunchDeps) -> None:
        self._runtime = runtime
        self._catalogue = catalogue
        self._deps = deps
        self._tokens: dict[AgentId, str] = {}
        self._exit_listeners: list[ExitListener] = []
        self._closing = False
        runtime.sessions.on_exit(self._session_exited)

    # -- AgentLifecycle (what the orchestration core uses) --

    def manifest(self) -> AgentManifest:
        return self._catalogue.manifest()

    def profile_of(self, agent_id: AgentId) -> Profile:
        return self._deps.profiles.profile(self._catalogue.agent(agent_id).profile_id)

    def live(self, agent_id: AgentId) -> LiveAgent | None:
        info = self._runtime.sessions.live_agent_session(agent_id)
        if info is None:
            return None
        leaf = lay.leaf_showing_session(self._runtime.active.root, info.id)
        return LiveAgent(
            agent_id=agent_id,
            session_id=info.id,
            node_id=leaf.id if leaf else None,
            terminal=self._runtime.sessions.terminal(info.id),
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

    async def launch(
        self,
        agent_id: AgentId,
        *,
        node_id: NodeId | None = None,
        visible: bool = False,
        reason: str = "user",
        conversation_id: ConversationId | None = None,
    ) -> LiveAgent:
        """Start the agent's CLI (or reuse its live session). `node_id` names the cell to use; `visible`
        without a cell takes the first empty cell of the active layout, else the background."""
        agent = self._catalogue.agent(agent_id)
        profile = self.profile_of(agent_id)
        current = self.live(agent_id)
        if current is not None:
            return await self._reattach(current, node_id, agent.name)
        if node_id is None and visible:
            empty = lay.first_empty_leaf(self._runtime.active.root)
            node_id = empty.id if empty else None
        if node_id is not None:
            leaf = lay.find_leaf(self._runtime.active.root, node_id)
            if leaf.agent not in (None, agent_id) or (
                leaf.session is not None and self._runtime.sessions.is_live(leaf.session)
            ):
                raise AppError(ErrorCode.INVALID, "that cell is not empty; choose an empty cell or a new split")
            conversation_id = conversation_id or leaf.conversation_id
        info = await self._start(agent_id, agent.name, profile, conversation_id, reason)
        if node_id is not None:
            await self._runtime.mutate(lay.AssignAgent(node_id, agent_id, conversation_id))
            await self._runtime.mutate(lay.SetSession(node_id, info.id))
            if info.is_live:
                await self._runtime.mutate(lay.SetAgentWasRunning(node_id, True))
        if not info.is_live:
            raise AppError(ErrorCode.PROCESS, f"{agent.name} could not start: {info.describe_end()}")
        self._remember_running(agent_id, node_id, conversation_id)
        self._runtime.diagnostics.beacon(
            f"[launch] {agent.name} id={agent_id} pid={info.pid} cell={node_id or 'background'} reason={reason}"
        )
        live = self.live(agent_id)
        assert live is not None
        self._runtime.orchestrator.agent_launched(agent_id)
        return live

    async def stop(self, agent_id: AgentId) -> None:
        """End the agent's process tree and free its cell; the agent and its history remain."""
        info = self._runtime.sessions.live_agent_session(agent_id)
        if info is None:
            return
        leaf = lay.leaf_showing_session(self._runtime.active.root, info.id)
        await self._runtime.sessions.stop(info.id)
        if leaf is not None:
            await self._runtime.mutate(lay.ClearCell(leaf.id))
        self._runtime.release_unshown(info.id)

    # -- what the UI asks --

    async def attach(self, agent_id: AgentId, node_id: NodeId) -> None:
        """Show a running agent in an empty cell: same process, same screen."""
        live = self.live(agent_id)
        if live is None:
            raise AppError(ErrorCode.NOT_FOUND, f"running session for agent {agent_id}")
        await self._reattach(live, node_id, self._catalogue.agent(agent_id).name)

    async def send_to_background(self, agent_id: AgentId) -> None:
        live = self.live(agent_id)
        if live is not None and live.node_id is not None:
            await self._runtime.mutate(lay.ClearCell(live.node_id))
            self._remember_running(agent_id, None, None)

    async def change_profile(self, agent_id: AgentId, profile_id: str) -> None:
        """Swap the CLI: stop the live session, change the profile, relaunch in the same cell."""
        live = self.live(agent_id)
        node_id = live.node_id if live else None
        if live is not None:
            await self.stop(agent_id)
        await self._catalogue.set_profile(agent_id, profile_id)
        if live is not None:
            await self.launch(agent_id, node_id=node_id, visible=node_id is not None, reason="profile change")

    def resumable(self) -> list[ResumeCandidate]:
        """Agents that were running at the last close or crash and are not running now."""
        manifest = self._catalogue.manifest()
        seen: set[AgentId] = set()
        candidates = []
        for leaf in lay.leaves(self._runtime.active.root):
            entry = manifest.by_id(leaf.agent) if leaf.agent else None
            if entry is not None and leaf.agent_was_running and self.live(entry.agent_id) is None:
                candidates.append(ResumeCandidate(entry.agent_id, entry.name, leaf.id, leaf.conversation_id))
                seen.add(entry.agent_id)
        for running in self._deps.running.load(self._runtime.root).agents:
            entry = manifest.by_id(running.agent_id)
            if entry is not None and entry.agent_id not in seen and self.live(entry.agent_id) is None:
                leaf = lay.leaf_pinning_agent(self._runtime.active.root, entry.agent_id)
                candidates.append(
                    ResumeCandidate(entry.agent_id, entry.name, leaf.id if leaf else None, running.conversation_id)
                )
        return candidates

    async def forget_resume(self, agent_ids: list[AgentId]) -> None:
        """The user chose not to resume these agents: the offer is not repeated."""
        for agent_id in agent_ids:
            leaf = lay.leaf_pinning_agent(self._runtime.active.root, agent_id)
            if leaf is not None and leaf.agent_was_running:
                await self._runtime.mutate(lay.SetAgentWasRunning(leaf.id, False))
            self._deps.running.update(
                self._runtime.root, lambda running, a=agent_id: running.without(a, self._runtime.clock.now_ms())
            )

    def retarget_run_dirs(self) -> None:
        """At project open (spec 00 §5.6 step 6): the run dirs an earlier IdeA wrote start this IdeA's bridge
        and hook relay at this project's endpoint, even if the executable moved since."""
        runtime = self._runtime
        for path in self._deps.run_dirs.retarget(runtime.root, self._deps.endpoint_for(runtime.id)):
            runtime.diagnostics.beacon(f"[project] retargeted {path} to this IdeA")

    async def stop_all_for_close(self) -> None:
        """Project close: stop every agent but keep the record that they were running (resume offer)."""
        self._closing = True
        for info in self._runtime.sessions.snapshot():
            if info.kind is SessionKind.AGENT and info.is_live:
                await self._runtime.sessions.stop(info.id)

    # -- the pipeline --

    async def _reattach(self, live: LiveAgent, node_id: NodeId | None, name: str) -> LiveAgent:
        if node_id is None or node_id == live.node_id:
            return live  # idempotent
        if live.node_id is not None:
            raise AppError(
                ErrorCode.AGENT_ALREADY_RUNNING,
                f"{name} is already running in another cell",
                data={"nodeId": live.node_id},
            )
        await self._runtime.mutate(lay.AssignAgent(node_id, live.agent_id))
        await self._runtime.mutate(lay.SetSession(node_id, live.session_id))
        await self._runtime.mutate(lay.SetAgentWasRunning(node_id, True))
        self._remember_running(live.agent_id, node_id, None)
        refreshed = self.live(live.agent_id)
        assert refreshed is not None
        return refreshed

    async def _start(
        self,
        agent_id: AgentId,
        name: str,
        profile: Profile,
        conversation_id: ConversationId | None,
        reason: str,
    ) -> SessionInfo:
        runtime = self._runtime
        host_env = runtime.host.environ()
        program = runtime.host.which(profile.command, host_env.get("PATH"))
        if program is None:
            raise AppError(
                ErrorCode.PROCESS,
                f"{profile.name} ({profile.command}) is not installed or not on PATH; install it or set the "
                f"full path of the program in the profile",
            )
        token = self._deps.new_token()
        uses_bridge = profile.materializes_idea_bridge() or profile.hooks is not None
        bridge = BridgeEndpoint(self._deps.endpoint_for(runtime.id), token) if uses_bridge else None
        prepared = self._deps.run_dirs.prepare(
            RunDirRequest(
                project_root=runtime.root,
                project_id=runtime.id,
                agent_id=agent_id,
                profile=profile,
                convention_text=self._convention_text(agent_id, name, profile),
                bridge=bridge,
                tool_timeout_ms=rendezvous_tool_timeout_ms(
                    self._deps.rendezvous_window_ms, self._deps.rendezvous_ceiling_ms
                ),
                trust_run_dir=runtime.settings().trust_run_dirs_automatically,
            )
        )
        for warning in prepared.warnings:
            runtime.diagnostics.beacon(f"[launch] {name}: {warning}")
        conversation = conversation_id or conversation_for_pair(agent_id, None)
        plan = self._session_plan(profile, conversation)
        argv = tuple(
            runtime.host.launch_argv(program, [*profile.args, *prepared.extra_args, *session_args(profile, plan)])
        )
        placeholders = {"{agentRunDir}": prepared.run_dir, "{projectRoot}": runtime.root}
        env = {key: _substitute(value, placeholders) for key, value in profile.env.items()}
        env.update(prepared.extra_env)
        env.update(
            {
                "IDEA_PROJECT_ID": runtime.id,
                "IDEA_AGENT_ID": agent_id,
                "IDEA_RUN_DIR": prepared.run_dir,
                "IDEA_PROJECT_ROOT": runtime.root,
                TOKEN_ENV_VAR: token,
            }
        )
        self._tokens[agent_id] = token
        cwd = resolve_cwd(profile, prepared.run_dir, runtime.root)
        runtime.orchestrator.agent_launching(agent_id)
        info = await runtime.sessions.start(
            LaunchRequest(argv=argv, cwd=cwd, kind=SessionKind.AGENT, label=name, env=env, agent_id=agent_id)
        )
        if isinstance(plan, Assign) and profile.provider_key is not None and info.is_live:
            self._deps.providers.update(
                runtime.root,
                lambda sessions: sessions.with_entry(
                    conversation, profile.provider_key, plan.session_id, runtime.clock.now_ms()
                ),
            )
        if not info.is_live:
            self._tokens.pop(agent_id, None)
        elif prepared.first_turn:
            runtime.schedule(self._deliver_first_turn(name, prepared.first_turn))
        runtime.diagnostics.beacon(f"[launch] {name} argv={argv[0]} cwd={cwd} reason={reason}")
        return info

    async def _deliver_first_turn(self, name: str, text: str) -> None:
        """`stdin` context injection: once the CLI is ready, it is told to read its context file."""
        try:
            await self._runtime.orchestrator.dispatch(Human(), SubmitHumanInput(name, text), Source.UI)
        except AppError as exc:
            self._runtime.diagnostics.beacon(f"[launch] {name}: first turn not delivered: {exc.message}")

    def _session_plan(self, profile: Profile, conversation: ConversationId) -> SessionPlan:
        engine = None
        if profile.provider_key is not None:
            engine = self._deps.providers.load(self._runtime.root).engine_session_for(
                conversation, profile.provider_key
            )
        return plan_session(profile, engine, assign_id=self._runtime.ids.new_id())

    def _convention_text(self, agent_id: AgentId, name: str, profile: Profile) -> str:
        requests_dir = f"{self._runtime.root}/.ideai/requests/{agent_id}"
        return compose_convention_file(
            ComposeInputs(
                project_root=self._runtime.root,
                agent_id=agent_id,
                agent_name=name,
                uses_mcp=profile.materializes_idea_bridge(),
                orchestration=self._deps.prompts.orchestration_texts(),
                requests_dir="" if profile.materializes_idea_bridge() else requests_dir,
                persona=self._catalogue.persona(agent_id),
                live_state=self._runtime.orchestrator.work_state_rows(excluding=agent_id),
            )
        )

    def _remember_running(self, agent_id: AgentId, node_id: NodeId | None, conversation: ConversationId | None) -> None:
        now = self._runtime.clock.now_ms()
        entry = RunningAgent(agent_id=agent_id, node_id=node_id, conversation_id=conversation, since_ms=now)
        self._deps.running.update(self._runtime.root, lambda running: running.with_agent(entry, now))

    def _session_exited(self, info: SessionInfo) -> None:
        if info.kind is not SessionKind.AGENT or info.agent_id is None:
            return
        agent_id = info.agent_id
        self._tokens.pop(agent_id, None)
        # A CLI that quits by itself can leave daemons behind (Codex's app-server); ending the exited
        # session ends whatever still carries the agent's marker.
        self._runtime.schedule(self._runtime.sessions.terminal(info.id).terminate())
        if not self._closing:
            # Stopped or exited while the project stays open: nothing to resume next time.
            now = self._runtime.clock.now_ms()
            self._deps.running.update(self._runtime.root, lambda running: running.without(agent_id, now))
            leaf = lay.leaf_showing_session(self._runtime.active.root, info.id)
            if leaf is not None and leaf.agent_was_running:
                self._runtime.schedule(self._runtime.mutate(lay.SetAgentWasRunning(leaf.id, False)))
        for listener in list(self._exit_listeners):
            listener(agent_id, info.exit_code)


def _substitute(value: str, placeholders: dict[str, str]) -> str:
    for placeholder, replacement in placeholders.items():
        value = value.replace(placeholder, replacement)
    return value

