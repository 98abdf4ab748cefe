"""Spec 00 §5.6 step 6 / 02 §12: run dirs an earlier IdeA wrote are pointed at the IdeA that opens the
project, when its executable moved (an AppImage replaced by a newer file) or the endpoint changed."""

from __future__ import annotations

import json
import os
import shlex
import tomllib
from pathlib import Path

import pytest

from idea.application.agents.ports import BridgeEndpoint, RunDirRequest
from idea.domain.command_line import POSIX_SHELL, POWERSHELL, ShellDialect, powershell_split
from idea.domain.profile import Profile
from idea.infrastructure.agents.run_dir import LocalRunDirWriter
from tests.integration.test_run_dir import PROJECT_ID, TIMEOUT_MS, custom, shipped

OLD = ["/home/ada/Apps/IdeA-0.1.0-x86_64.AppImage"]
NEW = ["/home/ada/Apps/IdeA-0.2.0-x86_64.AppImage"]
OLD_SOCKET = "/run/user/1000/idea-mcp/old.sock"
NEW_SOCKET = "/run/user/1000/idea-mcp/new.sock"
CLAUDE_AGENT = "a6ced819-b893-4213-b003-9e9dc79b9641"
CODEX_AGENT = "dce19c75-9669-4e45-b8de-9950025157da"
GEMINI_AGENT = "3f2a9c1e-5d7b-4c1a-9e0f-2b6d8a4c7e11"
FLAG_AGENT = "8d7f1c2e-0000-4000-8000-000000000001"
GEMINI_SETTINGS = {"config": {"strategy": "configFile", "target": ".gemini/settings.json"}, "transport": "stdio"}
FLAG_MCP = {"config": {"strategy": "flag", "flag": "--mcp-config {path}"}, "transport": "stdio"}


def write(
    root: Path, command: list[str], socket: str, agent: str, profile: Profile, codex: Path,
    gemini_shell: ShellDialect = POSIX_SHELL,
) -> Path:
    LocalRunDirWriter(command, codex_home=codex, gemini_shell=gemini_shell).prepare(
        RunDirRequest(
            project_root=str(root),
            project_id=PROJECT_ID,
            agent_id=agent,
            profile=profile,
            convention_text="# context\n",
            bridge=BridgeEndpoint(socket, f"token-{agent[:4]}"),
            tool_timeout_ms=TIMEOUT_MS,
        )
    )
    return root / ".ideai" / "run" / agent


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    root, codex = tmp_path / "project", tmp_path / "user-codex"
    root.mkdir()
    codex.mkdir()
    (codex / "auth.json").write_text('{"OPENAI_API_KEY": "sk-user"}', encoding="utf-8")
    return root, codex


def every_team_member(root: Path, codex: Path, command: list[str], socket: str) -> dict[str, Path]:
    return {
        "claude": write(root, command, socket, CLAUDE_AGENT, shipped("Claude Code"), codex),
        "codex": write(root, command, socket, CODEX_AGENT, shipped("Codex"), codex),
        "gemini": write(root, command, socket, GEMINI_AGENT, custom(name="Gem", mcp=GEMINI_SETTINGS), codex),
        "flag": write(root, command, socket, FLAG_AGENT, custom(name="Flag", mcp=FLAG_MCP), codex),
    }


