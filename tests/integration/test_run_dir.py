"""Spec 02 §8-§13, acceptance AG-7 and AG-8: what a launch writes into an agent's run dir."""

from __future__ import annotations

import json
import os
import shlex
import sys
import stat
import tomllib
from pathlib import Path

import pytest

from idea.application.agents.ports import BridgeEndpoint, PreparedRunDir, RunDirRequest
from idea.domain.errors import AppError
from idea.domain.profile import Profile
from idea.infrastructure.agents.codex_auth import codex_credentials_available, link_codex_auth, user_codex_home
from idea.infrastructure.agents.run_dir import LocalRunDirWriter
from idea.infrastructure.hooks.http_door import HookUrls
from idea.infrastructure.resources import resources_dir

AGENT = "a6ced819-b893-4213-b003-9e9dc79b9641"
PROJECT_ID = "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11"
PROJECT_HEX = "0f3c2a9e6b1d4c1e9d0a2f6f1f7b8c11"
IDEA = ["/opt/My Apps/idea"]
SOCKET = "/run/user/1000/idea/0f3c.sock"
TIMEOUT_MS = 15_060_000


def shipped(name: str) -> Profile:
    data = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    return Profile.from_json(next(p for p in data if p["name"] == name))


def custom(**fields: object) -> Profile:
    data: dict[str, object] = {
        "id": "11111111-1111-4111-8111-111111111111",
        "name": "Custom",
        "command": "my-cli",
        "contextInjection": {"strategy": "conventionFile", "target": "CONTEXT.md"},
    }
    data.update(fields)
    return Profile.from_json(data)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "my project"
    project.mkdir()
    return project


@pytest.fixture
def user_codex(tmp_path: Path) -> Path:
    home = tmp_path / "user-codex"
    home.mkdir()
    return home


def prepare(
    root: Path,
    profile: Profile,
    user_codex: Path | None = None,
    *,
    bridge: bool = True,
    hook_urls: HookUrls | None = None,
    **extra: object,
) -> PreparedRunDir:
    writer = LocalRunDirWriter(IDEA, codex_home=user_codex, hook_urls=hook_urls)
    request = RunDirRequest(
        project_root=str(root),
        project_id=PROJECT_ID,
        agent_id=AGENT,
        profile=profile,
        convention_text="# Project root\n\ncomposed\n",
        bridge=BridgeEndpoint(SOCKET, "t0ken") if bridge else None,
        tool_timeout_ms=TIMEOUT_MS,
        **extra,  # type: ignore[arg-type]
    )
    return writer.prepare(request)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- Claude -------------------------------------------------------------------------------------------


def test_claude_run_dir_files(root: Path) -> None:
    prepared = prepare(root, shipped("Claude Code"))
    run_dir = root / ".ideai" / "run" / AGENT

    assert prepared.run_dir == str(run_dir) == prepared.cwd
    assert mode(run_dir) == 0o700
    assert (run_dir / "CLAUDE.md").read_text(encoding="utf-8") == "# Project root\n\ncomposed\n"
    assert prepared.context_path == str(run_dir / "CLAUDE.md")
    assert (run_dir / ".mcp.json").read_text(encoding="utf-8") == (
        "{\n"
        '  "mcpServers": {\n'
        '    "idea": {\n'
        '      "command": "/opt/My Apps/idea",\n'
        '      "args": [\n'
        '        "mcp-server",\n'
        '        "--endpoint",\n'
        '        "/run/user/1000/idea/0f3c.sock",\n'
        '        "--project",\n'
        '        "0f3c2a9e6b1d4c1e9d0a2f6f1f7b8c11",\n'
        '        "--requester",\n'
        '        "a6ced819-b893-4213-b003-9e9dc79b9641"\n'
        "      ],\n"
        '      "env": {\n'
        '        "IDEA_MCP_TOKEN": "t0ken"\n'
        "      },\n"
        '      "transport": "stdio"\n'
        "    }\n"
        "  }\n"
        "}\n"
    )
    assert mode(run_dir / ".mcp.json") == 0o600
    assert prepared.extra_args == ()
    assert prepared.extra_env == {"MCP_TOOL_TIMEOUT": "15060000"}
    assert prepared.first_turn is None
    assert not (root / ".ideai" / "requests").exists()


