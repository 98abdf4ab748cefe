"""Changes made outside IdeA (a terminal, an agent) are noticed through watchdog and announced once they
settle; IdeA's own runtime files are not."""

from __future__ import annotations

import asyncio
from pathlib import Path

from idea.application.git.projects import GitDeps, GitWorkspace
from idea.domain.git.events import GitChanged
from idea.infrastructure.git.watcher import WatchdogFolderWatcher
from tests.git_support import GitHome, GitWorld, RepoBuilder

SETTLE_S = 5.0


async def changed_events(world: GitWorld, count: int) -> None:
    deadline = asyncio.get_running_loop().time() + SETTLE_S
    while len(world.events.of_type(GitChanged)) < count:
        assert asyncio.get_running_loop().time() < deadline, "no GitChanged announced"
        await asyncio.sleep(0.02)


async def test_an_outside_edit_and_an_outside_commit_are_announced(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"a.txt": "1\n"})
    world: GitWorld = git_world_factory(b.path)
    watcher = WatchdogFolderWatcher()
    world.closers.insert(0, watcher.close)
    deps: GitDeps = world.workspace._deps  # the same adapters, with the real folder watcher
    workspace = GitWorkspace(world.workspace.project_id, str(b.path), GitDeps(**{**deps.__dict__, "watcher": watcher}))
    world.workspace = workspace
    await workspace.open()

    (b.path / ".ideai").mkdir()
    (b.path / ".ideai" / "live-state.json").write_text("{}")  # IdeA's runtime: ignored
    await asyncio.sleep(0.8)
    assert world.events.of_type(GitChanged) == []

    (b.path / "a.txt").write_text("edited in a terminal\n")
    await changed_events(world, 1)
    snapshot = await workspace.git.snapshot()
    assert [e.path for e in snapshot.status.unstaged()] == ["a.txt"]  # type: ignore[union-attr]

    before = len(world.events.of_type(GitChanged))
    git_home.set_identity()
    git_home.git("commit", "-qam", "outside commit", cwd=b.path)
    await changed_events(world, before + 1)
    assert [c.summary for c in (await workspace.git.log()).commits][0] == "outside commit"


async def test_a_repository_made_in_a_terminal_is_found_and_watched(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    world: GitWorld = git_world_factory(root)
    watcher = WatchdogFolderWatcher()
    world.closers.insert(0, watcher.close)
    deps: GitDeps = world.workspace._deps
    workspace = GitWorkspace(world.workspace.project_id, str(root), GitDeps(**{**deps.__dict__, "watcher": watcher}))
    world.workspace = workspace
    await workspace.open()
    assert (await workspace.git.snapshot()).facts is None

    git_home.git("init", "-q", "-b", "trunk", cwd=root)
    await changed_events(world, 1)
    snapshot = await workspace.git.snapshot()
    assert snapshot.facts is not None and snapshot.facts.head.branch == "trunk"

    before = len(world.events.of_type(GitChanged))
    (root / "new.txt").write_text("x\n")  # now watched as the repository's working tree
    await changed_events(world, before + 1)
    assert [e.path for e in (await workspace.git.snapshot()).status.untracked()] == ["new.txt"]  # type: ignore[union-attr]
