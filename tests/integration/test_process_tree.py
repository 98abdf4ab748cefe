"""Ending a process tree: real processes, real signals (spec 01 §9, acceptance UI-11)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from idea.infrastructure.terminal import process_tree
from idea.infrastructure.terminal.process_tree import (
    descendants,
    marked_processes,
    process_name,
    terminate_marked_processes,
    terminate_process_tree,
)
from tests.contract.terminal_contract import is_gone, read_pid, wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cleanup() -> Iterator[list[int]]:
    """Pids to SIGKILL after the test, whatever happened."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_shell(
    script: str, cwd: Path, *, env: dict[str, str] | None = None, start_new_session: bool = False
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["sh", "-c", textwrap.dedent(script)],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        start_new_session=start_new_session,
    )


async def pid_from(path: Path) -> int:
    await wait_until(lambda: read_pid(path) is not None, what=str(path))
    pid = read_pid(path)
    assert pid is not None
    return pid


async def wait_for_file(path: Path) -> None:
    await wait_until(lambda: path.exists() and path.read_text().strip() != "", what=str(path))


async def test_a_tree_of_sleeps_and_a_group_member_that_left_it_are_all_ended(
    tmp_path: Path, cleanup: list[int]
) -> None:
    root = start_shell(
        """
        sleep 300 &
        sh -c 'sleep 300 & echo $! > nested.pid; wait' &
        (sleep 300 & echo $! > orphan.pid)
        wait
        """,
        tmp_path,
        start_new_session=True,
    )
    cleanup.append(root.pid)
    nested, orphan = await pid_from(tmp_path / "nested.pid"), await pid_from(tmp_path / "orphan.pid")
    cleanup += [nested, orphan]
    tree = descendants(root.pid)
    assert nested in tree
    assert orphan not in tree  # re-parented when its subshell ended; still in the process group
    everything = [root.pid, nested, orphan, *tree]

    await terminate_process_tree(root.pid, grace_ms=2000)

    assert all(is_gone(pid) for pid in everything)
    # The root is left for its parent to reap: its status is still there.
    assert root.wait(timeout=1) == -signal.SIGHUP


async def test_a_group_member_that_left_the_tree_gets_its_grace_too(tmp_path: Path, cleanup: list[int]) -> None:
    # Found by its process group, it is waited for like the tree instead of being killed with the group.
    root = start_shell(
        """
        (sh -c 'trap "sleep 0.3; echo done > graceful; exit 0" HUP TERM
                echo $$ > orphan.pid
                while :; do sleep 0.05; done' &)
        exec sleep 300
        """,
        tmp_path,
        start_new_session=True,
    )
    cleanup.append(root.pid)
    orphan = await pid_from(tmp_path / "orphan.pid")
    cleanup.append(orphan)
    assert orphan not in descendants(root.pid)

    await terminate_process_tree(root.pid, grace_ms=3000)

    assert (tmp_path / "graceful").read_text() == "done\n"
    root.wait(timeout=1)


async def test_a_process_ignoring_hangup_and_terminate_is_killed_after_the_grace(
    tmp_path: Path, cleanup: list[int]
) -> None:
    stubborn = start_shell("trap '' HUP TERM; echo ready > ready; exec sleep 300", tmp_path, start_new_session=True)
    cleanup.append(stubborn.pid)
    await wait_for_file(tmp_path / "ready")
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(tick())
    started = time.monotonic()
    await terminate_process_tree(stubborn.pid, grace_ms=500)
    elapsed = time.monotonic() - started
    ticking.cancel()

    assert stubborn.wait(timeout=1) == -signal.SIGKILL
    assert 0.5 <= elapsed < 2.0
    assert ticks >= 20  # the loop kept running during the grace


async def test_a_double_forked_daemon_is_found_and_ended_by_its_agent_marker(
    tmp_path: Path, cleanup: list[int]
) -> None:
    agent = str(uuid.uuid4())
    launcher = start_shell(
        "(setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' &)",
        tmp_path,
        env={"IDEA_AGENT_ID": agent},
        start_new_session=True,
    )
    daemon = await pid_from(tmp_path / "daemon.pid")
    cleanup.append(daemon)
    assert launcher.wait(timeout=5) == 0
    assert daemon not in descendants(os.getpid())
    assert marked_processes(agent) == [daemon]
    assert marked_processes(str(uuid.uuid4())) == []

    other = start_shell("exec sleep 300", tmp_path, start_new_session=True)
    cleanup.append(other.pid)
    await terminate_process_tree(other.pid, grace_ms=1000)
    assert not is_gone(daemon)  # without the marker the daemon is out of reach

    other = start_shell("exec sleep 300", tmp_path, start_new_session=True)
    cleanup.append(other.pid)
    await terminate_process_tree(other.pid, grace_ms=1000, agent_marker=agent)
    assert is_gone(daemon)
    assert other.wait(timeout=1) == -signal.SIGHUP


async def test_marked_leftovers_of_an_exited_agent_are_ended(tmp_path: Path, cleanup: list[int]) -> None:
    agent = str(uuid.uuid4())
    start_shell("(setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' &)", tmp_path, env={"IDEA_AGENT_ID": agent}).wait(
        timeout=5
    )
    daemon = await pid_from(tmp_path / "daemon.pid")
    cleanup.append(daemon)
    await terminate_marked_processes(agent, grace_ms=1000)
    assert is_gone(daemon)


