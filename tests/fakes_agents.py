"""In-memory fakes of the agents ports (stores, run-dir writer, prompts, CLI detection)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from idea.application.agents.convention_file import OrchestrationTexts
from idea.application.agents.ports import Detection, PatternProblem, PatternReading, PreparedRunDir, RunDirRequest
from idea.domain.agent import AgentManifest, validate_persona_path
from idea.domain.errors import not_found
from idea.domain.profile import Profile
from idea.domain.profile_book import ProfileBook
from idea.domain.profile_parts import RateLimitPattern
from idea.domain.providers import ProviderSessions, RunningAgents
from idea.domain.template import TemplateIndex, TemplateRecord
from idea.infrastructure.stores.profiles import reference_profiles_path


def shipped_profiles() -> list[Profile]:
    import json

    return [Profile.from_json(p) for p in json.loads(reference_profiles_path().read_text())]


class MemoryProfileStore:
    def __init__(self, book: ProfileBook | None = None) -> None:
        self.book = book

    def load(self) -> ProfileBook | None:
        return self.book

    def save(self, book: ProfileBook) -> None:
        self.book = book

    def update(self, change: Callable[[ProfileBook], ProfileBook]) -> ProfileBook:
        self.book = change(self.book or ProfileBook())
        return self.book

    def reference_profiles(self) -> list[Profile]:
        return shipped_profiles()


class MemoryManifestStore:
    def __init__(self) -> None:
        self.manifests: dict[str, AgentManifest] = {}

    def load(self, root: str) -> AgentManifest:
        return self.manifests.get(root, AgentManifest())

    def save(self, root: str, manifest: AgentManifest) -> None:
        self.manifests[root] = manifest

    def update(self, root: str, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest:
        self.manifests[root] = change(self.load(root))
        return self.manifests[root]


class MemoryPersonaStore:
    def __init__(self) -> None:
        self.files: dict[tuple[str, str], str] = {}
        self.trashed: list[tuple[str, str]] = []

    def read(self, root: str, md_path: str) -> str | None:
        validate_persona_path(md_path)
        return self.files.get((root, md_path))

    def write(self, root: str, md_path: str, body: str) -> None:
        validate_persona_path(md_path)
        self.files[(root, md_path)] = body

    def trash(self, root: str, md_path: str, at_ms: int) -> str | None:
        body = self.files.pop((root, md_path), None)
        if body is None:
            return None
        kept = f"agents/.deleted/{md_path.removeprefix('agents/').removesuffix('.md')}-{at_ms}.md"
        self.files[(root, kept)] = body
        self.trashed.append((root, kept))
        return kept


class MemoryTemplateStore:
    def __init__(self) -> None:
        self.index = TemplateIndex()
        self.bodies: dict[tuple[str, int], str] = {}

    def load_index(self) -> TemplateIndex:
        return self.index

    def read_body(self, template_id: str) -> str:
        record = self.index.by_id(template_id)
        if record is None:
            raise not_found(f"template {template_id} has no body")
        return self.bodies[(template_id, record.version)]

    def read_body_at(self, template_id: str, version: int) -> str | None:
        return self.bodies.get((template_id, version))

    def save(self, record: TemplateRecord, body: str) -> None:
        self.index = self.index.with_template(record)
        self.bodies[(record.id, record.version)] = body

    def delete(self, template_id: str) -> None:
        self.index = self.index.without(template_id)


class MemoryProviderStore:
    def __init__(self) -> None:
        self.documents: dict[str, ProviderSessions] = {}

    def load(self, root: str) -> ProviderSessions:
        return self.documents.get(root, ProviderSessions())

    def save(self, root: str, sessions: ProviderSessions) -> None:
        self.documents[root] = sessions

    def update(self, root: str, change: Callable[[ProviderSessions], ProviderSessions]) -> ProviderSessions:
        self.documents[root] = change(self.load(root))
        return self.documents[root]


class MemoryRunningStore:
    def __init__(self) -> None:
        self.documents: dict[str, RunningAgents] = {}

    def load(self, root: str) -> RunningAgents:
        return self.documents.get(root, RunningAgents())

    def save(self, root: str, running: RunningAgents) -> None:
        self.documents[root] = running

    def update(self, root: str, change: Callable[[RunningAgents], RunningAgents]) -> RunningAgents:
        self.documents[root] = change(self.load(root))
        return self.documents[root]


class RecordingRunDirWriter:
    def __init__(self) -> None:
        self.requests: list[RunDirRequest] = []
        self.first_turn: str | None = None  # what a `stdin` injection profile would be told first
        self.retargeted: list[tuple[str, str]] = []  # (project root, endpoint) of each retarget
        self.drifted: list[str] = []  # what retarget reports as rewritten
        self.session_assignable = True  # False: as for a Gemini CLI that will restart after its trust question

    def retarget(self, project_root: str, endpoint: str) -> list[str]:
        self.retargeted.append((project_root, endpoint))
        return list(self.drifted)

    def prepare(self, request: RunDirRequest) -> PreparedRunDir:
        self.requests.append(request)
        run_dir = f"{request.project_root}/.ideai/run/{request.agent_id}"
        return PreparedRunDir(
            run_dir=run_dir,
            cwd=run_dir,
            context_path=f"{run_dir}/CONTEXT.md",
            extra_args=(),
            extra_env={"FROM_RUN_DIR": "1"},
            first_turn=self.first_turn,
            session_assignable=self.session_assignable,
        )


class StaticPrompts:
    def orchestration_texts(self) -> OrchestrationTexts:
        return OrchestrationTexts(mcp="# IdeA orchestration\n\nYou are {agentName} (MCP).", file="# IdeA orchestration\n\nYou are {agentName} (files).")


class ScriptedLimitPatterns:
    """`LimitPatternReader` with scripted answers: `problems` by pattern text (every other pattern is fine),
    `readings` by the text read (any other text: no match)."""

    def __init__(
        self,
        problems: Mapping[str, PatternProblem] | None = None,
        readings: Mapping[str, PatternReading] | None = None,
        now_ms: int = 0,
    ) -> None:
        self.problems = dict(problems or {})
        self.readings = dict(readings or {})
        self.now_ms = now_ms
        self.read_texts: list[str] = []

    def problem(self, pattern: RateLimitPattern) -> PatternProblem | None:
        return self.problems.get(pattern.pattern)

    def read(self, pattern: RateLimitPattern, text: str) -> PatternReading:
        self.read_texts.append(text)
        return self.readings.get(text, PatternReading(self.now_ms))


class ScriptedDetector:
    def __init__(self, found: Mapping[str, str] | None = None) -> None:
        self.found = dict(found or {})
        self.calls: list[str] = []

    def detect(self, command_line: str, env: Mapping[str, str] | None = None) -> Detection:
        self.calls.append(command_line)
        program = command_line.split()[0]
        if program in self.found:
            return Detection(command_line, f"/usr/bin/{program}", version=self.found[program])
        return Detection(command_line, None, error=f"{program} not found on PATH")
