"""PtyProcessTerminal: the terminal contract, plus what is particular to ptyprocess and pyte."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import uuid
from pathlib import Path

import psutil
import pytest

from idea.application.ports import TerminalSession
from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.core_loop import CoreLoop
from idea.infrastructure.pty import PtyProcessTerminal, PtyProcessTerminalFactory
from tests.contract.terminal_contract import (
    CONTRACT_CASES,
    DEFAULT_TIMEOUT_S,
    ContractCase,
    case_name,
    is_gone,
    read_pid,
    running,
    shell,
    spawn_spec,
    wait_for_screen,
    wait_until,
)

_session_numbers = itertools.count(1)


needs_proc_fd = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")


def make_terminal() -> PtyProcessTerminal:
    return PtyProcessTerminal(f"session-{next(_session_numbers)}", asyncio.get_running_loop())


def open_fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def own_children() -> set[int]:
    return {child.pid for child in psutil.Process().children()}


async def exit_of(terminal: PtyProcessTerminal, timeout: float = DEFAULT_TIMEOUT_S) -> int | None:
    exits: list[int | None] = []
    terminal.on_exit(exits.append)
    await wait_until(lambda: bool(exits), timeout, what="the exit")
    return exits[0]


@pytest.mark.parametrize("case", CONTRACT_CASES, ids=case_name)
async def test_contract(case: ContractCase, tmp_path: Path) -> None:
    await case(make_terminal, tmp_path)


async def test_factory_creates_unstarted_terminals_on_its_loop(tmp_path: Path) -> None:
    factory = PtyProcessTerminalFactory(asyncio.get_running_loop())
    terminal = factory.create("session-x", "project-y")
    assert isinstance(terminal, TerminalSession)
    assert terminal.session_id == "session-x"
    assert terminal.pid() is None and not terminal.has_exited()
    assert await terminal.screen_text() == ""
    await terminal.start(shell("exit 0", tmp_path))
    assert await exit_of(terminal) == 0
    factory.release("session-x")


# pyte


async def test_sequences_pyte_cannot_handle_are_skipped_and_the_rest_is_kept(tmp_path: Path) -> None:
    # CSI ? 4 m makes pyte raise TypeError; the prefixed ones would otherwise print "u" or set underline.
    script = r"printf 'a\033[>4;?mb\033[?4mc\033[<ud\033[>4;2me\033[=1;1uf\n'; printf 'still-alive\n'; exec sleep 60"
    async with running(make_terminal(), shell(script, tmp_path)) as terminal:
        screen = await wait_for_screen(terminal, "still-alive")
        assert screen.split("\n")[:2] == ["abcdef", "still-alive"]


async def test_prefixed_sequence_split_across_chunks_is_still_removed(tmp_path: Path) -> None:
    script = r"printf 'x\033[<'; sleep 0.2; printf 'uy\n'; exec sleep 60"
    async with running(make_terminal(), shell(script, tmp_path)) as terminal:
        screen = await wait_for_screen(terminal, "y")
        assert screen.split("\n")[0] == "xy"


async def test_narrow_character_over_half_a_wide_one_reads_back(tmp_path: Path) -> None:
    # pyte's own Screen.display raises IndexError on this screen.
    script = r"printf '中x\rA\n'; exec sleep 60"
    async with running(make_terminal(), shell(script, tmp_path)) as terminal:
        screen = await wait_for_screen(terminal, "A")
        assert screen.split("\n")[0] == "A x"


async def test_osc_numbers_pyte_misreads_are_not_titles(tmp_path: Path) -> None:
    # pyte reads only the first digit: OSC 22 (pointer shape) would otherwise become the title ";pointer".
    terminal = make_terminal()
    titles: list[str] = []
    terminal.on_title(titles.append)
    script = r"printf '\033]22;pointer\007\033]2;real-title\007'; exit 0"
    async with running(terminal, shell(script, tmp_path)):
        await exit_of(terminal)
    assert titles == ["real-title"]


async def test_screen_has_the_size_of_the_terminal(tmp_path: Path) -> None:
    spec = shell(r"printf '%s\n' 123456789012345; exec sleep 60", tmp_path, columns=10, lines=5)
    async with running(make_terminal(), spec) as terminal:
        screen = await wait_for_screen(terminal, "12345")
        assert screen.split("\n") == ["1234567890", "12345", "", "", ""]
        await terminal.resize(20, 3)
        assert len((await terminal.screen_text()).split("\n")) == 3


async def test_output_flood_keeps_the_loop_responsive_and_ends_on_screen(tmp_path: Path) -> None:
    # Responsive: other tasks run between the chunks of a flood. A task that only yields counts the turns of
    # the loop; each chunk notes the count it sees. A reader that drained the PTY in one go without giving the
    # loop back would deliver a long run of chunks at the same count. No clock is read: the machine's load
    # cannot change the verdict.
    turns = 0
    seen_at: list[int] = []

    async def yielder() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    yielding = asyncio.create_task(yielder())
    terminal = make_terminal()
    terminal.on_output(lambda _chunk: seen_at.append(turns))
    try:
        async with running(terminal, shell("seq 1 100000", tmp_path)):
            exits: list[int | None] = []
            terminal.on_exit(exits.append)
            # A safety net around a condition: the whole flood is rendered by pyte, slow on a loaded machine.
            await wait_until(lambda: bool(exits), timeout=120, what="the exit")
            assert exits == [0]
            screen = await terminal.screen_text()
    finally:
        yielding.cancel()
    assert screen.rstrip("\n").split("\n")[-1] == "100000"
    assert len(seen_at) > 10
    longest_run = max(len(list(run)) for _count, run in itertools.groupby(seen_at))
    assert longest_run <= 2, f"{longest_run} chunks in a row without the loop running anything else"


# Start


async def test_unusable_programs_raise_process_error_naming_them(tmp_path: Path) -> None:
    plain_file = tmp_path / "notes.txt"
    plain_file.write_text("not a program\n")
    for argv, named in [
        ([str(plain_file)], "notes.txt"),
        ([str(tmp_path)], str(tmp_path)),
        (["./absent-tool"], "absent-tool"),
    ]:
        with pytest.raises(AppError) as raised:
            await make_terminal().start(spawn_spec(argv, tmp_path))
        assert raised.value.code is ErrorCode.PROCESS
        assert named in raised.value.message


@needs_proc_fd
async def test_failed_exec_leaves_no_process_and_no_descriptor(tmp_path: Path) -> None:
    # Executable but in no format the kernel runs: only exec itself can fail on it.
    script = tmp_path / "no-interpreter-line"
    script.write_text("echo hi\n")
    script.chmod(0o755)
    children, fds = own_children(), open_fd_count()
    with pytest.raises(AppError) as raised:
        await make_terminal().start(spawn_spec([str(script)], tmp_path))
    assert raised.value.code is ErrorCode.PROCESS
    assert "no-interpreter-line" in raised.value.message
    assert own_children() == children
    assert open_fd_count() == fds


async def test_program_is_looked_up_on_the_path_of_its_environment_and_relative_to_its_cwd(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    for name, text in [("only-here", "from-path"), ("local", "from-cwd")]:
        tool = tools / name
        tool.write_text(f"#!/bin/sh\nprintf '{text}\\n'\nexec sleep 60\n")
        tool.chmod(0o755)
    on_path = spawn_spec(["only-here"], tmp_path, env={"PATH": f"{tools}:/usr/bin:/bin"})
    async with running(make_terminal(), on_path) as terminal:
        await wait_for_screen(terminal, "from-path")
    relative = spawn_spec(["./local"], tools)
    async with running(make_terminal(), relative) as terminal:
        await wait_for_screen(terminal, "from-cwd")


async def test_a_terminal_runs_one_program(tmp_path: Path) -> None:
    async with running(make_terminal(), shell("exec sleep 60", tmp_path)) as terminal:
        with pytest.raises(AppError) as raised:
            await terminal.start(shell("exit 0", tmp_path))
        assert raised.value.code is ErrorCode.PROCESS


async def test_started_from_a_core_thread_children_still_get_default_signals(tmp_path: Path) -> None:
    # The fork happens on a thread other than the main one; restoring SIGPIPE must work there too.
    core = CoreLoop("test-core").start()
    try:
        terminal = PtyProcessTerminal("core-session", core.loop)
        script = "{ yes; echo $? > yes.status; } | head -n 1 > /dev/null; exit 0"

        async def run() -> int | None:
            exits: list[int | None] = []
            terminal.on_exit(exits.append)
            await terminal.start(shell(script, tmp_path))
            await wait_until(lambda: bool(exits), what="the exit")
            return exits[0]

        assert await asyncio.wrap_future(core.submit(run())) == 0
        assert (tmp_path / "yes.status").read_text().strip() == "141"
    finally:
        core.stop()


# Exit


@needs_proc_fd
async def test_descriptors_are_released_after_exit_and_failed_starts(tmp_path: Path) -> None:
    fds = open_fd_count()
    for _ in range(5):
        terminal = make_terminal()
        await terminal.start(shell("printf 'bye\\n'", tmp_path))
        assert await exit_of(terminal) == 0
        with pytest.raises(AppError):
            await make_terminal().start(spawn_spec(["idea-no-such-program"], tmp_path))
    terminated = make_terminal()
    async with running(terminated, shell("exec sleep 60", tmp_path)):
        pass
    assert terminated.has_exited()
    assert open_fd_count() == fds


async def test_exit_is_reported_while_a_detached_process_keeps_the_terminal_open(tmp_path: Path) -> None:
    # The end of output never comes: the holder keeps the terminal's other side open.
    script = """
        setsid sh -c 'echo $$ > holder.pid; exec sleep 60' &
        while [ ! -s holder.pid ]; do sleep 0.05; done
        exit 5
    """
    terminal = make_terminal()
    try:
        async with running(terminal, shell(script, tmp_path)):
            assert await exit_of(terminal) == 5
            # Reported while the holder, which keeps the output open for a minute, still runs: the exit did
            # not wait for the end of the output.
            holder = read_pid(tmp_path / "holder.pid")
            assert holder is not None and psutil.pid_exists(holder)
    finally:
        holder = read_pid(tmp_path / "holder.pid")
        if holder is not None:
            os.kill(holder, signal.SIGKILL)


async def test_output_still_waiting_when_the_exit_is_reported_is_read_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A starved reader, as on a loop busy with other work: only the final drain can take the output.
    script = """
        setsid sh -c 'echo $$ > holder.pid; exec sleep 60' &
        while [ ! -s holder.pid ]; do sleep 0.05; done
        printf 'final-words'
        exit 5
    """
    terminal = make_terminal()
    monkeypatch.setattr(terminal, "_on_readable", lambda: None)
    try:
        async with running(terminal, shell(script, tmp_path)):
            assert await exit_of(terminal) == 5
            assert "final-words" in await terminal.screen_text()
    finally:
        holder = read_pid(tmp_path / "holder.pid")
        if holder is not None:
            os.kill(holder, signal.SIGKILL)


async def test_exit_waits_for_the_program_not_for_the_end_of_its_output(tmp_path: Path) -> None:
    # Every handle on the terminal closes at once; the exit, with its status, comes 0.3 s later.
    script = "exec > /dev/null 2>&1 < /dev/null; sleep 0.3; exit 4"
    terminal = make_terminal()
    async with running(terminal, shell(script, tmp_path)):
        assert await exit_of(terminal) == 4


async def test_exit_is_found_by_polling_where_pidfd_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    terminal = make_terminal()
    async with running(terminal, shell("printf 'polled\\n'; exit 6", tmp_path)):
        assert await exit_of(terminal) == 6
        assert "polled" in await terminal.screen_text()


async def test_terminate_after_exit_ends_what_the_agent_left_behind(tmp_path: Path) -> None:
    # An agent CLI that quit while its daemon lives on, as Codex does.
    script = """
        (setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' &)
        while [ ! -s daemon.pid ]; do sleep 0.05; done
        exit 0
    """
    terminal = make_terminal()
    await terminal.start(shell(script, tmp_path, env={"IDEA_AGENT_ID": str(uuid.uuid4())}))
    try:
        assert await exit_of(terminal) == 0
        await wait_until(lambda: read_pid(tmp_path / "daemon.pid") is not None, what="the daemon")
        daemon = read_pid(tmp_path / "daemon.pid")
        assert daemon is not None and not is_gone(daemon)
        await terminal.terminate(grace_ms=1000)
        assert is_gone(daemon)
    finally:
        daemon = read_pid(tmp_path / "daemon.pid")
        if daemon is not None and not is_gone(daemon):
            os.kill(daemon, signal.SIGKILL)


async def test_writing_without_a_running_program_raises_process_error(tmp_path: Path) -> None:
    terminal = make_terminal()
    with pytest.raises(AppError) as before_start:
        await terminal.write_text("x")
    assert before_start.value.code is ErrorCode.PROCESS
    await terminal.start(shell("exit 0", tmp_path))
    await exit_of(terminal)
    with pytest.raises(AppError) as after_exit:
        await terminal.write_text("x")
    assert after_exit.value.code is ErrorCode.PROCESS
    assert terminal.foreground_pid() is None


async def test_a_late_exit_subscriber_is_still_told(tmp_path: Path) -> None:
    terminal = make_terminal()
    await terminal.start(shell("exit 2", tmp_path))
    await exit_of(terminal)
    late: list[int | None] = []
    terminal.on_exit(late.append)
    await wait_until(lambda: late == [2], what="the late subscriber")


# Subscriptions


async def test_unsubscribed_callbacks_are_not_called_and_a_failing_one_harms_nothing(tmp_path: Path) -> None:
    terminal = make_terminal()
    outputs: list[bytes] = []
    exits: list[int | None] = []
    titles: list[str] = []
    dropped: list[object] = []

    def failing(_: object) -> None:
        raise RuntimeError("a subscriber bug")

    for subscribe in (terminal.on_output, terminal.on_exit, terminal.on_title):
        subscribe(failing)  # registered first: the others must still be called
        unsubscribe = subscribe(dropped.append)
        unsubscribe()
        unsubscribe()  # twice is harmless
    terminal.on_output(outputs.append)
    terminal.on_exit(exits.append)
    terminal.on_title(titles.append)
    script = r"printf '\033]0;the-title\007visible\n'; exit 0"
    async with running(terminal, shell(script, tmp_path)):
        await wait_until(lambda: bool(exits), what="the exit")
    assert b"visible" in b"".join(outputs)
    assert titles == ["the-title"]
    assert exits == [0]
    assert dropped == []
