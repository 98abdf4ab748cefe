"""Ports of the agents use cases: the project they run in, the stores of profiles, manifests, personas,
templates and runtime bookkeeping, the run-dir writer, and the prompt texts.

Adapters live in idea.infrastructure.stores and idea.infrastructure.agents. Every load raises
CorruptFileError (the file kept aside as `<name>.corrupt-<ms>`) when a file exists but cannot be read;
every write is atomic. `update` applies a change under the store's lock for that file and saves the result.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from idea.application.agents.convention_file import OrchestrationTexts
from idea.application.ports import Clock, Diagnostics, Host, IdGenerator
from idea.application.sessions import SessionRegistry
from idea.domain import layout as lay
from idea.domain.agent import AgentManifest
from idea.domain.ids import AgentId, ConversationId, ProjectId, SessionId
from idea.domain.knowledge.memory import MemoryPointerLine
from idea.domain.knowledge.skill import Skill
from idea.domain.orchestration.commands import Command, Outcome, Requester, Source
from idea.domain.orchestration.live_state import LiveStateRow
from idea.domain.profile import Profile
from idea.domain.profile_book import ProfileBook
from idea.domain.profile_parts import RateLimitPattern
from idea.domain.providers import ProviderSessions, RunningAgents
from idea.domain.template import TemplateIndex, TemplateRecord
from idea.domain.workspace import Settings


class LaunchNotices(Protocol):
    """What the agent services tell and ask the project's orchestration core."""

    def agent_launching(self, agent_id: AgentId) -> None:
        """Before the CLI starts: a task arriving now waits for its prompt (cold start)."""
        ...

    def agent_launched(self, agent_id: AgentId) -> None:
        """The CLI runs and is placed."""
        ...

    def work_state_rows(self, excluding: AgentId) -> tuple[LiveStateRow, ...]:
        """The other agents' live-state rows, for the convention file."""
        ...

    async def dispatch(self, requester: Requester, command: Command, source: Source) -> Outcome: ...


class LaunchInjection(Protocol):
    """What a launch gives an agent from the project's knowledge (spec 04 §1): bounded, distilled or a pointer,
    never a transcript."""

    @property
    def project_context(self) -> str: ...

    @property
    def memory(self) -> tuple[MemoryPointerLine, ...]: ...

    @property
    def skills(self) -> tuple[Skill, ...]:
        """The skills assigned to the agent."""
        ...

    @property
    def handoff(self) -> str:
        """The bounded handoff of the launch conversation, for `# Conversation resume`."""
        ...


class LaunchKnowledge(Protocol):
    """The project's knowledge as a launch reads it (`ProjectKnowledge` is one)."""

    async def injection(self, agent_id: AgentId, conversation: ConversationId | None) -> LaunchInjection:
        """Never raises: a part that cannot be read is left out (and logged)."""
        ...

    async def standing_parts(self, agent_id: AgentId) -> LaunchInjection | None:
        """The parts of `injection` that stay as they are while the agent runs unless someone changes them —
        the project context and the agent's assigned skills (memory and handoff are left empty) — read again
        to tell whether a running agent's context changed. None when they cannot be read."""
        ...


