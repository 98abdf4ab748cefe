"""The real Claude Code posts its lifecycle hooks to IdeA's HTTP hook door, as the run dir declares them.

`claude mcp list`, run in an agent's run dir, loads its `settings.local.json` (the folder trusted, as IdeA
records it) and fires `SessionEnd` when it exits: no model, no sign-in, no network needed. A turn whose API
call fails (an API key and an address nothing listens on) fires `StopFailure` instead of `Stop`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from idea.infrastructure.hooks.http_door import HookHttpDoor, HookUrls
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import MAIN, FakeGateway
from tests.realcli.run_dirs import PROJECT_ID, prepared_run_dir, reference_profile


@asynccontextmanager
async def hook_door() -> AsyncIterator[tuple[FakeGateway, RecordingDiagnostics, HookUrls]]:
    gateway, diagnostics, urls = FakeGateway(), RecordingDiagnostics(), HookUrls()
    door = HookHttpDoor(PROJECT_ID, gateway, diagnostics, urls)
    await door.start()
    try:
        yield gateway, diagnostics, urls
    finally:
        await door.close()


async def run_in_run_dir(
    claude: str, tmp_path: Path, urls: HookUrls, *arguments: str, env: dict[str, str] | None = None
) -> tuple[str, str]:
    """Run `claude <arguments>` in an agent's run dir whose hooks post to the door of `urls`; returns the run
    dir and what the CLI printed."""
    prepared = prepared_run_dir(tmp_path, reference_profile("Claude Code"), urls)
    process = await asyncio.create_subprocess_exec(
        claude, *arguments,
        cwd=prepared.cwd,
        env={**os.environ, **prepared.extra_env, **(env or {})},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        output, _ = await asyncio.wait_for(process.communicate(), 90)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return prepared.cwd, output.decode(errors="replace")


async def took(gateway: FakeGateway, event_name: str, output: str) -> None:
    await gateway.until(lambda: any(event.event == event_name for event in gateway.hook_events), 10)
    assert any(event.event == event_name for event in gateway.hook_events), output


async def test_claude_posts_session_end_to_the_hook_door_with_the_launch_secret(
    require_cli: Callable[[str], str], cli_home: Path, tmp_path: Path
) -> None:
    async with hook_door() as (gateway, diagnostics, urls):
        cwd, output = await run_in_run_dir(require_cli("claude"), tmp_path, urls, "mcp", "list")
        await took(gateway, "SessionEnd", output)

    [event] = [event for event in gateway.hook_events if event.event == "SessionEnd"]
    assert (event.agent_id, event.source) == (MAIN, "claude")
    assert event.payload["hook_event_name"] == "SessionEnd"
    assert event.payload["cwd"] == cwd
    assert not any("refused" in line for line in diagnostics.lines)


async def test_a_turn_that_fails_on_the_api_posts_stop_failure_and_no_stop(
    require_cli: Callable[[str], str], cli_home: Path, tmp_path: Path
) -> None:
    unreachable = {
        "ANTHROPIC_API_KEY": "sk-ant-not-a-key",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # the discard port: refused at once
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    async with hook_door() as (gateway, _diagnostics, urls):
        _cwd, output = await run_in_run_dir(require_cli("claude"), tmp_path, urls, "-p", "hello", env=unreachable)
        await took(gateway, "StopFailure", output)

    names = [event.event for event in gateway.hook_events]
    assert "UserPromptSubmit" in names and "Stop" not in names, names
    [failure] = [event for event in gateway.hook_events if event.event == "StopFailure"]
    assert failure.payload["error"] == "server_error"
    said = failure.payload["last_assistant_message"]
    assert "Unable to connect to API" in said or "Connection refused" in said, said  # 2.1.197, 2.1.332
