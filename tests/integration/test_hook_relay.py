"""`idea hook`, the relay agent CLIs run on lifecycle events (spec 05 §3), started as the run dir declares it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Mapping
from typing import Any

from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.hooks.relay import PAYLOAD_LIMIT, TRUNCATION_MARK
from tests.fakes_gateway import ARCHITECT, MAIN, TOKENS
from tests.integration.mcp_support import REPO_ROOT, Served, bridge_env, hook_command, serving
from tests.integration.mcp_support import endpoint, served  # noqa: F401  (fixtures)

CLAUDE_STOP = {
    "session_id": "9b2f7c1e-0d3a-4e5b-8c6d-7e8f9a0b1c2d",
    "transcript_path": "/home/ada/.claude/projects/-home-ada-shop/9b2f.jsonl",
    "cwd": "/home/ada/shop/.ideai/run/x",
    "hook_event_name": "Stop",
    "stop_hook_active": False,
}
GEMINI_AFTER_AGENT = {
    "session_id": "4c1d8e2a-7b3f-4a9e-8d2c-1f0e9a8b7c6d",
    "transcript_path": "/home/ada/.gemini/tmp/shop/chats/session-2026-12-05T01-10-4c1d8e2a.jsonl",
    "cwd": "/home/ada/shop/.ideai/run/x",
    "hook_event_name": "AfterAgent",
    "timestamp": "2026-12-05T01:10:00.000Z",
    "prompt": "[IdeA · task from Main · ticket 3f2a9c1e] review the ports",
    "prompt_response": "Done.",
    "stop_hook_active": False,
}
CODEX_TURN = {
    "type": "agent-turn-complete",
    "thread-id": "01a228ba-8e6d-78e3-9bc1-15ddaff71950",
    "turn-id": "7",
    "cwd": "/home/ada/shop",
    "input-messages": ["[IdeA · task from Main · ticket 3f2a9c1e] review the ports"],
    "last-assistant-message": "Done.",
}


async def run_relay(
    argv: list[str], *, stdin: bytes = b"", token: str | None = TOKENS[MAIN]
) -> tuple[int, bytes, bytes, float]:
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=REPO_ROOT,
        env=bridge_env(token),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(stdin), 10)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return process.returncode, stdout, stderr, time.monotonic() - started


async def test_a_claude_event_on_stdin_reaches_the_gateway(served: Served) -> None:
    status, stdout, _, _ = await run_relay(
        [*hook_command("claude", served.endpoint), "--event", "Stop"], stdin=json.dumps(CLAUDE_STOP).encode()
    )

    assert (status, stdout) == (0, b"")
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    [event] = served.gateway.hook_events
    assert (event.agent_id, event.source, event.event, event.payload) == (MAIN, "claude", "Stop", CLAUDE_STOP)
    assert served.beacons("[hook]") == [f"[hook] claude Stop agent={MAIN}"]


async def test_a_gemini_event_on_stdin_reaches_the_gateway_under_the_name_its_hook_line_gives(
    served: Served,
) -> None:
    status, stdout, stderr, _ = await run_relay(
        [*hook_command("gemini", served.endpoint), "--event", "Stop"], stdin=json.dumps(GEMINI_AFTER_AGENT).encode()
    )

    assert (status, stdout, stderr) == (0, b"", b"")
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    [event] = served.gateway.hook_events
    assert (event.source, event.event, event.payload) == ("gemini", "Stop", GEMINI_AFTER_AGENT)


async def test_a_codex_notification_as_last_argument_reaches_the_gateway(served: Served) -> None:
    status, stdout, _, _ = await run_relay([*hook_command("codex", served.endpoint), json.dumps(CODEX_TURN)])

    assert (status, stdout) == (0, b"")
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    [event] = served.gateway.hook_events
    assert (event.source, event.event, event.payload) == ("codex", "agent-turn-complete", CODEX_TURN)


async def test_a_codex_notification_of_a_thread_the_filter_refuses_never_reaches_the_gateway(endpoint: str) -> None:
    def ignored(agent_id: str, source: str, payload: Mapping[str, Any]) -> str | None:
        return "a session title" if payload.get("thread-id") == CODEX_TURN["thread-id"] else None

    async with serving(endpoint, hook_filter=ignored) as served:
        title = await run_relay([*hook_command("codex", served.endpoint), json.dumps(CODEX_TURN)])
        own = {**CODEX_TURN, "thread-id": "01a2429a-ec2d-7833-aaab-96f50414db41"}
        turn = await run_relay([*hook_command("codex", served.endpoint), json.dumps(own)])
        assert title[0] == turn[0] == 0
        await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)

    assert [event.payload for event in served.gateway.hook_events] == [own]
    assert served.beacons("[hook]")[0] == (
        f"[hook] codex agent-turn-complete agent={MAIN} ignored: a session title"
    )


async def test_a_large_payload_is_cut_to_64_kib_keeping_the_start_of_long_strings(served: Served) -> None:
    prompt = "[IdeA · task from Main · ticket 3f2a9c1e] " + "x" * 150_000
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": prompt}

    status, _, _, _ = await run_relay(
        [*hook_command("claude", served.endpoint), "--event", "UserPromptSubmit"],
        stdin=json.dumps(payload).encode(),
    )

    assert status == 0
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    relayed = served.gateway.hook_events[0].payload
    assert len(json.dumps(relayed, ensure_ascii=False).encode()) <= PAYLOAD_LIMIT
    assert relayed["prompt"].startswith("[IdeA · task from Main · ticket 3f2a9c1e] xxx")
    assert relayed["prompt"].endswith(TRUNCATION_MARK)
    assert relayed["session_id"] == "s"


async def test_a_payload_that_is_not_json_is_still_relayed(served: Served) -> None:
    status, _, _, _ = await run_relay(
        [*hook_command("claude", served.endpoint), "--event", "Notification"], stdin=b"oops"
    )

    assert status == 0
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    assert served.gateway.hook_events[0].payload == {"raw": "oops"}


async def test_an_unreachable_idea_is_silent_on_stdout_and_exits_0(endpoint: str) -> None:
    status, stdout, stderr, elapsed = await run_relay(
        [*hook_command("claude", endpoint), "--event", "Stop"], stdin=json.dumps(CLAUDE_STOP).encode()
    )

    assert (status, stdout) == (0, b"")
    assert b"IdeA is not listening" in stderr
    assert elapsed < 2.0  # spawn included; the relay itself waits at most a few hundred ms


async def test_for_gemini_an_unreachable_idea_is_silent_on_both_outputs(endpoint: str) -> None:
    """Gemini CLI shows a hook's stderr to the person, as a message of the conversation."""
    down = await run_relay(
        [*hook_command("gemini", endpoint), "--event", "Stop"], stdin=json.dumps(GEMINI_AFTER_AGENT).encode()
    )

    assert down[:3] == (0, b"", b"")