def test_claude_settings_are_always_written_with_hooks_and_projector_keys(root: Path) -> None:
    permissions = {"permissions": {"allow": ["Read"]}, "env": {"MCP_TOOL_TIMEOUT": "1", "OTHER": "x"}}

    prepare(root, shipped("Claude Code"), claude_permission_settings=permissions)

    settings = json.loads((root / ".ideai" / "run" / AGENT / ".claude" / "settings.local.json").read_text("utf-8"))
    assert settings["enabledMcpjsonServers"] == ["idea"]
    assert settings["permissions"] == {"allow": ["Read", "mcp__idea"]}  # the policy's, IdeA's own tools too
    assert settings["env"] == {"OTHER": "x", "MCP_TOOL_TIMEOUT": "15060000"}
    assert list(settings["hooks"]) == [
        "SessionStart", "UserPromptSubmit", "Notification", "Stop", "StopFailure", "SubagentStop", "SessionEnd",
    ]
    assert settings["hooks"]["Stop"] == [
        {
            "hooks": [
                {
                    "type": "command",
                    "command": f"'/opt/My Apps/idea' hook --source claude --endpoint {SOCKET} "
                    f"--project {PROJECT_HEX} --agent {AGENT} --event Stop",
                    "timeout": 5,
                }
            ]
        }
    ]


def test_with_the_projects_hook_door_open_claude_posts_its_hooks_there_with_the_launch_secret(root: Path) -> None:
    urls = HookUrls()
    urls.open(PROJECT_ID, f"http://127.0.0.1:40123/hooks/{PROJECT_HEX}")

    prepare(root, shipped("Claude Code"), hook_urls=urls)

    path = root / ".ideai" / "run" / AGENT / ".claude" / "settings.local.json"
    settings = json.loads(path.read_text("utf-8"))
    assert list(settings["hooks"]) == [
        "SessionStart", "UserPromptSubmit", "Notification", "Stop", "StopFailure", "SubagentStop", "SessionEnd",
    ]
    assert settings["hooks"]["Stop"] == [
        {
            "hooks": [
                {
                    "type": "http",
                    "url": f"http://127.0.0.1:40123/hooks/{PROJECT_HEX}/{AGENT}/Stop",
                    "headers": {"Authorization": "Bearer t0ken"},
                    "timeout": 5,
                }
            ]
        }
    ]
    assert mode(path) == 0o600  # it carries the launch secret


def test_a_project_without_an_open_hook_door_gets_the_relay_command(root: Path) -> None:
    urls = HookUrls()
    urls.open("11111111-2222-3333-4444-555555555555", "http://127.0.0.1:40123/hooks/1111")  # another project's

    prepare(root, shipped("Claude Code"), hook_urls=urls)

    settings = json.loads((root / ".ideai" / "run" / AGENT / ".claude" / "settings.local.json").read_text("utf-8"))
    assert settings["hooks"]["Stop"][0]["hooks"][0]["type"] == "command"


