"""The real Claude Code posts its lifecycle hooks to IdeA's HTTP hook door, as the run dir declares them.

`claude mcp list`, run in an agent's run dir, loads its `settings.local.json` (the folder trusted, as IdeA
records it) and fires `SessionEnd` when it exits: no model, no sign-in, no network needed.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path

from idea.application.agents.ports import BridgeEndpoint, RunDirRequest
from idea.infrastructure.agents.run_dir import LocalRunDirWriter
from idea.infrastructure.hooks.http_door import HookHttpDoor, HookUrls
from idea.domain.profile import Profile
from idea.infrastructure.resources import resources_dir
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import MAIN, TOKENS, FakeGateway

PROJECT_ID = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"


def claude_profile() -> Profile:
    data = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    return Profile.from_json(next(profile for profile in data if profile["name"] == "Claude Code"))


async def test_claude_posts_session_end_to_the_hook_door_with_the_launch_secret(
    require_cli: Callable[[str], str], cli_home: Path, tmp_path: Path
) -> None:
    claude = require_cli("claude")
    gateway, diagnostics, urls = FakeGateway(), RecordingDiagnostics(), HookUrls()
    door = HookHttpDoor(PROJECT_ID, gateway, diagnostics, urls)
    await door.start()
    try:
        project = tmp_path / "shop"
        project.mkdir()
        prepared = LocalRunDirWriter(hook_urls=urls).prepare(
            RunDirRequest(
                project_root=str(project),
                project_id=PROJECT_ID,
                agent_id=MAIN,
                profile=claude_profile(),
                convention_text="# Project root\n",
                bridge=BridgeEndpoint(str(tmp_path / "no-idea-here.sock"), TOKENS[MAIN]),
                tool_timeout_ms=60_000,
                trust_run_dir=True,
            )
        )
        process = await asyncio.create_subprocess_exec(
            claude, "mcp", "list",
            cwd=prepared.cwd,
            env={**os.environ, **prepared.extra_env},
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
        await gateway.until(lambda: any(event.event == "SessionEnd" for event in gateway.hook_events), 10)
    finally:
        await door.close()

    [event] = [event for event in gateway.hook_events if event.event == "SessionEnd"]
    assert (event.agent_id, event.source) == (MAIN, "claude"), output.decode(errors="replace")
    assert event.payload["hook_event_name"] == "SessionEnd"
    assert event.payload["cwd"] == prepared.cwd
    assert not any("refused" in line for line in diagnostics.lines)
