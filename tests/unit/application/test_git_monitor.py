"""The Git panel's refresh on file-system events: debounced 500 ms, at most 3 s late while events keep
coming, git's object store and IdeA's runtime files left out."""

from __future__ import annotations

from idea.application.git.monitor import GitMonitor
from tests.fakes_orchestration import VirtualTime
from tests.git_support import ScriptedWatcher


async def started(workdir: str = "/p", git_dir: str = "/p/.git") -> tuple[GitMonitor, ScriptedWatcher, VirtualTime, list[int]]:
    time, watcher, fired = VirtualTime(), ScriptedWatcher(), []
    monitor = GitMonitor(watcher, time, lambda: fired.append(time.monotonic_ms()))
    monitor.start(workdir, git_dir)
    return monitor, watcher, time, fired


async def test_a_burst_of_changes_refreshes_once_500_ms_after_the_last() -> None:
    monitor, _watcher, time, fired = await started()
    for step in range(5):
        monitor.notice(f"/p/src/f{step}.py")
        await time.advance(100)
    assert fired == []
    await time.advance(399)
    assert fired == []
    await time.advance(1)
    assert fired == [900]
    monitor.stop()


async def test_a_steady_stream_still_refreshes_every_3_s() -> None:
    monitor, _watcher, time, fired = await started()
    for _ in range(40):
        monitor.notice("/p/build.log.txt")
        await time.advance(200)
    assert fired[:2] == [3000, 6000]
    monitor.stop()


async def test_noise_is_ignored() -> None:
    monitor, _watcher, time, fired = await started()
    for path in ("/p/.git/objects/ab/cd", "/p/.git/index.lock", "/p/.ideai/live-state.json", "/p/.ideai/run/x/y",
                 "/elsewhere/file"):
        monitor.notice(path)
    await time.advance(5000)
    assert fired == []
    monitor.notice("/p/.git/HEAD")
    await time.advance(500)
    assert fired == [5500]
    monitor.stop()


async def test_watches_the_working_tree_and_a_git_dir_that_lives_elsewhere() -> None:
    monitor, watcher, _time, _fired = await started("/w/tree", "/repo/.git/worktrees/tree")
    assert sorted(watcher.watched) == ["/repo/.git/worktrees/tree", "/w/tree"]
    monitor.stop()
    assert watcher.watched == {}
    bare, watcher, _time, _fired = await started(None, "/srv/bare.git")  # type: ignore[arg-type]
    assert list(watcher.watched) == ["/srv/bare.git"]
    bare.stop()