def test_without_a_bridge_no_declaration_and_no_hooks_are_written(root: Path) -> None:
    prepare(root, shipped("Claude Code"), bridge=False)
    run_dir = root / ".ideai" / "run" / AGENT

    assert not (run_dir / ".mcp.json").exists()
    settings = json.loads((run_dir / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    assert settings == {
        "enabledMcpjsonServers": ["idea"],
        "permissions": {"allow": ["mcp__idea"]},
        "env": {"MCP_TOOL_TIMEOUT": "15060000"},
    }


def test_rewriting_replaces_the_owned_files(root: Path) -> None:
    prepare(root, shipped("Claude Code"))
    (root / ".ideai" / "run" / AGENT / ".mcp.json").write_text("stale", encoding="utf-8")

    prepare(root, shipped("Claude Code"))

    assert json.loads((root / ".ideai" / "run" / AGENT / ".mcp.json").read_text(encoding="utf-8"))


# --- Codex (AG-7, AG-8) -------------------------------------------------------------------------------

USER_CONFIG = """\
model = "o3"
sandbox_mode = "danger-full-access"

[mcp_servers.github]
command = "gh-mcp"

[mcp_servers.idea]
command = "stale"

[projects."/somewhere/else"]
trust_level = "trusted"

[projects."{root}"]
trust_level = "untrusted"
note = "mine"
"""


def test_codex_config_is_regenerated_and_user_keys_survive(root: Path, user_codex: Path) -> None:
    config = root / ".ideai" / "run" / AGENT / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(USER_CONFIG.replace("{root}", str(root)), encoding="utf-8")

    prepared = prepare(root, shipped("Codex"), user_codex)

    text = config.read_text(encoding="utf-8")
    assert text.startswith("# Managed by IdeA: the keys below are rewritten at every launch")
    parsed = tomllib.loads(text)
    run_dir = str(root / ".ideai" / "run" / AGENT)
    relay = ["hook", "--source", "codex", "--endpoint", SOCKET, "--project", PROJECT_HEX, "--agent", AGENT]
    assert parsed == {
        "model": "o3",
        "notify": [*IDEA, *relay],
        "mcp_servers": {
            "github": {"command": "gh-mcp"},
            "idea": {
                "command": IDEA[0],
                "args": ["mcp-server", "--endpoint", SOCKET, "--project", PROJECT_HEX, "--requester", AGENT],
                "env": {"IDEA_MCP_TOKEN": "t0ken"},
                "startup_timeout_sec": 20,
                "tool_timeout_sec": 15060,
                "default_tools_approval_mode": "approve",
            },
        },
        "projects": {
            "/somewhere/else": {"trust_level": "trusted"},
            str(root): {"trust_level": "trusted", "note": "mine"},
            run_dir: {"trust_level": "trusted"},
        },
    }
    assert mode(config) == 0o600
    assert prepared.extra_env == {"CODEX_HOME": str(config.parent)}
    assert (Path(run_dir) / "AGENTS.md").is_file()


def test_codex_policy_keys_come_from_the_projector(root: Path, user_codex: Path) -> None:
    policy = {"codex_sandbox_mode": "workspace-write", "codex_approval_policy": "on-request"}
    prepare(root, shipped("Codex"), user_codex, **policy)
    config = root / ".ideai" / "run" / AGENT / ".codex" / "config.toml"

    parsed = tomllib.loads(config.read_text(encoding="utf-8"))

    assert (parsed["sandbox_mode"], parsed["approval_policy"]) == ("workspace-write", "on-request")
    prepare(root, shipped("Codex"), user_codex)
    assert "sandbox_mode" not in tomllib.loads(config.read_text(encoding="utf-8"))


def test_a_broken_codex_config_is_kept_aside_and_regenerated(root: Path, user_codex: Path) -> None:
    config = root / ".ideai" / "run" / AGENT / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("model = ", encoding="utf-8")

    prepared = prepare(root, shipped("Codex"), user_codex)

    assert "idea" in tomllib.loads(config.read_text(encoding="utf-8"))["mcp_servers"]
    [kept] = config.parent.glob("config.toml.corrupt-*")
    assert kept.read_text(encoding="utf-8") == "model = "
    assert len(prepared.warnings) == 1 and "a fresh one was written" in prepared.warnings[0]


def test_codex_auth_is_linked_to_the_user_login(root: Path, user_codex: Path) -> None:
    (user_codex / "auth.json").write_text('{"tokens": "user"}', encoding="utf-8")

    prepare(root, shipped("Codex"), user_codex)

    link = root / ".ideai" / "run" / AGENT / ".codex" / "auth.json"
    assert link.is_symlink()
    assert link.resolve() == (user_codex / "auth.json").resolve()


def test_a_newer_regular_auth_file_is_copied_back_before_relinking(root: Path, user_codex: Path) -> None:
    user_auth = user_codex / "auth.json"
    user_auth.write_text('{"tokens": "old"}', encoding="utf-8")
    prepare(root, shipped("Codex"), user_codex)
    agent_auth = root / ".ideai" / "run" / AGENT / ".codex" / "auth.json"
    agent_auth.unlink()  # Codex replaced the link while refreshing its tokens
    agent_auth.write_text('{"tokens": "rotated"}', encoding="utf-8")
    os.utime(user_auth, ns=(1_000_000_000, 1_000_000_000))

    prepare(root, shipped("Codex"), user_codex)

    assert user_auth.read_text(encoding="utf-8") == '{"tokens": "rotated"}'
    assert mode(user_auth) == 0o600
    assert agent_auth.is_symlink() and agent_auth.resolve() == user_auth.resolve()
    assert (user_codex / ".idea-auth.lock").exists()


def test_an_older_regular_auth_file_does_not_overwrite_the_user_login(tmp_path: Path, user_codex: Path) -> None:
    agent_home = tmp_path / "agent" / ".codex"
    agent_home.mkdir(parents=True)
    (agent_home / "auth.json").write_text("stale", encoding="utf-8")
    os.utime(agent_home / "auth.json", ns=(1_000_000_000, 1_000_000_000))
    (user_codex / "auth.json").write_text("fresh", encoding="utf-8")

    link_codex_auth(agent_home, user_codex)

    assert (user_codex / "auth.json").read_text(encoding="utf-8") == "fresh"
    assert (agent_home / "auth.json").is_symlink()


def test_without_symbolic_links_the_login_is_copied_both_ways(tmp_path: Path, user_codex: Path) -> None:
    agent_home = tmp_path / "agent" / ".codex"
    agent_home.mkdir(parents=True)
    (user_codex / "auth.json").write_text("user", encoding="utf-8")

    link_codex_auth(agent_home, user_codex, use_symlinks=False)
    agent_auth = agent_home / "auth.json"
    assert not agent_auth.is_symlink() and agent_auth.read_text(encoding="utf-8") == "user"

    agent_auth.write_text("rotated", encoding="utf-8")
    os.utime(agent_auth, ns=(9_000_000_000_000_000_000, 9_000_000_000_000_000_000))
    link_codex_auth(agent_home, user_codex, use_symlinks=False)
    assert (user_codex / "auth.json").read_text(encoding="utf-8") == "rotated"


def test_no_user_login_means_no_link(tmp_path: Path, user_codex: Path) -> None:
    agent_home = tmp_path / "agent" / ".codex"
    agent_home.mkdir(parents=True)
    (agent_home / "auth.json").symlink_to(user_codex / "auth.json")

    link_codex_auth(agent_home, user_codex)

    assert not os.path.lexists(agent_home / "auth.json")
    assert not (user_codex / ".idea-auth.lock").exists()


def test_user_codex_home_and_credentials_preflight(tmp_path: Path) -> None:
    assert user_codex_home({"CODEX_HOME": str(tmp_path)}) == tmp_path
    assert user_codex_home({}) == Path.home() / ".codex"
    assert codex_credentials_available(tmp_path, {}) is False
    assert codex_credentials_available(tmp_path, {"CODEX_API_KEY": "k"}) is True
    (tmp_path / "auth.json").write_text("{}", encoding="utf-8")
    assert codex_credentials_available(tmp_path, {}) is True


# --- file-protocol profiles and other strategies ------------------------------------------------------


def test_aider_reads_its_context_by_flag_and_gets_request_folders(root: Path) -> None:
    prepared = prepare(root, shipped("Aider"))
    context = root / ".ideai" / "run" / AGENT / "CONVENTIONS.md"

    assert prepared.extra_args == ("--read", str(context))
    assert context.read_text(encoding="utf-8") == "# Project root\n\ncomposed\n"
    assert (root / ".ideai" / "requests" / AGENT / "in").is_dir()
    assert (root / ".ideai" / "requests" / AGENT / "out").is_dir()
    assert not (root / ".ideai" / "run" / AGENT / ".claude").exists()


def test_stdin_injection_asks_the_agent_to_read_the_file_first(root: Path) -> None:
    prepared = prepare(root, custom(contextInjection={"strategy": "stdin"}))
    context = root / ".ideai" / "run" / AGENT / "IDEA_CONTEXT.md"

    assert prepared.first_turn == f"Read {context} now: it contains your role and IdeA's rules."
    assert context.is_file()


def test_env_strategies_point_variables_at_the_written_files(root: Path) -> None:
    profile = custom(
        contextInjection={"strategy": "env", "var": "MY_CONTEXT"},
        mcp={"config": {"strategy": "env", "var": "MY_MCP"}},
    )

    prepared = prepare(root, profile)

    run_dir = root / ".ideai" / "run" / AGENT
    declaration = run_dir / "idea-mcp.json"
    assert prepared.extra_env == {"MY_CONTEXT": str(run_dir / "IDEA_CONTEXT.md"), "MY_MCP": str(declaration)}
    assert json.loads(declaration.read_text(encoding="utf-8"))["mcpServers"]["idea"]["command"] == IDEA[0]


def test_mcp_flag_strategy_passes_the_declaration_by_argument(root: Path) -> None:
    prepared = prepare(root, custom(mcp={"config": {"strategy": "flag", "flag": "--mcp-config {path}"}}))

    assert prepared.extra_args == ("--mcp-config", str(root / ".ideai" / "run" / AGENT / "idea-mcp.json"))


def test_gemini_settings_are_merged(root: Path) -> None:
    settings = root / ".ideai" / "run" / AGENT / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"theme": "dark", "mcpServers": {"other": {"command": "x"}}}', encoding="utf-8")

    prepare(root, custom(mcp={"config": {"strategy": "configFile", "target": ".gemini/settings.json"}}))

    merged = json.loads(settings.read_text(encoding="utf-8"))
    assert merged["theme"] == "dark"
    assert merged["mcpServers"]["other"] == {"command": "x"}
    assert merged["mcpServers"]["idea"]["timeout"] == TIMEOUT_MS
    assert merged["mcpServers"]["idea"]["env"] == {"IDEA_MCP_TOKEN": "t0ken"}


def test_gemini_cli_gets_its_lifecycle_hooks_in_its_run_dir_settings(root: Path) -> None:
    settings = root / ".ideai" / "run" / AGENT / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    mine = {"matcher": "*", "hooks": [{"type": "command", "command": "notify-send done"}]}
    settings.write_text(json.dumps({"theme": "dark", "hooks": {"AfterAgent": [mine]}}), encoding="utf-8")

    prepare(root, shipped("Gemini CLI"))
    prepare(root, shipped("Gemini CLI"))  # a second launch replaces its own hooks

    written = json.loads(settings.read_text(encoding="utf-8"))
    assert written["theme"] == "dark" and written["mcpServers"]["idea"]["trust"] is True  # one file, co-owned
    assert [entry["hooks"][0]["command"] for entry in written["hooks"]["AfterAgent"]][1:] == ["notify-send done"]
    [stop] = written["hooks"]["AfterAgent"][0]["hooks"]
    argv = shlex.split(stop["command"])
    assert argv[:2] == [*IDEA, "hook"] and argv[argv.index("--source") + 1] == "gemini"
    assert argv[argv.index("--endpoint") + 1] == SOCKET and argv[-2:] == ["--event", "Stop"]
    assert stop["env"] == {"IDEA_MCP_TOKEN": "t0ken"}
    assert mode(settings) == 0o600  # it carries the launch secret


def test_gemini_hooks_are_never_written_outside_the_run_dir(root: Path) -> None:
    profile = custom(name="Gem", command="gemini", hooks="gemini", cwdTemplate="{projectRoot}",
                     contextInjection={"strategy": "env", "var": "GEMINI_CONTEXT", "target": "CONTEXT.md"})

    prepared = prepare(root, profile)

    assert not (root / ".gemini").exists()
    assert not (root / ".ideai" / "run" / AGENT / ".gemini").exists()
    assert any("lifecycle hooks were not installed" in warning for warning in prepared.warnings)


@pytest.fixture
def gemini_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME whose Gemini CLI has never been asked to trust a folder."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable in ("GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_TRUST_WORKSPACE",
                     "GEMINI_RESTRICTED_MODE"):
        monkeypatch.delenv(variable, raising=False)
    return home


