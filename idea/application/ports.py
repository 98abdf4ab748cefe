"""Ports: what the use cases need from the outside world, as typing.Protocols.

Adapters live in idea.infrastructure (files, PTYs, sockets) and idea.ui (the Qt terminal widget); the
composition root (idea.bootstrap) wires them. Tests use the fakes in tests/fakes.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from idea.domain.ids import ProjectId, SessionId
from idea.domain.layout import DecodedDocument, LayoutDocument
from idea.domain.project import ProjectRegistry
from idea.domain.terminal import SpawnSpec
from idea.domain.workspace import Settings, Workspace

# What a terminal's output subscriber is always given of a flood's end (`TerminalSession.on_output`): more
# than the usage-limit scanner keeps between two scans (2 x 64 KB) and the prompt watcher's window.
OUTPUT_TAIL_BYTES = 128 * 1024

Unsubscribe = Callable[[], None]


class Clock(Protocol):
    def now_ms(self) -> int:
        """Wall-clock time in epoch milliseconds."""
        ...


class IdGenerator(Protocol):
    def new_id(self) -> str:
        """A fresh UUID (hyphenated, lowercase)."""
        ...


class Diagnostics(Protocol):
    def beacon(self, message: str) -> None:
        """Append one line to the persistent diagnostics log, e.g. "[layout] repaired ..."."""
        ...


class EventPublisher(Protocol):
    def publish(self, event: object) -> None:
        """Fan an event out to every subscriber; callable from any thread."""
        ...


@runtime_checkable
class TerminalSession(Protocol):
    """A process running in a pseudo-terminal, with a screen that can be read back.

    Coroutines are awaited on the core loop; adapters marshal to whatever thread owns the terminal.
    Callbacks registered with on_output/on_exit/on_title are invoked on the core loop.
    """

    @property
    def session_id(self) -> SessionId: ...

    async def start(self, spec: SpawnSpec) -> int:
        """Start the process; returns its pid. Raises AppError(PROCESS) when it cannot start."""
        ...

    async def write_text(self, text: str) -> None:
        """Send text to the process's input, UTF-8 encoded, exactly as given (no newline added)."""
        ...

    async def resize(self, columns: int, lines: int) -> None: ...

    async def screen_text(self) -> str:
        """The visible screen, lines joined by newlines, trailing spaces trimmed."""
        ...

    def bracketed_paste_enabled(self) -> bool:
        """Whether the program asked for bracketed paste (DECSET 2004), tracked from its output."""
        ...

    def pid(self) -> int | None: ...

    def foreground_pid(self) -> int | None:
        """The process group leader in the terminal's foreground (a program started from a shell)."""
        ...

    def exit_code(self) -> int | None:
        """The exit status once exited; None while running or when the status could not be obtained."""
        ...

    def has_exited(self) -> bool: ...

    async def terminate(self, grace_ms: int = 3000) -> None:
        """End the process and all its descendants: SIGHUP+SIGTERM, then SIGKILL after grace_ms."""
        ...

    def on_output(self, callback: Callable[[bytes], None]) -> Unsubscribe:
        """`callback(data)` with the program's output, in order, from now on. An adapter may gather output
        into batches; when more than `OUTPUT_TAIL_BYTES` came in one batch (a flood), it may give only the
        batch's end, more than `OUTPUT_TAIL_BYTES` of it: what listens reads the end of a flood, never its
        whole middle (the usage-limit scanner, the prompt watcher)."""
        ...

    def on_exit(self, callback: Callable[[int | None], None]) -> Unsubscribe: ...

    def on_title(self, callback: Callable[[str], None]) -> Unsubscribe: ...


class TerminalFactory(Protocol):
    def create(self, session_id: SessionId, project_id: ProjectId) -> TerminalSession:
        """A new, not yet started terminal."""
        ...

    def release(self, session_id: SessionId) -> None:
        """Forget a terminal whose process has ended and that no cell shows any more."""
        ...


class Host(Protocol):
    """Facts about the machine and the running IdeA that use cases need to start processes."""

    def environ(self) -> dict[str, str]: ...

    def login_shell(self) -> str:
        """Absolute path of the user's shell."""
        ...

    def is_frozen(self) -> bool:
        """True in a packaged build (AppImage, setup.exe), whose loader environment must not leak."""
        ...

    def which(self, program: str, path: str | None) -> str | None:
        """The absolute path `program` resolves to on `path` (or as given when it has a slash), or None."""
        ...

    def launch_argv(self, program: str, args: Sequence[str]) -> list[str]:
        """The argv that starts a program `which` found with `args`: itself, or on Windows what a `.cmd`
        shim would run (npm's: node and the package's script; any other: cmd.exe /d /s /c)."""
        ...

    def is_dir(self, path: str) -> bool:
        """Whether `path` is an existing folder (an agent's worktree, before it is started there)."""
        ...

    def scratch_dir(self, prefix: str) -> str:
        """A new empty folder of its own in the system's temporary folder (a profile's test run); those a day old
        go when a new one is made."""
        ...


class ProjectFolder(Protocol):
    """The project's own files that IdeA maintains."""

    def resolve_root(self, path: str) -> str:
        """The absolute, normalised project root; AppError NOT_FOUND/INVALID when unusable, with the reason."""
        ...

    def ensure_scaffold(self, root: str) -> None:
        """Create `.ideai/` with an empty agents manifest, and keep the .gitignore runtime block current."""
        ...

    def remove_write_leftovers(self, root: str) -> list[str]:
        """Remove the temporary files of IdeA's writes that a crash interrupted (old enough that no write can
        still be in progress); returns their paths."""
        ...


class LayoutStore(Protocol):
    def load(self, root: str) -> DecodedDocument | None:
        """The project's layouts, None when it has none yet; CorruptFileError (file kept aside) if unreadable."""
        ...

    def save(self, root: str, document: LayoutDocument) -> None: ...


class UserDataStore(Protocol):
    """settings.json, projects.json and workspace.json in the user-data directory.

    Loads return defaults when a file is absent and raise CorruptFileError (file kept aside) when broken.
    """

    def load_settings(self) -> Settings: ...

    def save_settings(self, settings: Settings) -> None: ...

    def load_projects(self) -> ProjectRegistry: ...

    def save_projects(self, registry: ProjectRegistry) -> None: ...

    def load_workspace(self) -> Workspace: ...

    def save_workspace(self, workspace: Workspace) -> None: ...