def snapshot(run_dirs: dict[str, Path]) -> dict[str, bytes]:
    return {
        str(path): path.read_bytes()
        for run_dir in run_dirs.values()
        for path in sorted(run_dir.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def test_a_moved_appimage_gets_every_declaration_rewritten_as_a_fresh_launch_would(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    root, codex = project
    old = every_team_member(root, codex, OLD, OLD_SOCKET)
    gemini_settings = old["gemini"] / ".gemini" / "settings.json"
    user_gemini = json.loads(gemini_settings.read_text(encoding="utf-8"))
    user_gemini["theme"] = "Dracula"  # a key of the user's, kept
    gemini_settings.write_text(json.dumps(user_gemini), encoding="utf-8")

    rewritten = LocalRunDirWriter(NEW).retarget(str(root), NEW_SOCKET)

    claude, codex_home = old["claude"], old["codex"] / ".codex"
    assert sorted(rewritten) == sorted(
        str(path)
        for path in (
            claude / ".mcp.json",
            claude / ".claude" / "settings.local.json",
            codex_home / "config.toml",
            gemini_settings,
            old["flag"] / "idea-mcp.json",
        )
    )
    # Byte for byte what a launch by the new IdeA writes with the same secrets.
    fresh_root = tmp_path / "fresh"
    fresh_root.mkdir()
    fresh = {
        "claude": write(fresh_root, NEW, NEW_SOCKET, CLAUDE_AGENT, shipped("Claude Code"), codex),
        "flag": write(fresh_root, NEW, NEW_SOCKET, FLAG_AGENT, custom(name="Flag", mcp=FLAG_MCP), codex),
    }
    for name, relative in (("claude", ".mcp.json"), ("claude", ".claude/settings.local.json"),
                           ("flag", "idea-mcp.json")):
        assert (old[name] / relative).read_text(encoding="utf-8") == (fresh[name] / relative).read_text(
            encoding="utf-8"
        )
    assert oct((claude / ".mcp.json").stat().st_mode & 0o777) == oct(0o600)

    config = tomllib.loads((codex_home / "config.toml").read_text(encoding="utf-8"))
    server = config["mcp_servers"]["idea"]
    assert [server["command"], *server["args"]][:3] == [*NEW, "mcp-server", "--endpoint"]
    assert server["args"][2] == NEW_SOCKET and server["env"] == {"IDEA_MCP_TOKEN": "token-dce1"}
    assert config["notify"][:2] == [*NEW, "hook"] and NEW_SOCKET in config["notify"]
    assert (codex_home / "config.toml").read_text(encoding="utf-8").startswith("# Managed by IdeA")

    gemini = json.loads(gemini_settings.read_text(encoding="utf-8"))
    assert gemini["theme"] == "Dracula"
    assert gemini["mcpServers"]["idea"]["command"] == NEW[0]
    assert gemini["mcpServers"]["idea"]["args"][2] == NEW_SOCKET


def test_hook_commands_keep_their_event_and_quote_a_path_with_spaces(project: tuple[Path, Path]) -> None:
    root, codex = project
    run_dir = write(root, OLD, OLD_SOCKET, CLAUDE_AGENT, shipped("Claude Code"), codex)
    moved = ["/home/ada/My Apps/IdeA.AppImage"]

    LocalRunDirWriter(moved).retarget(str(root), NEW_SOCKET)

    hooks = json.loads((run_dir / ".claude" / "settings.local.json").read_text(encoding="utf-8"))["hooks"]
    stop = shlex.split(hooks["Stop"][0]["hooks"][0]["command"])
    assert stop[0] == moved[0] and stop[1:3] == ["hook", "--source"] and stop[-2:] == ["--event", "Stop"]
    assert stop[stop.index("--endpoint") + 1] == NEW_SOCKET


@pytest.mark.parametrize("dialect", [POSIX_SHELL, POWERSHELL], ids=["bash", "powershell"])
def test_gemini_hook_commands_are_read_and_rewritten_in_the_shell_gemini_runs_them_through(
    project: tuple[Path, Path], dialect: ShellDialect
) -> None:
    root, codex = project
    run_dir = write(root, OLD, OLD_SOCKET, GEMINI_AGENT, shipped("Gemini CLI"), codex, dialect)
    moved = ["/home/ada/My Apps/IdeA.AppImage"]

    rewritten = LocalRunDirWriter(moved, gemini_shell=dialect).retarget(str(root), NEW_SOCKET)

    settings = run_dir / ".gemini" / "settings.json"
    assert rewritten == [str(settings)]
    stop = json.loads(settings.read_text(encoding="utf-8"))["hooks"]["AfterAgent"][0]["hooks"][0]["command"]
    words = powershell_split(stop) if dialect is POWERSHELL else shlex.split(stop)
    assert words[0] == moved[0] and words[1:3] == ["hook", "--source"] and words[-2:] == ["--event", "Stop"]
    assert words[words.index("--endpoint") + 1] == NEW_SOCKET


def test_current_run_dirs_are_left_untouched(project: tuple[Path, Path]) -> None:
    root, codex = project
    run_dirs = every_team_member(root, codex, NEW, NEW_SOCKET)
    before = snapshot(run_dirs)

    assert LocalRunDirWriter(NEW).retarget(str(root), NEW_SOCKET) == []
    assert snapshot(run_dirs) == before


def test_a_checkout_command_replaces_an_appimage_path_and_back(project: tuple[Path, Path]) -> None:
    root, codex = project
    run_dir = write(root, OLD, OLD_SOCKET, CLAUDE_AGENT, shipped("Claude Code"), codex)
    checkout = ["/usr/bin/python3", "-m", "idea"]

    LocalRunDirWriter(checkout).retarget(str(root), OLD_SOCKET)
    server = json.loads((run_dir / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["idea"]
    assert [server["command"], *server["args"][:3]] == [*checkout, "mcp-server"]

    LocalRunDirWriter(OLD).retarget(str(root), OLD_SOCKET)
    server = json.loads((run_dir / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["idea"]
    assert [server["command"], server["args"][0]] == [*OLD, "mcp-server"]


def test_broken_foreign_and_linked_files_are_left_alone(project: tuple[Path, Path], tmp_path: Path) -> None:
    root, codex = project
    claude = write(root, OLD, OLD_SOCKET, CLAUDE_AGENT, shipped("Claude Code"), codex)
    (claude / ".mcp.json").write_text('{"mcpServers": {"idea": ', encoding="utf-8")  # truncated
    (claude / "notes.json").write_text('{"mcpServers": {"other": {"command": "x", "args": []}}}', encoding="utf-8")
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"mcpServers": {"idea": {"command": OLD[0], "args": [
        "mcp-server", "--endpoint", OLD_SOCKET]}}}), encoding="utf-8")
    os.symlink(outside, claude / "linked.json")
    (root / ".ideai" / "run" / "stray-file").write_text("not a run dir", encoding="utf-8")

    rewritten = LocalRunDirWriter(NEW).retarget(str(root), NEW_SOCKET)

    assert rewritten == [str(claude / ".claude" / "settings.local.json")]
    assert (claude / ".mcp.json").read_text(encoding="utf-8") == '{"mcpServers": {"idea": '
    assert OLD[0] in outside.read_text(encoding="utf-8")


def test_a_project_without_run_dirs_has_nothing_to_retarget(tmp_path: Path) -> None:
    assert LocalRunDirWriter(NEW).retarget(str(tmp_path), NEW_SOCKET) == []