def test_gemini_cli_gets_the_project_in_its_workspace(root: Path, tmp_path: Path, gemini_home: Path) -> None:
    # Its file tools refuse any path outside its workspace, which would be the run dir alone.
    trusted = {"trust_run_dir": True}
    assert prepare(root, shipped("Gemini CLI"), **trusted).extra_args == (
        "--include-directories", str(root.resolve())
    )
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    prepared = prepare(root, shipped("Gemini CLI"), work_root=str(worktree), **trusted)
    assert prepared.extra_args == ("--include-directories", str(worktree.resolve()))  # it replies with IdeA's tools
    requests = root.resolve() / ".ideai" / "requests" / AGENT
    over_files = shipped("Gemini CLI").with_changes({"mcp": None})  # the file protocol: replies in its folder
    assert prepare(root, over_files, work_root=str(worktree), **trusted).extra_args == (
        "--include-directories", str(worktree.resolve()), "--include-directories", str(requests)
    )


def test_gemini_cli_asking_to_trust_its_run_dir_gets_no_session_id_to_start(root: Path, gemini_home: Path) -> None:
    # Trusted there, it restarts after adding the folders, which have started the session it was told to create.
    prepared = prepare(root, shipped("Gemini CLI"))
    assert prepared.extra_args == ("--include-directories", str(root.resolve()))
    assert not prepared.session_assignable
    assert prepared.warnings == (
        f"Gemini CLI will ask whether to trust {prepared.cwd} and restart: it picks its session id, its hooks tell it",
    )
    # The person answered its question (IdeA recorded nothing): the next start may be given an id.
    folders = gemini_home / ".gemini" / "trustedFolders.json"
    folders.parent.mkdir()
    folders.write_text(json.dumps({prepared.cwd: "TRUST_FOLDER"}), encoding="utf-8")
    again = prepare(root, shipped("Gemini CLI"))
    assert again.session_assignable and again.warnings == ()
    assert json.loads(folders.read_text(encoding="utf-8")) == {prepared.cwd: "TRUST_FOLDER"}
    assert prepare(root, shipped("Claude Code")).session_assignable


