"""An agent in its own worktree, run for real (spec 07 §2): IdeA bootstrapped, a real repository, the fake
agent CLI in a real PTY. Its setup command runs in a shell whose folder is the worktree; its files land in the
worktree, never in the main tree; its run dir and MCP endpoint stay in the main project, and its MCP calls
(its bridge, the ask it answers with idea_reply) go through the project's core."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.git_support import GitHome, RepoBuilder
from tests.integration.scenario_support import (
    ScenarioFactory,
    eventually,
    fake_profile,
    requester_client,
    result_text,
    scenario_factory,
)


@pytest.fixture
def factory(tmp_path: Path, monkeypatch: Any, git_home: GitHome) -> Iterator[ScenarioFactory]:
    yield from scenario_factory(tmp_path, monkeypatch)


def endpoint_in(words: list[str]) -> str:
    """The socket a bridge or hook relay command line connects to."""
    return words[words.index("--endpoint") + 1]


def hook_doors(settings: dict[str, Any]) -> set[str]:
    """The hook doors the CLI posts its events to (the URLs without their `/<agent>/<event>`)."""
    hooks = [hook for groups in settings["hooks"].values() for group in groups for hook in group["hooks"]]
    assert {hook["type"] for hook in hooks} == {"http"}
    return {hook["url"].rsplit("/", 2)[0] for hook in hooks}


def test_an_agent_in_its_own_worktree_writes_there_and_answers_through_the_projects_core(
    factory: ScenarioFactory, git_home: GitHome
) -> None:
    repo = RepoBuilder(factory.project_dir)
    repo.commit("base", {"README.md": "# shop\n"})
    scenario = factory.open(warm=(), cold=())  # Main runs, idle: the test is its MCP client
    runtime = scenario.runtime
    assert runtime.git is not None
    scenario.on_core(runtime.git.change_setup_command("git rev-parse --abbrev-ref HEAD > setup-ran.txt"))
    profile = fake_profile("Fake Claude in a worktree")
    scenario.sync(lambda: scenario.app.profiles.save_profile(profile))
    created = scenario.on_core(runtime.worktrees.create_agent("Dev", profile.id, "# Dev\n", own_worktree=True))
    scenario.agents["Dev"] = created.agent
    tree = factory.project_dir.parent / "project.worktrees" / "dev"
    assert created.agent.worktree is not None and created.agent.worktree.path == str(tree)

    # The setup command ran in a real shell whose folder is the worktree, on the agent's branch.
    assert eventually(lambda: (tree / "setup-ran.txt").exists(), "the setup command to run")
    assert eventually(lambda: (tree / "setup-ran.txt").read_text().strip(), "its output") == "idea/dev"

    scenario.launch("Dev")
    scenario.wait_bridge("Dev")  # its MCP bridge reached this project's socket
    run_dir = scenario.run_dir("Dev")
    assert run_dir == factory.project_dir / ".ideai" / "run" / created.agent.agent_id and run_dir.is_dir()
    assert not (tree / ".ideai" / "run").exists()
    context = (run_dir / "CLAUDE.md").read_text(encoding="utf-8")
    assert context.startswith(f"# Project root\n\n{tree}\n") and "branch `idea/dev`" in context
    endpoint = endpoint_in(scenario.mcp_declaration("Main")["args"])  # the project's one MCP endpoint
    assert endpoint_in(scenario.mcp_declaration("Dev")["args"]) == endpoint
    settings = json.loads((run_dir / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    main_settings = json.loads((scenario.run_dir("Main") / ".claude" / "settings.local.json").read_text("utf-8"))
    assert hook_doors(settings) == hook_doors(main_settings)  # the project's one hook door
    assert len(hook_doors(settings)) == 1

    async def ask() -> Any:  # Main asks Dev through IdeA's MCP tools, as an agent does
        async with requester_client(scenario) as client:
            return await client.call_tool(
                "idea_ask_agent", {"target": "Dev", "task": "write notes/hello.txt written in my worktree"}
            )

    result = asyncio.run(ask())
    assert not result.is_error, result_text(result)
    assert result_text(result) == f"wrote {tree / 'notes' / 'hello.txt'}"  # Dev's idea_reply, through the core
    assert (tree / "notes" / "hello.txt").read_text() == "written in my worktree\n"
    assert not (factory.project_dir / "notes").exists()  # the main tree is untouched
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tree, env=git_home.env, capture_output=True,
                            text=True, check=True).stdout
    assert "notes/" in status and "setup-ran.txt" in status