async def test_for_gemini_a_refusing_idea_is_silent_on_both_outputs(served: Served) -> None:
    refused = await run_relay(
        [*hook_command("gemini", served.endpoint, ARCHITECT), "--event", "Stop"],
        stdin=json.dumps(GEMINI_AFTER_AGENT).encode(),
        token=TOKENS[MAIN],
    )

    assert refused[:3] == (0, b"", b"")
    assert served.gateway.hook_events == []
    assert served.beacons("[hook] refused") == [f"[hook] refused handshake agent={ARCHITECT}"]


async def test_a_wrong_token_is_refused_and_the_event_dropped(served: Served) -> None:
    status, stdout, stderr, _ = await run_relay(
        [*hook_command("claude", served.endpoint, ARCHITECT), "--event", "Stop"],
        stdin=json.dumps(CLAUDE_STOP).encode(),
        token=TOKENS[MAIN],
    )

    assert (status, stdout) == (0, b"")
    assert b"PERMISSION_DENIED" in stderr
    assert served.gateway.hook_events == []
    assert served.beacons("[hook] refused") == [f"[hook] refused handshake agent={ARCHITECT}"]


async def test_bad_usage_still_exits_0_without_output(endpoint: str) -> None:
    status, stdout, stderr, _ = await run_relay(
        [*idea_command(), "hook", "--source", "aider", "--endpoint", endpoint]
    )

    assert (status, stdout) == (0, b"")
    assert b"usage: idea hook" in stderr


async def test_the_declared_relay_relays_without_site_the_idea_package_json_or_socket(served: Served) -> None:
    """The speed design, over either transport: what the relay loaded by the time the event was taken."""
    command = hook_command("claude", served.endpoint)
    assert command[1:4] == ["-I", "-S", "-c"] and "import relay" in command[4]
    probe = command[4].replace("sys.exit(relay.run_hook(sys.argv[1:]))", "relay.run_hook(sys.argv[1:]);print(sorted(sys.modules))")
    status, stdout, stderr, _ = await run_relay(
        [*command[:4], probe, *command[5:], "--event", "Stop"], stdin=json.dumps(CLAUDE_STOP).encode()
    )

    assert status == 0 and stderr == b"", stderr
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    loaded = stdout.decode()
    assert "'relay'" in loaded
    for heavy in ("'idea", "'json'", "'socket'", "'site'", "'typing'", "'threading'", "'re'"):
        assert heavy not in loaded, heavy