def test_a_gemini_profile_without_its_hooks_keeps_its_session_id_and_gets_the_project_once_trusted(
    root: Path, gemini_home: Path
) -> None:
    """Nothing would tell IdeA the session such a Gemini takes by itself: the first start keeps its id and
    goes without the folders."""
    without_hooks = Profile.from_json({k: v for k, v in shipped("Gemini CLI").to_json().items() if k != "hooks"})
    prepared = prepare(root, without_hooks)
    assert prepared.extra_args == () and prepared.session_assignable
    assert prepared.warnings == (
        f"Gemini CLI will ask whether to trust {prepared.cwd}; its file tools reach the project from its next start",
    )
    prepared = prepare(root, without_hooks, trust_run_dir=True)
    assert prepared.extra_args == ("--include-directories", str(root.resolve())) and prepared.session_assignable


def test_a_folder_gemini_cli_cannot_be_given_is_said(tmp_path: Path, gemini_home: Path) -> None:
    project = tmp_path / "a,b"
    project.mkdir()
    prepared = prepare(project, shipped("Gemini CLI"), trust_run_dir=True)
    assert prepared.extra_args == ()
    assert prepared.warnings == (
        f"Gemini CLI cannot be given {project.resolve()} (its path holds a comma): its file tools will not reach it",
    )


