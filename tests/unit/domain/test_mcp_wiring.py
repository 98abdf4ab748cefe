"""Spec 02 §12-§13, spec 05 §2.1, acceptance AG-6: the declarations read by the real CLIs, byte for byte."""

from __future__ import annotations

import json

from idea.domain.mcp_wiring import (
    McpServerWiring,
    bridge_args,
    bridge_wiring,
    claude_settings,
    codex_managed_config,
    gemini_hooks,
    gemini_mcp_servers,
    hook_relay_args,
    json_string,
    merge_codex_config,
    merge_gemini_hooks,
    rendezvous_tool_timeout_ms,
    with_idea_tools_allowed,
)

AGENT = "a6ced819-b893-4213-b003-9e9dc79b9641"
PROJECT_HEX = "0f3c2a9e6b1d4c1e9d0a2f6f1f7b8c11"
AWKWARD_EXE = '/opt/My Apps/Id"eA\\bin/idea'
AWKWARD_SOCKET = '/run/user/1000/idea sockets/"x".sock'

EXPECTED_MCP_JSON = r"""{
  "mcpServers": {
    "idea": {
      "command": "/opt/My Apps/Id\"eA\\bin/idea",
      "args": [
        "mcp-server",
        "--endpoint",
        "/run/user/1000/idea sockets/\"x\".sock",
        "--project",
        "0f3c2a9e6b1d4c1e9d0a2f6f1f7b8c11",
        "--requester",
        "a6ced819-b893-4213-b003-9e9dc79b9641"
      ],
      "env": {
        "IDEA_MCP_TOKEN": "s3cr\\et"
      },
      "transport": "stdio"
    }
  }
}
"""


def test_mcp_json_bytes_for_a_path_with_spaces_quotes_and_backslashes() -> None:
    wiring = bridge_wiring([AWKWARD_EXE], AWKWARD_SOCKET, PROJECT_HEX, AGENT, "s3cr\\et")

    document = wiring.to_mcp_json()

    assert document == EXPECTED_MCP_JSON
    assert json.loads(document)["mcpServers"]["idea"]["command"] == AWKWARD_EXE


def test_a_development_checkout_runs_the_bridge_as_a_python_module() -> None:
    wiring = bridge_wiring(["/usr/bin/python3", "-m", "idea"], "/s", PROJECT_HEX, AGENT, "t")

    assert wiring.command == "/usr/bin/python3"
    assert wiring.args == ("-m", "idea", *bridge_args("/s", PROJECT_HEX, AGENT))


def test_minimal_declaration_without_arguments_or_environment() -> None:
    assert McpServerWiring("idea").to_mcp_json() == (
        '{\n  "mcpServers": {\n    "idea": {\n      "command": "idea",\n      "args": [],\n'
        '      "transport": "stdio"\n    }\n  }\n}\n'
    )


def test_json_string_escapes_like_the_original_encoder() -> None:
    assert json_string('a"b\\c') == '"a\\"b\\\\c"'
    assert json_string("\n\r\t") == '"\\n\\r\\t"'
    assert json_string("\x00\x08\x0c\x1b\x1f") == '"\\u0000\\u0008\\u000c\\u001b\\u001f"'
    assert json_string("\x7f é \u2028") == '"\x7f é \u2028"'  # only controls below 0x20 are escaped


def test_every_escaped_declaration_is_valid_json() -> None:
    nasty = "".join(chr(code) for code in range(0x40)) + "é\u2028\\\""
    wiring = McpServerWiring(nasty, (nasty, ""), {"K": nasty})

    parsed = json.loads(wiring.to_mcp_json())["mcpServers"]["idea"]

    assert parsed == {"command": nasty, "args": [nasty, ""], "env": {"K": nasty}, "transport": "stdio"}


def test_bridge_and_hook_relay_arguments() -> None:
    assert bridge_args("/s", PROJECT_HEX, AGENT) == [
        "mcp-server", "--endpoint", "/s", "--project", PROJECT_HEX, "--requester", AGENT,
    ]
    assert hook_relay_args("codex", "/s", PROJECT_HEX, AGENT) == [
        "hook", "--source", "codex", "--endpoint", "/s", "--project", PROJECT_HEX, "--agent", AGENT,
    ]