@pytest.mark.parametrize("running", [False, True], ids=["agent exited", "agent running"])
async def test_a_marked_daemon_whose_environment_read_empty_is_looked_at_again_and_ended(
    tmp_path: Path, cleanup: list[int], monkeypatch: pytest.MonkeyPatch, running: bool
) -> None:
    # As when the daemon is in the middle of an exec: its environment reads empty to the scan. The agent has
    # exited (its leftovers are ended) or still runs (its whole tree and marked processes are ended).
    agent = str(uuid.uuid4())
    daemon = await marked_daemon(tmp_path, agent, "daemon.pid")
    cleanup.append(daemon)
    reads: list[int] = []
    real_environment = process_tree._environment

    def first_read_empty(process: psutil.Process) -> dict[str, str]:
        if process.pid == daemon:
            reads.append(daemon)
            if len(reads) == 1:
                return {}
        return real_environment(process)

    monkeypatch.setattr(process_tree, "_environment", first_read_empty)
    if running:
        cli = start_shell("exec sleep 300", tmp_path, env={"IDEA_AGENT_ID": agent}, start_new_session=True)
        cleanup.append(cli.pid)
        await terminate_process_tree(cli.pid, grace_ms=1000, agent_marker=agent)
        assert cli.wait(timeout=1) == -signal.SIGHUP
    else:
        await terminate_marked_processes(agent, grace_ms=1000)
    assert len(reads) == 2 and is_gone(daemon)


async def test_a_process_the_agent_starts_after_the_scan_is_not_a_leftover(
    tmp_path: Path, cleanup: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agent launched again while its leftovers are ended (a usage-limit resume): the new CLI carries the
    # same marker and must live.
    agent = str(uuid.uuid4())
    leftover = await marked_daemon(tmp_path, agent, "leftover.pid")
    cleanup.append(leftover)
    relaunched: list[int] = []
    real_end = process_tree._end

    async def end_then_relaunch(processes: list[psutil.Process], *args: object, **kwargs: object) -> None:
        await real_end(processes, *args, **kwargs)  # type: ignore[arg-type]
        if not relaunched:
            relaunched.append(await marked_daemon(tmp_path, agent, "relaunched.pid"))
            cleanup.append(relaunched[0])

    monkeypatch.setattr(process_tree, "_end", end_then_relaunch)
    await terminate_marked_processes(agent, grace_ms=1000)
    assert is_gone(leftover) and not is_gone(relaunched[0])


async def marked_daemon(cwd: Path, agent: str, pid_file: str) -> int:
    """A daemon carrying the agent's marker, out of every tree (as a CLI's background server)."""
    start_shell(f"(setsid sh -c 'echo $$ > {pid_file}; exec sleep 300' &)", cwd, env={"IDEA_AGENT_ID": agent}).wait(
        timeout=5
    )
    daemon = await pid_from(cwd / pid_file)
    await wait_until(lambda: psutil.Process(daemon).name() == "sleep", what="the daemon's exec")
    return daemon


async def test_our_own_process_group_is_never_signalled(tmp_path: Path, cleanup: list[int]) -> None:
    # Both children share the test runner's process group.
    target = start_shell("exec sleep 300", tmp_path)
    sibling = start_shell("exec sleep 300", tmp_path)
    cleanup += [target.pid, sibling.pid]
    assert os.getpgid(target.pid) == os.getpgrp()

    await terminate_process_tree(target.pid, grace_ms=1000)

    assert target.wait(timeout=1) == -signal.SIGHUP
    assert sibling.poll() is None


async def test_processes_already_gone_are_no_error(tmp_path: Path) -> None:
    reaped = subprocess.Popen(["true"])
    reaped.wait()
    zombie = subprocess.Popen(["sh", "-c", "exit 7"])
    await wait_until(lambda: is_gone(zombie.pid), what="the zombie")

    started = time.monotonic()
    await terminate_process_tree(reaped.pid, grace_ms=3000)
    await terminate_process_tree(zombie.pid, grace_ms=3000, agent_marker=str(uuid.uuid4()))
    assert time.monotonic() - started < 2.5  # neither waited out its 3 s grace
    assert zombie.wait(timeout=1) == 7  # not reaped behind its parent's back


async def test_process_name_and_descendants(tmp_path: Path, cleanup: list[int]) -> None:
    root = start_shell("sleep 300 & wait", tmp_path, start_new_session=True)
    cleanup.append(root.pid)
    # The forked child carries the shell's name until it has exec'd `sleep`: wait for the exec, not the fork.
    await wait_until(
        lambda: [process_name(pid) for pid in descendants(root.pid)] == ["sleep"], what="the child sleep"
    )
    [child] = descendants(root.pid)
    assert process_name(root.pid) == "sh"
    await terminate_process_tree(root.pid, grace_ms=1000)
    root.wait(timeout=1)
    assert is_gone(child)
    assert descendants(root.pid) == []
    assert process_name(root.pid) is None

