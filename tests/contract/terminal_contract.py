"""The contract every TerminalSession adapter passes (spec 01 §12, acceptance UI-8, UI-9, UI-11).

Backend-neutral: the cases use only the port, POSIX tools (sh, printf, cat, stty, head, yes, setsid, sleep)
and the running Python. An adapter's test module runs every case:

    @pytest.mark.parametrize("case", CONTRACT_CASES, ids=case_name)
    async def test_contract(case, tmp_path):
        await case(make_terminal, tmp_path)

Each case starts what it needs and ends every process it started. Waiting is done by polling with a
deadline (wait_until), never by fixed sleeps; the `sleep` calls inside the shell scripts split the program's
output into separate chunks on purpose.

Adapters are expected to take IDEA_AGENT_ID from the spawn environment and end the agent's marked processes
on terminate (spec 01 §9).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import shlex
import signal
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import psutil
import pytest

from idea.application.ports import OUTPUT_TAIL_BYTES, TerminalSession
from idea.domain.errors import AppError, ErrorCode
from idea.domain.spawn_env import build_spawn_env
from idea.domain.terminal import SpawnSpec

MakeTerminal = Callable[[], TerminalSession]
ContractCase = Callable[[MakeTerminal, Path], Awaitable[None]]

DEFAULT_TIMEOUT_S = 60.0  # a safety net around condition waits: only a broken run waits it out

# Puts its terminal in raw mode, writes the query given in hex, reads the reply up to one of the given
# endings (hex) and prints it in hex, so the reply reaches the screen as plain text.
_QUERY_PROGRAM = r"""
import os, select, sys, termios, tty
query = bytes.fromhex(sys.argv[1])
endings = [bytes.fromhex(ending) for ending in sys.argv[2:]]
saved = termios.tcgetattr(0)
tty.setraw(0)
try:
    os.write(1, query)
    reply = b""
    while not any(reply.endswith(ending) for ending in endings) and select.select([0], [], [], 5)[0]:
        reply += os.read(0, 1)
finally:
    termios.tcsetattr(0, termios.TCSADRAIN, saved)
print("REPLY:" + reply.hex())
"""


# Helpers


def case_name(case: ContractCase) -> str:
    return case.__name__.removeprefix("case_")


async def wait_until(
    predicate: Callable[[], bool | Awaitable[bool]], timeout: float = DEFAULT_TIMEOUT_S, *, what: str = ""
) -> None:
    """Poll `predicate` (plain or async) until it holds; AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        outcome = predicate()
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if outcome:
            return
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.1f} s waiting for {what or predicate}")
        await asyncio.sleep(0.02)