def test_tool_timeout_is_ceiling_plus_window_plus_a_minute() -> None:
    assert rendezvous_tool_timeout_ms(window_ms=600_000, ceiling_ms=14_400_000) == 15_060_000


def test_claude_settings_install_the_lifecycle_hooks_shell_quoted() -> None:
    relay = ["/opt/My Apps/idea", "hook", "--source", "claude", "--endpoint", "/run/it's.sock"]
    command = "'/opt/My Apps/idea' hook --source claude --endpoint '/run/it'\"'\"'s.sock' --event "

    settings = claude_settings(relay, 15_060_000)

    def hook(event: str) -> list[dict[str, object]]:
        return [{"hooks": [{"type": "command", "command": command + event, "timeout": 5}]}]

    assert settings == {
        "enabledMcpjsonServers": ["idea"],
        "permissions": {"allow": ["mcp__idea"]},
        "hooks": {
            "SessionStart": hook("SessionStart"),
            "UserPromptSubmit": hook("UserPromptSubmit"),
            "Notification": hook("Notification"),
            "Stop": hook("Stop"),
            "StopFailure": hook("StopFailure"),
            "SubagentStop": hook("SubagentStop"),
            "SessionEnd": hook("SessionEnd"),
        },
        "env": {"MCP_TOOL_TIMEOUT": "15060000"},
    }


def test_gemini_hooks_relay_its_turn_events_under_claude_names_with_the_launch_secret() -> None:
    hooks = gemini_hooks([AWKWARD_EXE, "hook", "--source", "gemini"], "t0ken")
    relay = "'/opt/My Apps/Id\"eA\\bin/idea' hook --source gemini"
    assert {event: entries[0]["hooks"][0]["command"] for event, entries in hooks.items()} == {
        "SessionStart": f"{relay} --event SessionStart",
        "BeforeAgent": f"{relay} --event UserPromptSubmit",
        "AfterAgent": f"{relay} --event Stop",
        "Notification": f"{relay} --event Notification",
        "SessionEnd": f"{relay} --event SessionEnd",
    }
    [hook] = hooks["AfterAgent"][0]["hooks"]
    assert (hook["type"], hook["name"], hook["timeout"], hook["env"]) == (
        "command", "IdeA lifecycle relay", 5000, {"IDEA_MCP_TOKEN": "t0ken"}
    )


def test_gemini_hooks_merge_keeps_the_persons_own_and_replaces_an_earlier_launchs() -> None:
    earlier = gemini_hooks(["idea", "hook"], "old")
    mine = {"matcher": "*", "hooks": [{"type": "command", "command": "notify-send done"}]}
    existing = {"AfterAgent": [*earlier["AfterAgent"], mine], "BeforeTool": [mine]}

    merged = merge_gemini_hooks(existing, gemini_hooks(["idea", "hook"], "new"))

    assert merged["BeforeTool"] == [mine]
    assert [entry["hooks"][0].get("env") for entry in merged["AfterAgent"]] == [{"IDEA_MCP_TOKEN": "new"}, None]
    assert merged.keys() == {"BeforeTool", "SessionStart", "BeforeAgent", "AfterAgent", "Notification", "SessionEnd"}
    assert merge_gemini_hooks("not a mapping", {"AfterAgent": []}) == {"AfterAgent": []}


def test_claude_settings_without_hooks_still_enable_the_server() -> None:
    assert claude_settings(None, 1000) == {
        "enabledMcpjsonServers": ["idea"],
        "permissions": {"allow": ["mcp__idea"]},  # IdeA's own tools run unasked
        "env": {"MCP_TOOL_TIMEOUT": "1000"},
    }


