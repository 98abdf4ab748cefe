"""Ending a terminal's program together with everything it started (spec 01 §9).

Agent CLIs leave processes behind: Codex starts `codex app-server … --managed-daemon` and a `pid-update-loop`
that outlive its TUI, some of them double-forked away from the tree. A stop therefore signals the process
group, every descendant found beforehand, and every process of the user whose environment carries the
agent's `IDEA_AGENT_ID`.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterable

import psutil

AGENT_MARKER_VARIABLE = "IDEA_AGENT_ID"

_POLL_INTERVAL_S = 0.05
# How long SIGKILLed processes get to disappear before terminate returns (they cannot refuse it).
_KILL_SETTLE_S = 1.0
# Stopped processes (Ctrl+Z) only act on SIGHUP/SIGTERM once continued. (Windows has neither SIGHUP nor
# SIGCONT: there this module serves its psutil queries only; windows/job_objects.py ends process trees.)
_POLITE_SIGNALS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM", "SIGCONT") if hasattr(signal, name))


def descendants(pid: int) -> list[int]:
    """Children, grandchildren, … of `pid` (empty when `pid` is gone)."""
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def process_name(pid: int) -> str | None:
    """The executable name of `pid` ("bash", "vim"), or None when it is gone or unreadable."""
    try:
        return psutil.Process(pid).name() or None
    except psutil.Error:
        return None


def marked_processes(agent_marker: str) -> list[int]:
    """The user's live processes whose environment has IDEA_AGENT_ID=`agent_marker` (never this process)."""
    return [process.pid for process in _scan_user_processes(group=None, agent_marker=agent_marker)]


async def terminate_process_tree(pid: int, grace_ms: int = 3000, *, agent_marker: str | None = None) -> None:
    """End `pid`, its process group, its descendants and (with `agent_marker`) the agent's marked processes.

    SIGHUP then SIGTERM, up to `grace_ms` to exit, then SIGKILL. Processes already gone are ignored; this
    process's own group is never signalled. `pid` itself is left for its parent to reap (its exit status
    belongs to the terminal); other collected zombies that are children of this process are reaped here.
    """
    group = _signalable_group(pid)
    unread: list[psutil.Process] = []
    processes = await asyncio.to_thread(_collect, pid, group, agent_marker, unread)
    await _end(processes, group, grace_ms, leave_unreaped=pid)
    if agent_marker is not None:
        await _end_late_marked(unread, agent_marker, grace_ms)


async def terminate_marked_processes(agent_marker: str, grace_ms: int = 3000) -> None:
    """End the user's processes carrying IDEA_AGENT_ID=`agent_marker`: the leftovers of an agent that exited."""
    unread: list[psutil.Process] = []
    processes = await asyncio.to_thread(_scan_user_processes, None, agent_marker, unread)
    await _end(processes, None, grace_ms, leave_unreaped=None)
    await _end_late_marked(unread, agent_marker, grace_ms)


async def _end_late_marked(unread: list[psutil.Process], agent_marker: str, grace_ms: int) -> None:
    """A process in the middle of an exec can show no environment to a scan (the likely reason a daemon that
    wrote its pid and then exec'd was missed once in a CI run): those whose environment read empty are looked
    at again a moment later, and ended if they carry the marker. Only they: a process started since the scan
    (the agent launched again) is not the one being ended."""
    if not unread:
        return
    await asyncio.sleep(_POLL_INTERVAL_S)
    late = await asyncio.to_thread(lambda: [p for p in unread if _carries_marker(p, agent_marker)])
    await _end(late, None, grace_ms, leave_unreaped=None)


async def terminate_terminal_program(pid: int, grace_ms: int, *, has_exited: bool, agent_marker: str | None) -> None:
    """Stop a terminal's program: the whole tree while it runs, and in any case what the agent left behind."""
    if not has_exited:
        await terminate_process_tree(pid, grace_ms, agent_marker=agent_marker)
    elif agent_marker is not None:
        # The program is gone (its pid may name another process by now); a daemon it left may not be.
        await terminate_marked_processes(agent_marker, grace_ms)


