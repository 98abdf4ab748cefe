"""Ending a terminal's program together with everything it started, on Windows: Job objects.

Windows has no process groups or SIGHUP, and a parent's death does not end its children (Codex leaves an
app-server daemon behind). Right after a terminal's program starts, `adopt` puts it in a Job object of its
own: every process it starts from then on belongs to the job, however it detaches. Stopping it closes the
pseudo console first (the caller's `hang_up`: its programs get CTRL_CLOSE_EVENT, the Windows SIGHUP), waits
up to the grace for the job to empty, then TerminateJobObject ends whatever is left. The job is created
with KILL_ON_JOB_CLOSE, so if IdeA itself dies, Windows ends the agents' processes with it.

A program that could not be adopted (it exited at once, or access was denied) is ended through psutil:
its descendants, then itself. The OS calls go through `Win32Jobs`, a thin ctypes layer that tests replace
with a fake (tests/unit/infrastructure/windows/test_job_objects.py); the Wine smoke test runs the real one.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Protocol

import psutil

from idea.infrastructure.terminal.process_tree import AGENT_MARKER_VARIABLE

POLL_INTERVAL_S = 0.05
KILL_SETTLE_S = 1.0
EXIT_CODE_TERMINATED = 1

# winnt.h / processthreadsapi.h
JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
JOB_OBJECT_BASIC_PROCESS_ID_LIST = 3
PROCESS_SET_QUOTA = 0x0100
PROCESS_TERMINATE = 0x0001
MAX_LISTED_PROCESSES = 4096


class JobApi(Protocol):
    """The Job object calls IdeA makes; each returns a handle or raises OSError."""

    def create_job(self) -> int: ...
    def assign(self, job: int, pid: int) -> None: ...
    def pids(self, job: int) -> list[int]: ...
    def terminate(self, job: int, exit_code: int) -> None: ...
    def close(self, handle: int) -> None: ...


class JobTrees:
    """One Job object per adopted program, keyed by its pid."""

    def __init__(self, api: JobApi | None = None) -> None:
        self._api = api
        self._jobs: dict[int, int] = {}

    def _calls(self) -> JobApi:
        if self._api is None:
            self._api = Win32Jobs()
        return self._api

    def adopt(self, pid: int) -> bool:
        """Put `pid` (and all it starts from now on) in a job of its own; False when Windows refuses."""
        api = self._calls()
        try:
            job = api.create_job()
        except OSError:
            return False
        try:
            api.assign(job, pid)
        except OSError:
            api.close(job)
            return False
        self._jobs[pid] = job
        return True

    def holds(self, pid: int) -> bool:
        """Whether `pid`'s job is still open (adopted, neither ended nor forgotten)."""
        return pid in self._jobs

    def members(self, pid: int) -> list[int]:
        """The live processes of `pid`'s job (empty when it was not adopted)."""
        job = self._jobs.get(pid)
        if job is None:
            return []
        try:
            return self._calls().pids(job)
        except OSError:
            return []

    async def end(
        self, pid: int, grace_ms: int, *, hang_up: Callable[[], None] | None = None, agent_marker: str | None = None
    ) -> None:
        """Hang up, give the job `grace_ms` to empty, then terminate what is left of it; also what carries
        the agent's marker outside the job (started before adoption, or by another route)."""
        if hang_up is not None:
            hang_up()
        job = self._jobs.pop(pid, None)
        if job is None:
            await _end_without_job(pid, grace_ms)
        else:
            api = self._calls()
            try:
                if not await _wait_until(lambda: not self._live_pids(api, job), grace_ms / 1000):
                    try:
                        api.terminate(job, EXIT_CODE_TERMINATED)
                    except OSError:
                        pass
                    await _wait_until(lambda: not self._live_pids(api, job), KILL_SETTLE_S)
            finally:
                api.close(job)
        if agent_marker is not None:
            await asyncio.to_thread(_end_marked, agent_marker)

    def forget(self, pid: int) -> None:
        """The program's record is no longer needed (its terminal was released): close the job handle.
        With KILL_ON_JOB_CLOSE that ends what is left in the job."""
        job = self._jobs.pop(pid, None)
        if job is not None:
            self._calls().close(job)

    @staticmethod
    def _live_pids(api: JobApi, job: int) -> list[int]:
        try:
            return api.pids(job)
        except OSError:
            return []


