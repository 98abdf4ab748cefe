"""Real temporary git repositories for the git tests: built with pygit2, cross-checked with the real `git`
command (Debian's package), each under a private HOME so neither library reads the machine's config."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pygit2
import pytest
from pygit2.enums import ConfigLevel

from idea.application.git.projects import GitDeps, GitWorkspace
from idea.application.ports import Unsubscribe
from idea.domain.project import ProjectRecord, ProjectRegistry
from idea.infrastructure.git.files import LocalWorktreeFiles
from idea.infrastructure.git.pygit2_git import Pygit2Git
from idea.infrastructure.git.worker import ThreadWorker
from idea.infrastructure.stores.reviews import JsonReviewStore
from idea.infrastructure.timer import MonotonicTimer
from tests.fakes import FakeClock, MemoryUserData, RecordingDiagnostics, RecordingEvents, SequentialIds

AUTHOR = pygit2.Signature("Ada Tester", "ada@example.org", 1_781_368_000, 0)
PROJECT_ID = "00000000-0000-4000-8000-00000000abcd"


@dataclass
class GitHome:
    home: Path
    env: dict[str, str]

    def git(self, *args: str, cwd: Path | str, check: bool = True, raw: bool = False) -> str:
        """The real git CLI, with this HOME and no system config."""
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=self.env, capture_output=True, check=False
        )
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {done.stderr.decode(errors='replace')}")
        return done.stdout.decode("utf-8", "surrogateescape") if not raw else done.stdout.decode("latin-1")

    def set_identity(self, name: str = "Ada Tester", email: str = "ada@example.org") -> None:
        self.git("config", "--global", "user.name", name, cwd=self.home)
        self.git("config", "--global", "user.email", email, cwd=self.home)


@pytest.fixture
def git_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[GitHome]:
    home = tmp_path_factory.mktemp("git-home")
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "LANG": "C.UTF-8",
        "GIT_AUTHOR_DATE": "1781368000 +0000",
        "GIT_COMMITTER_DATE": "1781368000 +0000",
    }
    monkeypatch.setenv("HOME", str(home))
    saved = {level: pygit2.settings.search_path[level] for level in _LEVELS}
    for level in _LEVELS:
        pygit2.settings.search_path[level] = str(home / "none" if level is not ConfigLevel.GLOBAL else home)
    try:
        yield GitHome(home, env)
    finally:
        for level, value in saved.items():
            pygit2.settings.search_path[level] = value


_LEVELS = (ConfigLevel.SYSTEM, ConfigLevel.XDG, ConfigLevel.GLOBAL)


class RepoBuilder:
    """A repository made with pygit2: files written as bytes or text, commits with a fixed author."""

    def __init__(self, path: Path, bare: bool = False) -> None:
        self.path = path
        self.repo = pygit2.init_repository(str(path), bare=bare, initial_head="main")
        self._tick = 0

    def write(self, name: str | bytes, content: str | bytes) -> Path:
        target = os.path.join(os.fsencode(self.path), os.fsencode(name))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(content.encode() if isinstance(content, str) else content)
        return Path(os.fsdecode(target))

    def commit(self, message: str, files: dict[str, str | bytes] | None = None, stage_all: bool = True) -> str:
        for name, content in (files or {}).items():
            self.write(name, content)
        index = self.repo.index
        index.read(False)
        if stage_all:
            index.add_all()
        index.write()
        tree = index.write_tree()
        parents = [] if self.repo.head_is_unborn else [self.repo.head.target]
        self._tick += 60
        when = pygit2.Signature(AUTHOR.name, AUTHOR.email, AUTHOR.time + self._tick, 0)
        return str(self.repo.create_commit("HEAD", when, when, message, tree, parents))

    def branch(self, name: str, at: str | None = None) -> None:
        target = self.repo.revparse_single(at or "HEAD")
        self.repo.branches.local.create(name, target.peel(pygit2.Commit))

    def checkout(self, name: str) -> None:
        self.repo.checkout(self.repo.lookup_branch(name))

    def diverge(self, branch: str, here: dict[str, str | bytes], there: dict[str, str | bytes]) -> None:
        """`branch` from HEAD; one commit on each side (`here` on the current branch, `there` on `branch`);
        back on the current branch."""
        current = self.repo.head.shorthand
        self.branch(branch)
        self.commit(f"{current} side", here)
        self.checkout(branch)
        self.commit(f"{branch} side", there)
        self.checkout(current)


class ScriptedWatcher:
    """The folder watcher, driven by the test: `fire(path)` is what watchdog would report."""

    def __init__(self) -> None:
        self.watched: dict[str, Callable[[str], None]] = {}

    def watch(self, folder: str, on_change: Callable[[str], None]) -> Unsubscribe:
        self.watched[folder] = on_change
        return lambda: self.watched.pop(folder, None)

    def fire(self, path: str) -> None:
        for folder, callback in list(self.watched.items()):
            if path == folder or path.startswith(folder + "/"):
                callback(path)


@dataclass
class GitWorld:
    """A project's git workspace on the real adapters (pygit2, worker threads, files, review store)."""

    workspace: GitWorkspace
    events: RecordingEvents
    diagnostics: RecordingDiagnostics
    watcher: ScriptedWatcher
    user_data: MemoryUserData
    worker: ThreadWorker
    closers: list[Callable[[], None]] = field(default_factory=list)


def make_git_world(root: Path, setup_command: str | None = None) -> GitWorld:
    events, diagnostics, watcher = RecordingEvents(), RecordingDiagnostics(), ScriptedWatcher()
    user_data = MemoryUserData()
    user_data.save_projects(
        ProjectRegistry(projects=(ProjectRecord(id=PROJECT_ID, name=root.name, root=str(root), worktree_setup=setup_command),))
    )
    worker = ThreadWorker()
    deps = GitDeps(
        port=Pygit2Git(),
        worker=worker,
        watcher=watcher,
        files=LocalWorktreeFiles(),
        reviews=JsonReviewStore(),
        timer=MonotonicTimer(),
        clock=FakeClock(),
        ids=SequentialIds(),
        events=events,
        diagnostics=diagnostics,
        user_data=user_data,
    )
    workspace = GitWorkspace(PROJECT_ID, str(root), deps)
    return GitWorld(workspace, events, diagnostics, watcher, user_data, worker, [worker.close])


@pytest.fixture
def git_world_factory() -> Iterator[Callable[..., GitWorld]]:
    made: list[GitWorld] = []

    def make(root: Path, setup_command: str | None = None) -> GitWorld:
        world = make_git_world(root, setup_command)
        made.append(world)
        return world

    yield make
    for world in made:
        world.workspace.close()
        for close in world.closers:
            close()