def _signalable_group(pid: int) -> int | None:
    try:
        group = os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return None
    if group <= 1 or group == os.getpgrp():
        return None
    return group


def _collect(
    pid: int, group: int | None, agent_marker: str | None, unread: list[psutil.Process]
) -> list[psutil.Process]:
    """Everything to end, gathered before any signal: once a parent dies its children leave the tree. `unread`
    gets the processes outside the tree whose environment read empty."""
    found: dict[int, psutil.Process] = {}
    try:
        root = psutil.Process(pid)
        found[pid] = root
        found.update((child.pid, child) for child in root.children(recursive=True))
    except psutil.Error:
        pass
    if group is not None or agent_marker is not None:
        found.update((process.pid, process) for process in _scan_user_processes(group, agent_marker, unread))
    found.pop(os.getpid(), None)
    return list(found.values())


def _scan_user_processes(
    group: int | None, agent_marker: str | None, unread: list[psutil.Process] | None = None
) -> list[psutil.Process]:
    """The user's processes in `group` (members that left the tree) or carrying the agent marker; `unread`
    gets those whose environment read empty."""
    own_pid = os.getpid()
    uid = os.getuid()
    matches = []
    for process in psutil.process_iter(["uids"]):
        uids = process.info["uids"]
        if process.pid in (own_pid, 1) or uids is None or uids.real != uid:
            continue
        if group is not None and _group_of(process.pid) == group:
            matches.append(process)
        elif agent_marker is not None:
            environment = _environment(process)
            if environment.get(AGENT_MARKER_VARIABLE) == agent_marker:
                matches.append(process)
            elif not environment and unread is not None:
                unread.append(process)
    return matches


def _group_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return None


def _carries_marker(process: psutil.Process, agent_marker: str) -> bool:
    return _environment(process).get(AGENT_MARKER_VARIABLE) == agent_marker


def _environment(process: psutil.Process) -> dict[str, str]:
    try:
        return process.environ()
    except psutil.Error:
        return {}


async def _end(
    processes: list[psutil.Process], group: int | None, grace_ms: int, *, leave_unreaped: int | None
) -> None:
    for signum in _POLITE_SIGNALS:
        _signal_all(signum, group, processes)
    survivors = await _wait_until_gone(processes, grace_ms / 1000)
    # The group may also hold members forked after the collection.
    _signal_all(signal.SIGKILL, group, survivors)
    await _wait_until_gone(survivors, _KILL_SETTLE_S)
    _reap_adopted_children(processes, leave_unreaped)


def _signal_all(signum: int, group: int | None, processes: Iterable[psutil.Process]) -> None:
    if group is not None:
        try:
            os.killpg(group, signum)
        except (ProcessLookupError, PermissionError):
            pass
    for process in processes:
        try:
            process.send_signal(signum)  # psutil refuses if the pid now names another process
        except psutil.Error:
            pass


async def _wait_until_gone(processes: list[psutil.Process], timeout_s: float) -> list[psutil.Process]:
    """The processes still alive after up to `timeout_s`; polls without blocking the loop."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    alive = [process for process in processes if _is_alive(process)]
    while alive:
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        await asyncio.sleep(min(_POLL_INTERVAL_S, remaining))
        alive = [process for process in alive if _is_alive(process)]
    return alive


def _is_alive(process: psutil.Process) -> bool:
    # A zombie has exited: only its parent's wait is missing.
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _reap_adopted_children(processes: Iterable[psutil.Process], leave_unreaped: int | None) -> None:
    own_pid = os.getpid()
    for process in processes:
        if process.pid == leave_unreaped:
            continue
        try:
            if process.ppid() == own_pid:
                os.waitpid(process.pid, os.WNOHANG)
        except (psutil.Error, ChildProcessError):
            pass