def test_a_permission_policy_keeps_idea_tools_allowed() -> None:
    policy = {"defaultMode": "default", "allow": ["Read", "mcp__idea"], "deny": ["Bash(sudo *)"]}
    assert with_idea_tools_allowed(policy) == {
        "defaultMode": "default",
        "allow": ["Read", "mcp__idea"],
        "deny": ["Bash(sudo *)"],
    }
    assert with_idea_tools_allowed({"defaultMode": "plan"})["allow"] == ["mcp__idea"]


def test_codex_managed_config_has_no_transport_key() -> None:
    wiring = bridge_wiring(["/x/idea"], "/s", PROJECT_HEX, AGENT, "tok")

    managed = codex_managed_config(
        wiring,
        notify_command=["/x/idea", "hook", "--source", "codex"],
        tool_timeout_ms=15_060_000,
        trusted_paths=["/p", "/p/.ideai/run/a"],
        sandbox_mode="workspace-write",
        approval_policy="on-request",
    )

    assert managed == {
        "notify": ["/x/idea", "hook", "--source", "codex"],
        "sandbox_mode": "workspace-write",
        "approval_policy": "on-request",
        "mcp_servers": {
            "idea": {
                "command": "/x/idea",
                "args": ["mcp-server", "--endpoint", "/s", "--project", PROJECT_HEX, "--requester", AGENT],
                "env": {"IDEA_MCP_TOKEN": "tok"},
                "startup_timeout_sec": 20,
                "tool_timeout_sec": 15060,
                "default_tools_approval_mode": "approve",
            }
        },
        "projects": {"/p": {"trust_level": "trusted"}, "/p/.ideai/run/a": {"trust_level": "trusted"}},
    }


def test_codex_tool_timeout_rounds_up_to_whole_seconds() -> None:
    managed = codex_managed_config(
        McpServerWiring("idea"), notify_command=None, tool_timeout_ms=1_500, trusted_paths=[]
    )

    assert managed["mcp_servers"]["idea"]["tool_timeout_sec"] == 2
    assert "notify" not in managed


def test_merge_keeps_user_keys_other_servers_and_project_tables() -> None:
    existing = {
        "model": "o3",
        "notify": ["old-notifier"],
        "sandbox_mode": "danger-full-access",
        "mcp_servers": {"idea": {"command": "stale"}, "github": {"command": "gh-mcp"}},
        "projects": {"/p": {"trust_level": "untrusted", "note": "mine"}, "/elsewhere": {"trust_level": "trusted"}},
        "profiles": {"fast": {"model": "o4-mini"}},
    }
    managed = {
        "notify": ["idea", "hook"],
        "mcp_servers": {"idea": {"command": "idea"}},
        "projects": {"/p": {"trust_level": "trusted"}, "/p/run": {"trust_level": "trusted"}},
    }

    merged = merge_codex_config(existing, managed)

    assert merged == {
        "model": "o3",
        "profiles": {"fast": {"model": "o4-mini"}},
        "notify": ["idea", "hook"],
        "mcp_servers": {"github": {"command": "gh-mcp"}, "idea": {"command": "idea"}},
        "projects": {
            "/p": {"trust_level": "trusted", "note": "mine"},
            "/elsewhere": {"trust_level": "trusted"},
            "/p/run": {"trust_level": "trusted"},
        },
    }


def test_merge_into_an_empty_file_writes_only_managed_content() -> None:
    managed = {"mcp_servers": {"idea": {"command": "idea"}}, "projects": {"/p": {"trust_level": "trusted"}}}

    assert merge_codex_config({}, managed) == managed


def test_gemini_entry_carries_the_timeout_in_milliseconds_and_trusts_ideas_tools() -> None:
    wiring = bridge_wiring(["/x/idea"], "/s", PROJECT_HEX, AGENT, "tok")

    assert gemini_mcp_servers(wiring, 15_060_000) == {
        "idea": {
            "command": "/x/idea",
            "args": ["mcp-server", "--endpoint", "/s", "--project", PROJECT_HEX, "--requester", AGENT],
            "env": {"IDEA_MCP_TOKEN": "tok"},
            "timeout": 15_060_000,
            "trust": True,
        }
    }