async def wait_for_screen(terminal: TerminalSession, text: str, timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """The screen once it shows `text`; on timeout the failure shows the screen."""
    screen = ""

    async def shows_text() -> bool:
        nonlocal screen
        screen = await terminal.screen_text()
        return text in screen

    try:
        await wait_until(shows_text, timeout, what=repr(text))
    except AssertionError as error:
        raise AssertionError(f"{error}; the screen was:\n{screen}") from None
    return screen


def spawn_spec(
    argv: list[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    columns: int = 120,
    lines: int = 40,
) -> SpawnSpec:
    """A spec with the environment IdeA gives every terminal child, plus `env`."""
    full_env = build_spawn_env(os.environ, idea_version="contract", extra=env)
    return SpawnSpec(argv=tuple(argv), cwd=str(cwd), env=full_env, columns=columns, lines=lines)


def shell(
    script: str, cwd: Path, *, env: Mapping[str, str] | None = None, columns: int = 120, lines: int = 40
) -> SpawnSpec:
    return spawn_spec(["sh", "-c", script], cwd, env=env, columns=columns, lines=lines)


@asynccontextmanager
async def running(terminal: TerminalSession, spec: SpawnSpec) -> AsyncIterator[TerminalSession]:
    """Start `spec` in `terminal`; whatever happens, the program and its descendants are ended after."""
    await terminal.start(spec)
    try:
        yield terminal
    finally:
        await terminal.terminate(grace_ms=1000)


def is_gone(pid: int) -> bool:
    """Exited: no such process, or a zombie waiting for its parent."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def read_pid(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    return int(text) if text.isdigit() else None


def query_program(query: bytes, *endings: bytes) -> list[str]:
    return [sys.executable, "-c", _QUERY_PROGRAM, query.hex(), *(ending.hex() for ending in endings)]


async def query_reply(terminal: TerminalSession) -> bytes:
    """The reply printed by a query_program once it has run."""
    screen = await wait_for_screen(terminal, "REPLY:")
    found = re.search(r"REPLY:([0-9a-f]*)", screen)
    assert found is not None
    return bytes.fromhex(found.group(1))


# Cases


async def case_output_appears_on_screen(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    spec = shell("printf 'hello-%s\\n' $((40+2)); exec sleep 60", tmp_path)
    async with running(make_terminal(), spec) as terminal:
        screen = await wait_for_screen(terminal, "hello-")
        assert screen.split("\n")[0] == "hello-42"


async def case_wide_characters_and_truecolor_read_back_as_text(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    script = r"printf '\033[38;2;255;120;0mTRUECOLOR 中文\033[0m|end\n'; exec sleep 60"
    async with running(make_terminal(), shell(script, tmp_path)) as terminal:
        screen = await wait_for_screen(terminal, "|end")
        assert "TRUECOLOR 中文|end" in screen.split("\n")


async def case_sequences_split_across_output_chunks_survive(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # 中 is \344\270\255: the character and the truecolor sequence each arrive in two writes.
    script = (
        r"printf '\344\270'; sleep 0.2; printf '\255\033[38;2;'; sleep 0.2; printf '1;2;3mSPLIT\033[0m|\n';"
        " exec sleep 60"
    )
    async with running(make_terminal(), shell(script, tmp_path)) as terminal:
        screen = await wait_for_screen(terminal, "SPLIT")
        assert "中SPLIT|" in screen.split("\n")


async def case_written_text_reaches_the_program(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    async with running(make_terminal(), spawn_spec(["cat"], tmp_path)) as terminal:
        await terminal.write_text("ping-中文\r")
        # Once echoed by the terminal, once printed by cat.
        await wait_until(
            lambda: _count_lines(terminal, "ping-中文", at_least=2), what="the echo and cat's copy of the line"
        )


async def case_escape_bytes_written_reach_the_program_unchanged(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # UI-8: a bracketed delivery arrives as one input with its markers intact.
    spec = shell("stty -echo; printf 'ready\\n'; exec cat -v", tmp_path)
    async with running(make_terminal(), spec) as terminal:
        await wait_for_screen(terminal, "ready")
        await terminal.write_text("\x1b[200~PASTED\x1b[201~\r")
        await wait_for_screen(terminal, "^[[200~PASTED^[[201~")


async def case_large_input_arrives_whole(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # Far more than the terminal's input buffer: the writer has to wait for the program to read.
    text = "".join(f"line {number:06d} äöü 中文 {'x' * 60}\n" for number in range(3000))
    data = text.encode("utf-8")
    received = tmp_path / "received"
    script = f"stty raw -echo; printf 'ready'; head -c {len(data)} > {shlex.quote(str(received))}"
    terminal = make_terminal()
    exits: list[int | None] = []
    terminal.on_exit(exits.append)
    async with running(terminal, shell(script, tmp_path)):
        await wait_for_screen(terminal, "ready")
        await terminal.write_text(text)
        await wait_until(lambda: bool(exits), what="head to exit")
    assert exits == [0]
    assert received.read_bytes() == data


async def case_stty_size_follows_spawn_size_and_resize(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    spec = shell("stty size; read line; stty size; exec sleep 60", tmp_path, columns=100, lines=30)
    async with running(make_terminal(), spec) as terminal:
        await wait_for_screen(terminal, "30 100")
        await terminal.resize(90, 25)
        await terminal.write_text("\r")
        await wait_for_screen(terminal, "25 90")


async def case_working_directory_and_environment_are_honoured(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    script = 'pwd -P; printf "%s\\n" "$IDEA_CONTRACT_PROBE" "$TERM"; exec sleep 60'
    spec = shell(script, tmp_path, env={"IDEA_CONTRACT_PROBE": "probe-värde-7"}, columns=400)
    async with running(make_terminal(), spec) as terminal:
        screen = await wait_for_screen(terminal, "xterm-256color")
        assert screen.split("\n")[:3] == [str(tmp_path.resolve()), "probe-värde-7", "xterm-256color"]


async def case_exit_code_and_last_output_are_reported(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    terminal = make_terminal()
    exits: list[int | None] = []
    terminal.on_exit(exits.append)
    async with running(terminal, shell("printf 'last-words'; exit 3", tmp_path)):
        await wait_until(lambda: bool(exits), what="the exit")
        assert exits == [3]
        assert terminal.has_exited()
        assert terminal.exit_code() == 3
        assert "last-words" in await terminal.screen_text()
    assert exits == [3]


async def case_death_by_signal_is_reported(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    terminal = make_terminal()
    exits: list[int | None] = []
    terminal.on_exit(exits.append)
    async with running(terminal, shell("kill -TERM $$", tmp_path)):
        await wait_until(lambda: bool(exits), what="the exit")
    # Adapters report either -N (like subprocess) or 128+N (like a shell).
    assert exits[0] in (-signal.SIGTERM, 128 + signal.SIGTERM)
    assert terminal.exit_code() == exits[0]


async def case_missing_program_raises_process_error(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    terminal = make_terminal()
    with pytest.raises(AppError) as raised:
        await terminal.start(spawn_spec(["idea-contract-no-such-program"], tmp_path))
    assert raised.value.code is ErrorCode.PROCESS
    assert "idea-contract-no-such-program" in raised.value.message


async def case_missing_working_directory_raises_process_error(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    terminal = make_terminal()
    with pytest.raises(AppError) as raised:
        await terminal.start(spawn_spec(["sh", "-c", "exit 0"], tmp_path / "gone"))
    assert raised.value.code is ErrorCode.PROCESS
    assert "gone" in raised.value.message


async def case_bracketed_paste_mode_is_followed_from_output(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # Switched on by a sequence split across two writes, off inside a combined private-mode sequence.
    script = r"printf '\033[?20'; sleep 0.2; printf '04h'; read on; printf '\033[?1049;2004l'; read off; exec sleep 60"
    terminal = make_terminal()
    assert not terminal.bracketed_paste_enabled()
    async with running(terminal, shell(script, tmp_path)):
        await wait_until(terminal.bracketed_paste_enabled, what="bracketed paste on")
        await terminal.write_text("\r")
        await wait_until(lambda: not terminal.bracketed_paste_enabled(), what="bracketed paste off")


async def case_background_colour_query_gets_rgb_reply(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # UI-9
    spec = spawn_spec(query_program(b"\x1b]11;?\x07", b"\x07", b"\x1b\\"), tmp_path)
    async with running(make_terminal(), spec) as terminal:
        reply = await query_reply(terminal)
    assert re.fullmatch(rb"\x1b\]11;rgb:[0-9a-f]{2,4}/[0-9a-f]{2,4}/[0-9a-f]{2,4}(\x07|\x1b\\)", reply), reply


# Raw mode; `write` gives its data in writes of 4 KB (a flood, as `cat` of a log gives).
_FLOOD_WRITER = r"""
import os, select, sys, tty
flood = bytes.fromhex(sys.argv[1]) * int(sys.argv[2])
tty.setraw(0)
def write(data):
    for start in range(0, len(data), 4096):
        os.write(1, data[start : start + 4096])
"""
# A megabyte of coloured lines, then bracketed paste on and a background colour query, whose reply it prints in
# hex.
_FLOOD_PROGRAM = _FLOOD_WRITER + r"""
write(flood)
os.write(1, b"\x1b[?2004h\x1b]11;?\x07")
reply = b""
while not reply.endswith((b"\x07", b"\x1b\\")) and select.select([0], [], [], 5)[0]:
    reply += os.read(0, 1)
os.write(1, b"\r\nREPLY:" + reply.hex().encode() + b"\r\n")
select.select([0], [], [], 60)
"""
_FLOOD_LINE = b"".join(b"\x1b[3%dmword%d\x1b[0m " % (n % 8, n) for n in range(12)) + b"\r\n"


async def case_a_flood_reaches_subscribers_whole_and_the_query_after_it_is_answered(
    make_terminal: MakeTerminal, tmp_path: Path
) -> None:
    """Output subscribers hear a flood in order, at least its end (an adapter may give only more than
    `OUTPUT_TAIL_BYTES` of each batch: `TerminalSession.on_output`), then what follows it, however the adapter
    batches it; the scanners read all of it (bracketed paste and colour queries right after it)."""
    repeats = 1024 * 1024 // len(_FLOOD_LINE)
    received: list[bytes] = []
    terminal = make_terminal()
    terminal.on_output(received.append)
    spec = spawn_spec([sys.executable, "-c", _FLOOD_PROGRAM, _FLOOD_LINE.hex(), str(repeats)], tmp_path)
    async with running(terminal, spec):
        reply = await query_reply(terminal)
        assert re.fullmatch(rb"\x1b\]11;rgb:[0-9a-f]{2,4}/[0-9a-f]{2,4}/[0-9a-f]{2,4}(\x07|\x1b\\)", reply), reply
        assert terminal.bracketed_paste_enabled()
        await wait_until(lambda: b"REPLY:" in b"".join(received), what="the reply line among the output")
    flood, marker, after = b"".join(received).partition(b"\x1b[?2004h\x1b]11;?\x07")
    assert marker and b"REPLY:" in after
    # What followed the flood came in its last batch, with more than OUTPUT_TAIL_BYTES in all: the rest of
    # that is the flood's end, whole.
    end = _FLOOD_LINE * ((OUTPUT_TAIL_BYTES - len(marker) - len(after)) // len(_FLOOD_LINE))
    assert flood.endswith(end) and len(flood) <= len(_FLOOD_LINE) * repeats, len(flood)


# Half a megabyte of coloured lines on each side of DECSET 2004, as fast as the terminal takes them: a mode
# set in the middle of a flood is followed, however little of the flood an adapter keeps for its subscribers.
_MODE_IN_A_FLOOD_PROGRAM = _FLOOD_WRITER + r"""
write(flood)
os.write(1, b"\x1b[?2004h")
write(flood)
os.write(1, b"\r\nDONE\r\n")
select.select([0], [], [], 60)
"""


async def case_bracketed_paste_set_in_the_middle_of_a_flood_is_followed(
    make_terminal: MakeTerminal, tmp_path: Path
) -> None:
    repeats = 512 * 1024 // len(_FLOOD_LINE)
    spec = spawn_spec([sys.executable, "-c", _MODE_IN_A_FLOOD_PROGRAM, _FLOOD_LINE.hex(), str(repeats)], tmp_path)
    async with running(make_terminal(), spec) as terminal:
        await wait_for_screen(terminal, "DONE")
        assert terminal.bracketed_paste_enabled()


async def case_cursor_position_report_gets_reply(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # UI-9: Codex stops at startup without this answer. Home, clear, three characters: column 4 of line 1.
    spec = spawn_spec(query_program(b"\x1b[H\x1b[2Jabc\x1b[6n", b"R"), tmp_path)
    async with running(make_terminal(), spec) as terminal:
        reply = await query_reply(terminal)
    assert reply == b"\x1b[1;4R"


async def case_device_attributes_get_replies(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    primary = spawn_spec(query_program(b"\x1b[c", b"c"), tmp_path)
    async with running(make_terminal(), primary) as terminal:
        assert re.fullmatch(rb"\x1b\[\?[0-9;]+c", await query_reply(terminal))
    secondary = spawn_spec(query_program(b"\x1b[>c", b"c"), tmp_path)
    async with running(make_terminal(), secondary) as terminal:
        assert re.fullmatch(rb"\x1b\[>[0-9;]+c", await query_reply(terminal))


async def case_title_changes_are_reported(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    terminal = make_terminal()
    titles: list[str] = []
    terminal.on_title(titles.append)
    script = r"printf '\033]0;my-title\007'; sleep 0.1; printf '\033]2;second title\033\\'; exec sleep 60"
    async with running(terminal, shell(script, tmp_path)):
        await wait_until(lambda: "second title" in titles, what="the second title")
    assert titles.index("my-title") < titles.index("second title")


async def case_programs_start_with_default_signal_handling(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # yes must die of SIGPIPE (status 141) once head has gone, not see write errors: a child of a process
    # that ignores SIGPIPE (Python does) inherits the ignore unless the terminal restores it.
    status = tmp_path / "yes.status"
    script = "{ yes; echo $? > yes.status; } | head -n 1 > /dev/null; printf 'pipeline-done\\n'; exec sleep 60"
    async with running(make_terminal(), shell(script, tmp_path)) as terminal:
        await wait_for_screen(terminal, "pipeline-done")
    assert status.read_text().strip() == "141"


async def case_pid_and_foreground_pid(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    terminal = make_terminal()
    pid = await terminal.start(spawn_spec(["sh", "-i"], tmp_path, env={"PS1": "prompt> "}))
    try:
        assert terminal.pid() == pid
        await wait_for_screen(terminal, "prompt>")
        assert terminal.foreground_pid() == pid
        await terminal.write_text("sleep 60\r")

        def sleep_in_foreground() -> bool:
            foreground = terminal.foreground_pid()
            return foreground not in (None, pid) and _name(foreground) == "sleep"

        await wait_until(sleep_in_foreground, what="sleep as the foreground process")
        assert not terminal.has_exited()
        assert terminal.exit_code() is None
    finally:
        await terminal.terminate(grace_ms=1000)


async def case_terminate_ends_group_and_detached_descendant(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # UI-11: the detached daemon ignores SIGHUP and SIGTERM, so only the SIGKILL after the grace ends it.
    script = """
        sleep 300 &
        echo $! > grandchild.pid
        setsid sh -c 'trap "" HUP TERM; echo $$ > daemon.pid; exec sleep 300' &
        wait
    """
    terminal = make_terminal()
    async with running(terminal, shell(script, tmp_path)):
        await wait_until(
            lambda: None not in (read_pid(tmp_path / "grandchild.pid"), read_pid(tmp_path / "daemon.pid")),
            what="both pid files",
        )
        pids = [terminal.pid(), read_pid(tmp_path / "grandchild.pid"), read_pid(tmp_path / "daemon.pid")]
        assert all(pid is not None and not is_gone(pid) for pid in pids)
        started = time.monotonic()
        await terminal.terminate(grace_ms=3000)
        remaining = 3.5 - (time.monotonic() - started)
        await wait_until(lambda: all(is_gone(pid) for pid in pids if pid), max(remaining, 0.0), what="all gone")
        assert terminal.has_exited()


async def case_terminate_ends_the_agents_double_forked_daemon(make_terminal: MakeTerminal, tmp_path: Path) -> None:
    # Like `codex app-server --managed-daemon`: re-parented away from the tree, found by IDEA_AGENT_ID.
    script = """
        (setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' &)
        exec sleep 300
    """
    spec = shell(script, tmp_path, env={"IDEA_AGENT_ID": str(uuid.uuid4())})
    terminal = make_terminal()
    async with running(terminal, spec):
        await wait_until(lambda: read_pid(tmp_path / "daemon.pid") is not None, what="the daemon")
        daemon = read_pid(tmp_path / "daemon.pid")
        assert daemon is not None and terminal.pid() is not None
        assert daemon not in {child.pid for child in psutil.Process(terminal.pid()).children(recursive=True)}
        await terminal.terminate(grace_ms=1000)
        await wait_until(lambda: is_gone(daemon), 2.5, what="the daemon gone")


CONTRACT_CASES: list[ContractCase] = [
    case_output_appears_on_screen,
    case_wide_characters_and_truecolor_read_back_as_text,
    case_sequences_split_across_output_chunks_survive,
    case_written_text_reaches_the_program,
    case_escape_bytes_written_reach_the_program_unchanged,
    case_large_input_arrives_whole,
    case_stty_size_follows_spawn_size_and_resize,
    case_working_directory_and_environment_are_honoured,
    case_exit_code_and_last_output_are_reported,
    case_death_by_signal_is_reported,
    case_missing_program_raises_process_error,
    case_missing_working_directory_raises_process_error,
    case_bracketed_paste_mode_is_followed_from_output,
    case_bracketed_paste_set_in_the_middle_of_a_flood_is_followed,
    case_background_colour_query_gets_rgb_reply,
    case_a_flood_reaches_subscribers_whole_and_the_query_after_it_is_answered,
    case_cursor_position_report_gets_reply,
    case_device_attributes_get_replies,
    case_title_changes_are_reported,
    case_programs_start_with_default_signal_handling,
    case_pid_and_foreground_pid,
    case_terminate_ends_group_and_detached_descendant,
    case_terminate_ends_the_agents_double_forked_daemon,
]


async def _count_lines(terminal: TerminalSession, line: str, *, at_least: int) -> bool:
    return (await terminal.screen_text()).split("\n").count(line) >= at_least


def _name(pid: int | None) -> str | None:
    try:
        return psutil.Process(pid).name() if pid is not None else None
    except psutil.Error:
        return None
