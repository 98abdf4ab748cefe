"""Agent processes: the launch pipeline (spec 02 §10), one live session per agent, the launch secrets, what
is done when an agent's CLI ends, and what is remembered so a reopened project can offer to resume them.

Which cell shows an agent is not decided here: that is the placement service (`placement.py`), which calls
`start` and places the session it returns."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, replace

from idea.application.agents.catalogue import AgentCatalogue
from idea.application.agents.convention_file import ComposeInputs, SkillBrief, compose_convention_file
from idea.application.agents.ports import (
    SessionInspector,
    AgentProject,
    BridgeEndpoint,
    LaunchInjection,
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
from idea.application.sign_in import SignInChecker
from idea.domain import layout as lay
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.errors import AppError, ErrorCode
from idea.domain.git.worktrees import WorktreeMissing
from idea.domain.ids import AgentId, ConversationId, NodeId, conversation_for_pair
from idea.domain.launch_secret import TOKEN_ENV_VAR
from idea.domain.mcp_wiring import rendezvous_tool_timeout_ms
from idea.domain.orchestration import Human, Source, SubmitHumanInput
from idea.domain.profile import Assign, Profile, SessionPlan, plan_session, resolve_cwd, session_args
from idea.domain.providers import RunningAgent
from idea.domain.resume_offer import native_resume
from idea.domain.session import SessionInfo, SessionKind

ExitListener = Callable[[AgentId, "int | None"], None]


DELEGATED_LAUNCH_REASONS = frozenset({"launch"})  # idea_launch_agent: an agent started it


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
    sign_in: SignInChecker | None = None  # whether the CLI has credentials (spec 02 §9)
    sessions: SessionInspector | None = None  # the CLIs' own sessions, for the resume offer (spec 05 §11)


@dataclass(frozen=True)
class ResumeCandidate:
    """An agent that was running when the project was last closed (or when IdeA stopped)."""

    agent_id: AgentId
    name: str
    node_id: NodeId | None  # its cell in the active layout, None = it ran in the background
    conversation_id: ConversationId | None
    native_resume: bool = False  # its CLI can resume by id and the id of this conversation is known
    subject: str | None = None  # the first prompt of that session, at most 80 characters
    limited_until_ms: int | None = None  # it was at its usage limit until then


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

    def conversation_of(self, agent_id: AgentId) -> ConversationId | None:
        """The conversation the agent's running CLI carries (its engine session id is kept for it)."""
        return self._conversations.get(agent_id) if self.live(agent_id) is not None else None

    def verify_token(self, agent_id: AgentId, token: str) -> bool:
        expected = self._tokens.get(agent_id)
        return expected is not None and bool(token) and hmac.compare_digest(expected, token)

    async def update_persona(self, agent_id: AgentId, content: str) -> None:
        await self._catalogue.update_persona(agent_id, content)

    def resumable(self) -> list[ResumeCandidate]:
        """Agents that were running at the last close or crash and are not running now, each with whether
        its own session can be resumed, what it was about and whether it was at its usage limit."""
        return [self._described(candidate) for candidate in self._resumable()]

    def _described(self, candidate: ResumeCandidate) -> ResumeCandidate:
        running = self._deps.running.load(self._project.root).by_agent(candidate.agent_id)
        limited = running.limited_until_ms if running is not None else None
        try:
            profile = self.profile_of(candidate.agent_id)
            engine = self._engine_id(profile, candidate.conversation_id or conversation_for_pair(candidate.agent_id, None))
        except AppError:  # a profile that cannot be read: offered without its own session (original rule)
            return replace(candidate, limited_until_ms=limited)
        strategy = profile.session
        can_resume = strategy is not None and bool(strategy.resume_flag or strategy.resume_args)
        subject = None
        inspector = self._deps.sessions
        if engine is not None and inspector is not None:
            run_dir = f"{self._project.root}/.ideai/run/{candidate.agent_id}"
            subject = inspector.subject(profile, run_dir, engine)
        return replace(
            candidate, native_resume=native_resume(can_resume, engine), subject=subject, limited_until_ms=limited
        )

    def _engine_id(self, profile: Profile, conversation: ConversationId) -> str | None:
        if profile.provider_key is None:
            return None
        return self._deps.providers.load(self._project.root).engine_session_for(conversation, profile.provider_key)

    def _resumable(self) -> list[ResumeCandidate]:
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

    async def start(
        self, agent_id: AgentId, conversation_id: ConversationId | None, reason: str, *, fresh: bool = False
    ) -> SessionInfo:
        """Start the agent's CLI in a new terminal session (no cell). A program that cannot start gives a
        FAILED session; a CLI missing from PATH raises AppError PROCESS before anything is written."""
        project = self._project
        entry = self._catalogue.agent(agent_id)
        name = entry.name
        profile = self.profile_of(agent_id)
        program = self._program(profile)
        self._check_sign_in(name, profile, reason)
        worktree = self._worktree_root(entry)  # None: it works in the main tree
        work_root = worktree or project.root
        token = self._deps.new_token()
        permissions = self._deps.permissions.for_launch(  # fail-closed
            project.root, agent_id, name, profile, work_root=worktree,
            shared_git_dir=self._shared_git_dir() if worktree else None,
        )
        conversation = conversation_id or conversation_for_pair(agent_id, None)
        knowledge = await project.knowledge.injection(agent_id, conversation)
        prepared = self._prepare_run_dir(entry, profile, token, permissions, worktree, knowledge)
        plan = self._session_plan(profile, conversation, fresh=fresh)
        argv = permissions.wrap((program, *profile.args, *prepared.extra_args, *session_args(profile, plan)))
        self._tokens[agent_id] = token
        self._conversations[agent_id] = conversation
        cwd = resolve_cwd(profile, prepared.run_dir, work_root)
        project.orchestrator.agent_launching(agent_id)
        env = self._environment(agent_id, profile, prepared, token, work_root)
        info = await project.sessions.start(
            LaunchRequest(argv=argv, cwd=cwd, kind=SessionKind.AGENT, label=name, env=env, agent_id=agent_id)
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

    def _check_sign_in(self, name: str, profile: Profile, reason: str) -> None:
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

    def _worktree_root(self, entry: AgentEntry) -> str | None:
        """The agent's own worktree when it runs in one (spec 07 §2): its project root, which must still be
        there (WorktreeMissing otherwise, before anything is written)."""
        worktree = entry.worktree
        if worktree is None:
            return None
        if not self._project.host.is_dir(worktree.path):
            raise WorktreeMissing(entry.agent_id, entry.name, worktree.path, worktree.branch)
        return worktree.path

    def _prepare_run_dir(
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

    def _environment(
        self, agent_id: AgentId, profile: Profile, prepared: PreparedRunDir, token: str, work_root: str
    ) -> dict[str, str]:
        """The profile's variables (placeholders replaced; `{projectRoot}` is the agent's own worktree when it
        runs in one), the run dir's, and the agent's identity."""
        project = self._project
        placeholders = {"{agentRunDir}": prepared.run_dir, "{projectRoot}": work_root}
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

    def _session_exited(self, info: SessionInfo) -> None:
        if info.kind is not SessionKind.AGENT or info.agent_id is None:
            return
        agent_id = info.agent_id
        self._tokens.pop(agent_id, None)
        self._conversations.pop(agent_id, None)
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