class AgentProject(Protocol):
    """What the agent services (runner, placement) use of their open project; `ProjectRuntime` is one."""

    @property
    def id(self) -> ProjectId: ...

    @property
    def root(self) -> str: ...

    @property
    def host(self) -> Host: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def ids(self) -> IdGenerator: ...

    @property
    def diagnostics(self) -> Diagnostics: ...

    @property
    def sessions(self) -> SessionRegistry: ...

    @property
    def orchestrator(self) -> LaunchNotices: ...

    @property
    def knowledge(self) -> LaunchKnowledge: ...

    @property
    def active(self) -> lay.Layout:
        """The active layout (committed)."""
        ...

    def settings(self) -> Settings: ...

    def schedule(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run follow-up work on the core loop."""
        ...

    async def change_layout(self, ops: Sequence[lay.LayoutOp]) -> list[lay.Applied]:
        """Apply operations to the active layout as one saved change."""
        ...

    def release_unshown(self, session_id: SessionId) -> None:
        """Forget an ended session once no layout shows it."""
        ...

    def report_problem(self, message: str) -> None:
        """Something the person must know about this project (shown by the UI)."""
        ...


class ProfileStore(Protocol):
    """`<user-data>/profiles.json` and the shipped reference profiles."""

    def load(self) -> ProfileBook | None:
        """The stored profiles, or None when profiles.json does not exist yet (the first-run wizard)."""
        ...

    def save(self, book: ProfileBook) -> None: ...

    def update(self, change: Callable[[ProfileBook], ProfileBook]) -> ProfileBook:
        """Apply `change` to the stored book (an empty one when absent) and save it."""
        ...

    def reference_profiles(self) -> list[Profile]:
        """The four reference profiles shipped in idea/resources/profiles/reference-profiles.json."""
        ...


class ManifestStore(Protocol):
    """`.ideai/agents.json` of a project, by project root."""

    def load(self, root: str) -> AgentManifest:
        """The manifest; an empty one when the file does not exist."""
        ...

    def save(self, root: str, manifest: AgentManifest) -> None: ...

    def update(self, root: str, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest: ...


class PersonaStore(Protocol):
    """Persona Markdown at `.ideai/<mdPath>`; paths outside `.ideai/agents/` are refused (AppError INVALID)."""

    def read(self, root: str, md_path: str) -> str | None:
        """The persona text, None when the file does not exist."""
        ...

    def write(self, root: str, md_path: str, body: str) -> None: ...

    def trash(self, root: str, md_path: str, at_ms: int) -> str | None:
        """Move the persona to `.ideai/agents/.deleted/<slug>-<atMs>.md` (never destroyed).

        Returns the new path relative to `.ideai/`, or None when there was no file.
        """
        ...


class TemplateStore(Protocol):
    """`<user-data>/templates/`: index.json, current bodies and the last previous bodies."""

    def load_index(self) -> TemplateIndex:
        """The index; on first use (no index.json) the starter templates are installed first."""
        ...

    def read_body(self, template_id: str) -> str:
        """The current body; AppError NOT_FOUND when the template has none."""
        ...

    def read_body_at(self, template_id: str, version: int) -> str | None:
        """The body as it was at `version` (the current one included), None when no longer kept."""
        ...

    def save(self, record: TemplateRecord, body: str) -> None:
        """Store `record` (already revised with TemplateRecord.revised) and its body.

        When the version moves on, the previous body is kept as `<id>.v<previous>.md`; at most
        MAX_KEPT_PREVIOUS_VERSIONS previous bodies are kept.
        """
        ...

    def delete(self, template_id: str) -> None:
        """Remove the template from the index and its bodies; agents keep their personas."""
        ...


class ProviderSessionStore(Protocol):
    """`.ideai/providers.json`: (conversation, provider) -> the CLI's own session id."""

    def load(self, root: str) -> ProviderSessions: ...

    def save(self, root: str, sessions: ProviderSessions) -> None: ...

    def update(self, root: str, change: Callable[[ProviderSessions], ProviderSessions]) -> ProviderSessions: ...


class RunningAgentsStore(Protocol):
    """`.ideai/running.json`: agents running at the last snapshot, rewritten at each launch and exit."""

    def load(self, root: str) -> RunningAgents: ...

    def save(self, root: str, running: RunningAgents) -> None: ...

    def update(self, root: str, change: Callable[[RunningAgents], RunningAgents]) -> RunningAgents: ...


@dataclass(frozen=True)
class BridgeEndpoint:
    """Where the agent's bridge and hook relay connect, and the secret of this launch (spec 03 §3.3)."""

    endpoint: str  # absolute path of the project's socket
    token: str


@dataclass(frozen=True)
class RunDirRequest:
    project_root: str  # where `.ideai/` is: the run dir goes under it
    project_id: str
    agent_id: str
    profile: Profile
    convention_text: str  # compose_convention_file(...)
    bridge: BridgeEndpoint | None  # None: no MCP declaration and no hooks are written
    tool_timeout_ms: int  # rendezvous_tool_timeout_ms(window, ceiling)
    claude_permission_settings: Mapping[str, Any] = field(default_factory=dict)  # projector keys (spec 06 §5)
    codex_sandbox_mode: str | None = None  # from the permission projector, only when a policy exists
    trust_run_dir: bool = False  # record the run dir as trusted in the user's CLI configuration
    codex_approval_policy: str | None = None
    sandbox_plan: Mapping[str, Any] | None = None  # `sandbox-plan.json` for `idea sandbox-exec` (spec 06 §8)
    permission_args: tuple[str, ...] = ()  # the CLI's own permission arguments (spec 06 §6)
    work_root: str | None = None  # the agent's own worktree, its project root (spec 07 §2); None: project_root


@dataclass(frozen=True)
class PreparedRunDir:
    """What the launch adds to the profile's own command line and environment."""

    run_dir: str
    cwd: str
    context_path: str  # absolute path of the composed context file
    extra_args: tuple[str, ...]  # injection and MCP flag arguments, after the profile's args
    extra_env: Mapping[str, str]  # context/MCP variables, `home_env` (CODEX_HOME), MCP_TOOL_TIMEOUT
    first_turn: str | None  # `stdin` injection: the first message to deliver once the CLI is ready
    warnings: tuple[str, ...] = ()  # e.g. a broken co-owned file kept aside and regenerated, for a beacon
    # False: the CLI will restart itself once it has started a session (Gemini after the person trusts its run
    # dir), so a session id IdeA assigns would then be refused as existing: it picks its own, which its hooks
    # tell IdeA. A resume is unaffected.
    session_assignable: bool = True


class RunDirWriter(Protocol):
    def prepare(self, request: RunDirRequest) -> PreparedRunDir:
        """Create `.ideai/run/<agentId>/` (0700) and write every file the profile needs (spec 02 §8, §12-§13).

        Also creates `.ideai/requests/<agentId>/{in,out}/` for file-protocol profiles and links the Codex
        credentials. Raises AppError when a file cannot be written; files already written are left for
        inspection.
        """
        ...

    def retarget(self, project_root: str, endpoint: str) -> list[str]:
        """Point the IdeA entries of the project's existing run dirs (bridge and hook relay declarations)
        at this IdeA's executable and `endpoint` when they drifted; returns the files rewritten. Never raises."""
        ...


@dataclass(frozen=True)
class Detection:
    """What running a profile's detect command found."""

    command: str
    path: str | None  # where the program was found on PATH, None when absent
    version: str | None = None
    error: str | None = None

    @property
    def found(self) -> bool:
        return self.path is not None and self.error is None

    def describe(self) -> str:
        if self.path is None:
            return "not found"
        if self.error:
            return f"error: {self.error}"
        return f"found {self.version}"


class CliDetector(Protocol):
    def detect(self, command_line: str, env: Mapping[str, str] | None = None) -> Detection:
        """Run `command_line` without a shell and with a deadline; its first output line is the version."""
        ...


@dataclass(frozen=True)
class PatternProblem:
    """Why level 2 of limit detection could not use a `rateLimitPattern`: the expression does not compile
    (`regex_error`, the engine's words with the position), or it has no group named by `resetCapture`."""

    regex_error: str | None = None
    missing_capture: str | None = None


@dataclass(frozen=True)
class PatternReading:
    """What a `rateLimitPattern` finds in a text, read as the limits service reads the CLI's output."""

    now_ms: int
    matched: str | None = None  # the text the pattern matched; None: no match
    reset_text: str | None = None  # what the reset capture group caught
    resets_at_ms: int | None = None  # the reset time `reset_text` names, by the limits' reset-time parser
    resets_at: str = ""  # that time as the limit badges write it ("15:00", "Jun 21 15:00")


class LimitPatternReader(Protocol):
    """Level 2 of usage-limit detection (spec 05 §6.2, §7) applied on request: the regular expression engine
    and the reset-time parser live in the infrastructure."""

    def problem(self, pattern: RateLimitPattern) -> PatternProblem | None:
        """Why the limits service could not use `pattern`; None when it can."""
        ...

    def read(self, pattern: RateLimitPattern, text: str) -> PatternReading:
        """`pattern` searched in `text` (control sequences removed, blanks collapsed), now."""
        ...


class PromptLibrary(Protocol):
    def orchestration_texts(self) -> OrchestrationTexts:
        """Section 2 of the convention file: idea/resources/prompts/orchestration_{mcp,file}.md."""
        ...


class SessionInspector(Protocol):
    """Read-only look at a CLI's own session files (spec 05 §4)."""

    def subject(self, profile: Profile, run_dir: str, engine_session_id: str) -> str | None:
        """The first prompt of that session, at most 80 characters; None when it cannot be found."""
        ...
