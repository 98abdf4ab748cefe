"""Agent processes: the launch pipeline (spec 02 §10), one live session per agent, the launch secrets, what
is done when an agent's CLI ends, and what is remembered so a reopened project can offer to resume them.

Which cell shows an agent is not decided here: that is the placement service (`placement.py`), which calls
`start` and places the session it returns."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.launch_context import ContextChange, LaunchContexts, context_of
from idea.application.agents.launch_deps import AgentLaunchDeps
from idea.application.agents.launch_preparation import LaunchPreparation
from idea.application.agents.ports import AgentProject
from idea.application.agents.resume_candidates import ResumeCandidates
from idea.application.orchestrator.ports import LiveAgent
from idea.application.ports import Unsubscribe
from idea.application.sessions import LaunchRequest
from idea.application.sign_in import SignInCheck
from idea.domain import layout as lay
from idea.domain.agent import AgentManifest
from idea.domain.agent_states.resume_offer import ResumeCandidate
from idea.domain.errors import AppError
from idea.domain.ids import AgentId, ConversationId, NodeId, conversation_for_pair
from idea.domain.orchestration.commands import Human, Source, SubmitHumanInput
from idea.domain.profile import Profile
from idea.domain.profile_launch import Assign, NoSession, SessionPlan, plan_session, resolve_cwd, session_args
from idea.domain.providers import RunningAgent
from idea.domain.session import SessionInfo, SessionKind

ExitListener = Callable[[AgentId, "int | None"], None]


class AgentRunner:
    def __init__(
        self,
        project: AgentProject,
        catalogue: AgentCatalogue,
        deps: AgentLaunchDeps,
        shared_git_dir: Callable[[], str | None] = lambda: None,
    ) -> None:
        self._project = project
        self._catalogue = catalogue
        self._deps = deps
        self._shared_git_dir = shared_git_dir  # the repository's git folder, which a worktree's commits go to
        self._tokens: dict[AgentId, str] = {}
        self._conversations: dict[AgentId, ConversationId] = {}  # the conversation each running CLI carries
        self._exit_listeners: list[ExitListener] = []
        self._closing = False
        self._prepare = LaunchPreparation(project, catalogue, deps)
        self._contexts = LaunchContexts(project, catalogue, deps.profiles)
        self._resume_candidates = ResumeCandidates(
            project,
            catalogue,
            deps.running,
            deps.providers,
            deps.sessions,
            self.profile_of,
            lambda agent_id: self.live(agent_id) is not None,
        )
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

    def sign_in_check(self, agent_id: AgentId) -> SignInCheck | None:
        """Whether the agent's CLI has credentials; None when IdeA cannot tell (aider, custom commands)."""
        checker = self._deps.sign_in
        return checker.check(self.profile_of(agent_id)) if checker is not None else None

    async def signed_out(self) -> Mapping[AgentId, SignInCheck]:
        """The agents whose CLI has no credentials (spec 02 §13.3 rule 5): the Agents panel marks them."""
        found = {}
        for agent in self.manifest().agents:
            if self._deps.profiles.known().by_id(agent.profile_id) is None:
                continue  # a missing profile says so itself
            check = self.sign_in_check(agent.agent_id)
            if check is not None and not check.signed_in:
                found[agent.agent_id] = check
        return found

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

    def conversation_of(self, agent_id: AgentId) -> ConversationId | None:
        """The conversation the agent's running CLI carries (its engine session id is kept for it)."""
        return self._conversations.get(agent_id) if self.live(agent_id) is not None else None

    def verify_token(self, agent_id: AgentId, token: str) -> bool:
        expected = self._tokens.get(agent_id)
        return expected is not None and bool(token) and hmac.compare_digest(expected, token)

    async def update_persona(self, agent_id: AgentId, content: str) -> None:
        await self._catalogue.update_persona(agent_id, content)

    async def context_changes(self) -> Mapping[AgentId, ContextChange]:
        """The running agents whose context (persona, skills, project context, profile) changed since they
        started: "context changed — restart to apply"."""
        return await self._contexts.changes()

    def resumable(self) -> list[ResumeCandidate]:
        """Agents that were running at the last close or crash and are not running now, each with whether
        its own session can be resumed, what it was about and whether it was at its usage limit."""
        return self._resume_candidates.list()

    # -- processes --

    async def start(
        self, agent_id: AgentId, conversation_id: ConversationId | None, reason: str, *, fresh: bool = False
    ) -> SessionInfo:
        """Start the agent's CLI in a new terminal session (no cell). A program that cannot start gives a
        FAILED session; a CLI missing from PATH raises AppError PROCESS before anything is written."""
        project = self._project
        entry = self._catalogue.agent(agent_id)
        name = entry.name
        profile = self.profile_of(agent_id)
        program = self._prepare.program(profile)
        self._prepare.check_sign_in(name, profile, reason)
        worktree = self._prepare.worktree_root(entry)  # None: it works in the main tree
        work_root = worktree or project.root
        token = self._deps.new_token()
        permissions = self._deps.permissions.for_launch(  # fail-closed
            project.root, agent_id, name, profile, work_root=worktree,
            shared_git_dir=self._shared_git_dir() if worktree else None,
        )
        conversation = conversation_id or conversation_for_pair(agent_id, None)
        knowledge = await project.knowledge.injection(agent_id, conversation)
        prepared = self._prepare.prepare_run_dir(entry, profile, token, permissions, worktree, knowledge)
        # The persona the context file was composed with (nothing was awaited since).
        launched_with = context_of(self._catalogue.persona(agent_id), profile, knowledge)
        plan = self._session_plan(profile, conversation, fresh=fresh)
        if isinstance(plan, Assign) and not prepared.session_assignable:
            plan = NoSession()
        args = [*profile.args, *prepared.extra_args, *session_args(profile, plan)]
        argv = permissions.wrap(project.host.launch_argv(program, args))  # a Windows .cmd shim through node
        self._tokens[agent_id] = token
        self._conversations[agent_id] = conversation
        cwd = resolve_cwd(profile, prepared.run_dir, work_root)
        project.orchestrator.agent_launching(agent_id)
        env = self._prepare.environment(agent_id, profile, prepared, token, work_root)
        info = await project.sessions.start(
            LaunchRequest(argv=argv, cwd=cwd, kind=SessionKind.AGENT, label=name, env=env, agent_id=agent_id,
                          shift_enter=profile.newline_sequence or None)
        )
        if info.is_live:
            self._contexts.launched(agent_id, info.id, launched_with)
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

    def note_limit(self, agent_id: AgentId, limited_until_ms: int | None) -> None:
        """Informational, for the resume offer: until when the agent was at its usage limit."""
        now = self._project.clock.now_ms()
        try:
            self._deps.running.update(
                self._project.root, lambda running: running.with_limit(agent_id, limited_until_ms, now)
            )
        except (AppError, OSError) as exc:
            self._project.diagnostics.beacon(f"[limit] running.json not updated agent={agent_id}: {exc}")

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

    def _session_plan(self, profile: Profile, conversation: ConversationId, *, fresh: bool = False) -> SessionPlan:
        """The CLI's own session of this conversation, by its id (never `--continue`); `fresh`: a new one."""
        engine = None
        if profile.provider_key is not None and not fresh:
            engine = self._deps.providers.load(self._project.root).engine_session_for(
                conversation, profile.provider_key
            )
        return plan_session(profile, engine, assign_id=self._project.ids.new_id())

    def _session_exited(self, info: SessionInfo) -> None:
        if info.kind is not SessionKind.AGENT or info.agent_id is None:
            return
        agent_id = info.agent_id
        self._tokens.pop(agent_id, None)
        self._conversations.pop(agent_id, None)
        self._contexts.ended(agent_id, info.id)
        # A CLI that quits by itself can leave daemons behind (Codex's app-server); ending the exited
        # session ends whatever still carries the agent's marker.
        self._project.schedule(self._project.sessions.terminal(info.id).terminate())
        if not self._closing:
            self.forget_running(agent_id)  # stopped or exited while the project stays open
        for listener in list(self._exit_listeners):
            listener(agent_id, info.exit_code)
