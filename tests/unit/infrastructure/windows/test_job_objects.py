"""Job-object process trees, over a fake of the Win32 calls (the real ones run in the Wine smoke test);
the fallback without a job and the marked-process sweep over real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil
import pytest

from idea.infrastructure.windows.job_objects import EXIT_CODE_TERMINATED, JobTrees, Win32Jobs


class FakeJobs:
    """Jobs as sets of pids; processes leave a job when they exit (`exit`) or when it is terminated."""

    def __init__(self, refuse_assign: bool = False) -> None:
        self.jobs: dict[int, set[int]] = {}
        self.closed: list[int] = []
        self.terminated: list[tuple[int, int]] = []
        self.refuse_assign = refuse_assign
        self._next = 100

    def create_job(self) -> int:
        self._next += 4
        self.jobs[self._next] = set()
        return self._next

    def assign(self, job: int, pid: int) -> None:
        if self.refuse_assign:
            raise OSError(5, "access denied")
        self.jobs[job].add(pid)

    def pids(self, job: int) -> list[int]:
        return sorted(self.jobs[job])

    def terminate(self, job: int, exit_code: int) -> None:
        self.terminated.append((job, exit_code))
        self.jobs[job].clear()

    def close(self, handle: int) -> None:
        self.closed.append(handle)

    def spawn_child(self, job: int, pid: int) -> None:
        self.jobs[job].add(pid)  # what Windows does for every process a job member starts

    def exit(self, pid: int) -> None:
        for members in self.jobs.values():
            members.discard(pid)


async def test_a_tree_that_leaves_on_hang_up_is_not_terminated() -> None:
    api = FakeJobs()
    trees = JobTrees(api)
    assert trees.adopt(4242)
    job = next(iter(api.jobs))
    api.spawn_child(job, 4243)
    assert trees.members(4242) == [4242, 4243]

    await trees.end(4242, 2000, hang_up=lambda: (api.exit(4242), api.exit(4243)))

    assert api.terminated == [] and api.closed == [job]
    assert trees.members(4242) == []


async def test_what_ignores_the_hang_up_is_terminated_after_the_grace() -> None:
    api = FakeJobs()
    trees = JobTrees(api)
    trees.adopt(10)
    job = next(iter(api.jobs))
    api.spawn_child(job, 11)  # a daemon that detached from its parent: still in the job
    hung_up = []
    started = time.monotonic()

    await trees.end(10, 200, hang_up=lambda: (hung_up.append(True), api.exit(10)))

    assert hung_up and api.terminated == [(job, EXIT_CODE_TERMINATED)]
    assert 0.15 <= time.monotonic() - started < 2
    assert api.closed == [job]


async def test_a_refused_adoption_closes_the_job_and_reports_false() -> None:
    api = FakeJobs(refuse_assign=True)
    trees = JobTrees(api)

    assert not trees.adopt(77)
    assert api.closed == list(api.jobs)
    assert trees.members(77) == []


async def test_forget_closes_the_handle_which_ends_the_job_with_kill_on_close() -> None:
    api = FakeJobs()
    trees = JobTrees(api)
    trees.adopt(5)
    trees.forget(5)
    trees.forget(5)
    assert api.closed == list(api.jobs)


def _tree_script() -> list[str]:
    # A parent that starts a child that ignores nothing: both sleep until ended.
    return [
        sys.executable,
        "-c",
        "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print('up', flush=True); time.sleep(60)",
    ]


async def test_without_a_job_the_program_and_its_descendants_are_ended_through_psutil() -> None:
    process = subprocess.Popen(_tree_script(), stdout=subprocess.PIPE)
    assert process.stdout is not None and process.stdout.readline() == b"up\n"
    child = psutil.Process(process.pid).children()[0]

    await JobTrees(FakeJobs()).end(process.pid, 1000)

    assert process.wait(5) is not None
    assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE


async def test_processes_carrying_the_agent_marker_are_swept_too() -> None:
    env = {**os.environ, "IDEA_AGENT_ID": "agent-under-test-7"}
    stray = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    try:
        api = FakeJobs()
        trees = JobTrees(api)
        trees.adopt(123)
        await trees.end(123, 100, hang_up=lambda: api.exit(123), agent_marker="agent-under-test-7")
        assert stray.wait(5) is not None
    finally:
        if stray.poll() is None:
            stray.kill()


@pytest.mark.skipif(sys.platform == "win32", reason="the refusal is what other systems get")
def test_the_real_api_exists_on_windows_only() -> None:
    with pytest.raises(OSError, match="Windows only"):
        Win32Jobs()