def test_a_convention_file_is_never_written_outside_the_run_dir(root: Path) -> None:
    (root / "CLAUDE.md").write_text("the user's own", encoding="utf-8")

    injection = {"strategy": "conventionFile", "target": "CLAUDE.md"}

    with pytest.raises(AppError, match="outside the agent's run directory"):
        prepare(root, custom(cwdTemplate="{projectRoot}", contextInjection=injection))

    assert (root / "CLAUDE.md").read_text(encoding="utf-8") == "the user's own"


def test_agent_ids_must_be_uuids(root: Path) -> None:
    writer = LocalRunDirWriter(IDEA)
    request = RunDirRequest(
        project_root=str(root),
        project_id=PROJECT_ID,
        agent_id="../../escape",
        profile=shipped("Aider"),
        convention_text="x",
        bridge=None,
        tool_timeout_ms=1000,
    )

    with pytest.raises(AppError, match="is not an agent id"):
        writer.prepare(request)


def test_by_default_hooks_run_the_relay_file_with_an_isolated_interpreter(root: Path) -> None:
    import shlex

    from idea.infrastructure.hooks import relay

    request = RunDirRequest(
        project_root=str(root),
        project_id=PROJECT_ID,
        agent_id=AGENT,
        profile=shipped("Claude Code"),
        convention_text="composed\n",
        bridge=BridgeEndpoint(SOCKET, "t0ken"),
        tool_timeout_ms=TIMEOUT_MS,
    )
    LocalRunDirWriter().prepare(request)
    settings = json.loads((root / ".ideai" / "run" / AGENT / ".claude" / "settings.local.json").read_text("utf-8"))
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert command.startswith(shlex.join([sys.executable, "-I", "-S", "-c"]) + " ")
    # The relay's folder is an argument of its own after the code (hook_command.py), then the options.
    assert f" {shlex.quote(os.path.dirname(relay.__file__))} --source claude " in command
    assert command.endswith(" --event Stop")