def test_the_relay_code_carries_no_character_a_windows_hook_line_refuses() -> None:
    """Claude on Windows runs hooks through cmd.exe or Git Bash: the code and the folder are separate words."""
    from idea.domain.command_line import windows_shell_line, windows_shell_split
    from idea.infrastructure.agents.hook_command import hook_relay_command

    python = r"C:\Users\Jean Dupré\AppData\Local\Programs\IdeA\python\pythonw.exe"
    command = hook_relay_command({}, executable=python, platform="win32")
    assert command[0].endswith(r"\python\python.exe")  # the console interpreter: the relay reads stdin
    assert windows_shell_split(windows_shell_line(command)) == command


def test_the_relay_token_variable_is_the_launch_secret_one() -> None:
    from idea.domain.launch_secret import TOKEN_ENV_VAR
    from idea.infrastructure.hooks.relay import TOKEN_ENV_VAR as RELAY_TOKEN_ENV_VAR

    assert RELAY_TOKEN_ENV_VAR == TOKEN_ENV_VAR


async def test_lr12_idea_down_exits_0_fast_and_idea_up_stop_reaches_the_gateway(endpoint: str) -> None:
    """LR-12, through the relay as the run dir declares it: with IdeA down, exit 0 with nothing on stdout
    well within 500 ms of relay time; with IdeA up, `Stop` is taken (the gateway maps it to `turnEnded`)."""
    status, stdout, _, elapsed = await run_relay(
        [*hook_command("claude", endpoint), "--event", "Stop"], stdin=json.dumps(CLAUDE_STOP).encode()
    )
    assert (status, stdout) == (0, b"")
    assert elapsed < 2.0  # process start included; the relay's own waits are bounded by 300 ms
    async with serving(endpoint) as served:
        status, stdout, _, _ = await run_relay(
            [*hook_command("claude", served.endpoint), "--event", "Stop"], stdin=json.dumps(CLAUDE_STOP).encode()
        )
        assert (status, stdout) == (0, b"")
        await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
        assert served.gateway.hook_events[0].event == "Stop"


async def test_a_multi_line_json_payload_arrives_whole(served: Served) -> None:
    pretty = json.dumps({**CLAUDE_STOP, "message": "two\nlines"}, indent=2).encode()
    await run_relay([*hook_command("claude", served.endpoint), "--event", "Notification"], stdin=pretty)
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    assert served.gateway.hook_events[0].payload == {**CLAUDE_STOP, "message": "two\nlines"}


async def test_the_idea_subcommand_form_still_relays(served: Served) -> None:
    argv = [*idea_command(), *hook_relay_args_for("codex", served.endpoint), json.dumps(CODEX_TURN)]
    status, stdout, _, _ = await run_relay(argv)
    assert (status, stdout) == (0, b"")
    await served.gateway.until(lambda: len(served.gateway.hook_events) == 1)
    assert served.gateway.hook_events[0].event == "agent-turn-complete"


def hook_relay_args_for(source: str, endpoint: str) -> list[str]:
    from idea.domain.mcp_wiring import hook_relay_args
    from tests.integration.mcp_support import PROJECT_HEX

    return hook_relay_args(source, endpoint, PROJECT_HEX, MAIN)


def test_the_windows_stdin_reader_takes_a_closed_pipe_whole_and_does_not_wait_on_an_open_one() -> None:
    """Windows' select takes sockets only, so there a thread reads stdin (run here over a POSIX pipe)."""
    command = hook_command("claude", "/nonexistent/idea.sock")
    code = command[4].replace("sys.exit(relay.run_hook(sys.argv[1:]))", "print(len(relay._read_stdin_in_thread()))")
    big = b"x" * 300_000
    closed = subprocess.run([*command[:4], code, command[5]], input=big, capture_output=True, timeout=30, check=True)
    assert closed.stdout.strip() == str(len(big)).encode()

    held_open = subprocess.Popen([*command[:4], code, command[5]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert held_open.stdin is not None and held_open.stdout is not None
    try:
        held_open.stdin.write(b"partial")
        held_open.stdin.flush()
        assert held_open.stdout.readline().strip() == b"7"  # read by the deadline, stdin still open
        assert held_open.wait(10) == 0
    finally:
        held_open.stdin.close()
        if held_open.poll() is None:
            held_open.kill()
            held_open.wait()
