"""Agents ▸ Profiles ▸ Test: the profile's CLI as an agent's would start — its program on the agents' PATH, its
arguments and variables — in a scratch folder, shown in a cell; a program not found says what to do."""

from __future__ import annotations

import pytest

from idea.application.agents.profile_trial import try_profile
from idea.domain import layout as lay
from idea.domain.errors import AppError, ErrorCode
from idea.domain.profile import Profile
from tests.world import ROOT, World


def profile(command: str = "claude") -> Profile:
    return Profile.from_json({
        "id": "9d0c6a1e-3b1f-4f0e-8c57-2f1d6a4b7e01", "name": "My Claude", "command": command,
        "args": ["--model", "opus"], "env": {"CLAUDE_CONFIG_DIR": "{agentRunDir}/.claude", "WORK": "{projectRoot}"},
        "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
    })


async def test_the_profile_runs_in_a_scratch_folder_shown_in_a_cell() -> None:
    world = World()
    world.prefer_empty_cells()
    runtime = await world.service.open(ROOT)

    session = await try_profile(runtime, profile())

    [folder] = world.host.scratch_dirs
    assert folder.startswith("/tmp/idea-test-my-claude-")
    spec = world.terminals.terminals[session].spec
    assert spec is not None and spec.argv == ("/usr/bin/claude", "--model", "opus") and spec.cwd == folder
    assert spec.env["CLAUDE_CONFIG_DIR"] == f"{folder}/.claude" and spec.env["WORK"] == ROOT
    assert "IDEA_AGENT_ID" not in spec.env  # not an agent: no identity, no IdeA tools
    assert runtime.sessions.info(session).label == "test · My Claude"
    assert [leaf.session for leaf in lay.leaves(runtime.active.root)] == [session]


async def test_a_program_not_found_says_what_to_do_and_starts_nothing() -> None:
    world = World()
    runtime = await world.service.open(ROOT)
    before = runtime.sessions.snapshot()

    with pytest.raises(AppError) as refused:
        await try_profile(runtime, profile("claude-nightly"))

    assert refused.value.code is ErrorCode.PROCESS
    assert refused.value.message.startswith("My Claude (claude-nightly) is not installed or not on PATH.")
    assert runtime.sessions.snapshot() == before and world.host.scratch_dirs == []
