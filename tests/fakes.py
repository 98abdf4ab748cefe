"""In-memory fakes of the application ports, for fast unit tests of the use cases."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence

from idea.application.ports import Unsubscribe
from idea.domain.errors import AppError, ErrorCode
from idea.domain.layout import DecodedDocument, LayoutDocument
from idea.domain.project import ProjectRegistry
from idea.domain.terminal import SpawnSpec
from idea.domain.workspace import Settings, Workspace


class FakeClock:
    def __init__(self, now_ms: int = 1_781_368_615_582) -> None:
        self.now = now_ms

    def now_ms(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


class SequentialIds:
    """Readable, deterministic UUIDs: 00000000-0000-4000-8000-000000000001, ..."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def new_id(self) -> str:
        return f"00000000-0000-4000-8000-{next(self._counter):012d}"


class RecordingEvents:
    def __init__(self) -> None:
        self.events: list[object] = []

    def publish(self, event: object) -> None:
        self.events.append(event)

    def of_type(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


class RecordingDiagnostics:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def beacon(self, message: str) -> None:
        self.lines.append(message)


class FakeHost:
    def __init__(self, env: dict[str, str] | None = None, shell: str = "/bin/bash") -> None:
        self.env = env or {"PATH": "/usr/bin:/bin", "HOME": "/home/dev", "LANG": "en_US.UTF-8"}
        self.shell = shell
        self.installed: set[str] = {"claude", "codex", "gemini", "aider"}
        self.scratch_dirs: list[str] = []

    def environ(self) -> dict[str, str]:
        return dict(self.env)

    def scratch_dir(self, prefix: str) -> str:
        self.scratch_dirs.append(f"/tmp/{prefix}{len(self.scratch_dirs) + 1}")
        return self.scratch_dirs[-1]

    def login_shell(self) -> str:
        return self.shell

    def is_frozen(self) -> bool:
        return False

    def which(self, program: str, path: str | None) -> str | None:
        if program.startswith("/"):
            return program
        return f"/usr/bin/{program}" if program in self.installed else None

    def launch_argv(self, program: str, args: Sequence[str]) -> list[str]:
        return [program, *args]

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)  # tests give agents real worktree folders (tmp_path)


class FakeTerminal:
    """A terminal whose process is simulated: tests decide when it prints and when it exits."""

    _pids = itertools.count(4000)

    def __init__(self, session_id: str, project_id: str, fail_with: str | None = None) -> None:
        self._session_id = session_id
        self.project_id = project_id
        self.spec: SpawnSpec | None = None
        self.written: list[str] = []
        self.screen = ""
        self.bracketed = False
        self._pid: int | None = None
        self._exit_code: int | None = None
        self._exited = False
        self.terminated = False
        self._fail_with = fail_with
        self._output: list[Callable[[bytes], None]] = []
        self._exit: list[Callable[[int | None], None]] = []
        self._title: list[Callable[[str], None]] = []

    @property
    def session_id(self) -> str:
        return self._session_id

    async def start(self, spec: SpawnSpec) -> int:
        self.spec = spec
        if self._fail_with:
            raise AppError(ErrorCode.PROCESS, self._fail_with)
        self._pid = next(self._pids)
        return self._pid

    async def write_text(self, text: str) -> None:
        if self._exited:
            raise AppError(ErrorCode.PROCESS, "the terminal's process has exited")
        self.written.append(text)

    async def resize(self, columns: int, lines: int) -> None:
        pass

    async def screen_text(self) -> str:
        return self.screen

    def bracketed_paste_enabled(self) -> bool:
        return self.bracketed

    def pid(self) -> int | None:
        return self._pid

    def foreground_pid(self) -> int | None:
        return self._pid

    def exit_code(self) -> int | None:
        return self._exit_code

    def has_exited(self) -> bool:
        return self._exited

    async def terminate(self, grace_ms: int = 3000) -> None:
        self.terminated = True
        self.exit(-15)

    def exit(self, code: int | None) -> None:
        if self._exited:
            return
        self._exited = True
        self._exit_code = code
        for callback in list(self._exit):
            callback(code)

    def emit_output(self, data: bytes) -> None:
        for callback in list(self._output):
            callback(data)

    def emit_title(self, title: str) -> None:
        for callback in list(self._title):
            callback(title)

    def on_output(self, callback: Callable[[bytes], None]) -> Unsubscribe:
        return _subscribe(self._output, callback)

    def on_exit(self, callback: Callable[[int | None], None]) -> Unsubscribe:
        return _subscribe(self._exit, callback)

    def on_title(self, callback: Callable[[str], None]) -> Unsubscribe:
        return _subscribe(self._title, callback)


def _subscribe(callbacks: list, callback: Callable) -> Unsubscribe:
    callbacks.append(callback)
    return lambda: callbacks.remove(callback) if callback in callbacks else None


class FakeTerminalFactory:
    def __init__(self) -> None:
        self.terminals: dict[str, FakeTerminal] = {}
        self.released: list[str] = []
        self.fail_next: str | None = None

    def create(self, session_id: str, project_id: str) -> FakeTerminal:
        terminal = FakeTerminal(session_id, project_id, fail_with=self.fail_next)
        self.fail_next = None
        self.terminals[session_id] = terminal
        return terminal

    def release(self, session_id: str) -> None:
        self.released.append(session_id)


class MemoryLayoutStore:
    def __init__(self) -> None:
        self.documents: dict[str, LayoutDocument] = {}
        self.saves = 0
        self.load_error: Exception | None = None

    def load(self, root: str) -> DecodedDocument | None:
        if self.load_error is not None:
            raise self.load_error
        document = self.documents.get(root)
        return DecodedDocument(document, ()) if document else None

    def save(self, root: str, document: LayoutDocument) -> None:
        self.documents[root] = document
        self.saves += 1


class MemoryProjectFolder:
    def __init__(self, roots: set[str] | None = None) -> None:
        self.roots = roots if roots is not None else {"/work/demo"}
        self.scaffolded: list[str] = []

    def resolve_root(self, path: str) -> str:
        root = path.rstrip("/") or "/"
        if root not in self.roots:
            raise AppError(ErrorCode.NOT_FOUND, f"The project folder {path} does not exist.")
        return root

    def ensure_scaffold(self, root: str) -> None:
        self.scaffolded.append(root)

    def remove_write_leftovers(self, root: str) -> list[str]:
        return []


class MemoryUserData:
    def __init__(self) -> None:
        self.settings = Settings()
        self.projects = ProjectRegistry()
        self.workspace = Workspace()

    def load_settings(self) -> Settings:
        return self.settings

    def save_settings(self, settings: Settings) -> None:
        self.settings = settings

    def load_projects(self) -> ProjectRegistry:
        return self.projects

    def save_projects(self, registry: ProjectRegistry) -> None:
        self.projects = registry

    def load_workspace(self) -> Workspace:
        return self.workspace

    def save_workspace(self, workspace: Workspace) -> None:
        self.workspace = workspace
