"""An agent's run dir as IdeA prepares it, for the tests that run a real CLI in one without the whole app."""

from __future__ import annotations

import json
from pathlib import Path

from idea.application.agents.ports import BridgeEndpoint, PreparedRunDir, RunDirRequest
from idea.domain.profile import Profile
from idea.infrastructure.agents.run_dir import LocalRunDirWriter
from idea.infrastructure.hooks.http_door import HookUrls
from idea.infrastructure.resources import resources_dir
from tests.fakes_gateway import MAIN, TOKENS

PROJECT_ID = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"


def reference_profile(name: str) -> Profile:
    """The shipped reference profile named `name` ("Claude Code", "Codex", …)."""
    data = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    return Profile.from_json(next(profile for profile in data if profile["name"] == name))


def prepared_run_dir(tmp_path: Path, profile: Profile, hook_urls: HookUrls | None = None) -> PreparedRunDir:
    """Agent MAIN's run dir in the project `tmp_path/shop`, its folder trusted; its bridge names an endpoint
    nothing listens on."""
    project = tmp_path / "shop"
    project.mkdir(exist_ok=True)
    return LocalRunDirWriter(hook_urls=hook_urls).prepare(
        RunDirRequest(
            project_root=str(project),
            project_id=PROJECT_ID,
            agent_id=MAIN,
            profile=profile,
            convention_text="# Project root\n",
            bridge=BridgeEndpoint(str(tmp_path / "no-idea-here.sock"), TOKENS[MAIN]),
            tool_timeout_ms=60_000,
            trust_run_dir=True,
        )
    )