async def _wait_until(condition: Callable[[], bool], timeout_s: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not condition():
        remaining = deadline - loop.time()
        if remaining <= 0:
            return False
        await asyncio.sleep(min(POLL_INTERVAL_S, remaining))
    return True


async def _end_without_job(pid: int, grace_ms: int) -> None:
    """psutil's view of the tree: descendants first, then the program; killed after the grace."""
    try:
        root = psutil.Process(pid)
        processes = [*reversed(root.children(recursive=True)), root]
    except psutil.Error:
        return
    for process in processes:
        try:
            process.terminate()
        except psutil.Error:
            pass
    _, alive = await asyncio.to_thread(psutil.wait_procs, processes, grace_ms / 1000)
    for process in alive:
        try:
            process.kill()
        except psutil.Error:
            pass
    await asyncio.to_thread(psutil.wait_procs, alive, KILL_SETTLE_S)


def _end_marked(agent_marker: str) -> None:
    """The user's processes whose environment carries IDEA_AGENT_ID=`agent_marker` (psutil reads it from
    the process environment block on Windows too)."""
    marked = []
    for process in psutil.process_iter():
        if process.pid == psutil.Process().pid:
            continue
        try:
            if process.environ().get(AGENT_MARKER_VARIABLE) == agent_marker:
                marked.append(process)
        except psutil.Error:
            continue
    for process in marked:
        try:
            process.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(marked, KILL_SETTLE_S)


class Win32Jobs:
    """kernel32's Job object functions through ctypes (Windows only)."""

    def __init__(self) -> None:
        if sys.platform != "win32":
            raise OSError("Job objects exist on Windows only")
        import ctypes
        from ctypes import wintypes

        self._ctypes = ctypes
        self._wintypes = wintypes
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        self._k = kernel32
        kernel32.CreateJobObjectW.restype = wintypes.HANDLE
        kernel32.CreateJobObjectW.argtypes = (wintypes.LPVOID, wintypes.LPCWSTR)
        kernel32.OpenProcess.restype = wintypes.HANDLE
        kernel32.OpenProcess.argtypes = (wintypes.DWORD, wintypes.BOOL, wintypes.DWORD)
        kernel32.AssignProcessToJobObject.argtypes = (wintypes.HANDLE, wintypes.HANDLE)
        kernel32.SetInformationJobObject.argtypes = (wintypes.HANDLE, ctypes.c_int, wintypes.LPVOID, wintypes.DWORD)
        kernel32.QueryInformationJobObject.argtypes = (
            wintypes.HANDLE, ctypes.c_int, wintypes.LPVOID, wintypes.DWORD, wintypes.LPDWORD
        )
        kernel32.TerminateJobObject.argtypes = (wintypes.HANDLE, wintypes.UINT)
        kernel32.CloseHandle.argtypes = (wintypes.HANDLE,)

    def _fail(self, what: str) -> OSError:
        code = self._ctypes.get_last_error()
        return OSError(code, f"{what} failed (Windows error {code})")

    def create_job(self) -> int:
        ctypes, wintypes = self._ctypes, self._wintypes
        job = self._k.CreateJobObjectW(None, None)
        if not job:
            raise self._fail("CreateJobObject")

        class IoCounters(ctypes.Structure):
            _fields_ = [(name, ctypes.c_ulonglong) for name in (
                "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
                "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]

        class BasicLimits(ctypes.Structure):
            _fields_ = [
                ("PerProcessUserTimeLimit", ctypes.c_longlong),
                ("PerJobUserTimeLimit", ctypes.c_longlong),
                ("LimitFlags", wintypes.DWORD),
                ("MinimumWorkingSetSize", ctypes.c_size_t),
                ("MaximumWorkingSetSize", ctypes.c_size_t),
                ("ActiveProcessLimit", wintypes.DWORD),
                ("Affinity", ctypes.c_size_t),
                ("PriorityClass", wintypes.DWORD),
                ("SchedulingClass", wintypes.DWORD),
            ]

        class ExtendedLimits(ctypes.Structure):
            _fields_ = [
                ("BasicLimitInformation", BasicLimits),
                ("IoInfo", IoCounters),
                ("ProcessMemoryLimit", ctypes.c_size_t),
                ("JobMemoryLimit", ctypes.c_size_t),
                ("PeakProcessMemoryUsed", ctypes.c_size_t),
                ("PeakJobMemoryUsed", ctypes.c_size_t),
            ]

        limits = ExtendedLimits()
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        if not self._k.SetInformationJobObject(
            job, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, ctypes.byref(limits), ctypes.sizeof(limits)
        ):
            error = self._fail("SetInformationJobObject")
            self._k.CloseHandle(job)
            raise error
        return int(job)

    def assign(self, job: int, pid: int) -> None:
        process = self._k.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, False, pid)
        if not process:
            raise self._fail(f"OpenProcess({pid})")
        try:
            if not self._k.AssignProcessToJobObject(job, process):
                raise self._fail(f"AssignProcessToJobObject({pid})")
        finally:
            self._k.CloseHandle(process)

    def pids(self, job: int) -> list[int]:
        ctypes, wintypes = self._ctypes, self._wintypes

        class ProcessIdList(ctypes.Structure):
            _fields_ = [
                ("NumberOfAssignedProcesses", wintypes.DWORD),
                ("NumberOfProcessIdsInList", wintypes.DWORD),
                ("ProcessIdList", ctypes.c_size_t * MAX_LISTED_PROCESSES),
            ]

        listing = ProcessIdList()
        if not self._k.QueryInformationJobObject(
            job, JOB_OBJECT_BASIC_PROCESS_ID_LIST, ctypes.byref(listing), ctypes.sizeof(listing), None
        ):
            raise self._fail("QueryInformationJobObject")
        return [int(listing.ProcessIdList[i]) for i in range(listing.NumberOfProcessIdsInList)]

    def terminate(self, job: int, exit_code: int) -> None:
        if not self._k.TerminateJobObject(job, exit_code):
            raise self._fail("TerminateJobObject")

    def close(self, handle: int) -> None:
        self._k.CloseHandle(handle)


PROCESS_JOBS = JobTrees()
"""The process-wide registry the Windows terminal adapter uses: `PROCESS_JOBS.adopt(pid)` right after the
program starts, `await PROCESS_JOBS.end(pid, grace_ms, hang_up=…, agent_marker=…)` to stop it."""
