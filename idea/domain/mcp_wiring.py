"""Pure encoders of the declarations that point a CLI at IdeA's MCP bridge and hook relay (spec 02 §12-§13).

The `.mcp.json` text is built by hand, byte for byte like the original's encoder, so both implementations
produce identical files. The TOML and settings documents are returned as dicts; the infrastructure writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from idea.domain.command_line import POSIX_SHELL, ShellDialect
from idea.domain.launch_secret import TOKEN_ENV_VAR

MCP_SERVER_NAME = "idea"
CLAUDE_TOOL_TIMEOUT_ENV_VAR = "MCP_TOOL_TIMEOUT"

# Lifecycle hooks IdeA installs for Claude Code (spec 05 §2.1). PreToolUse/PostToolUse are left out on
# purpose: they run synchronously before every tool call. `StopFailure` (2.1) fires instead of `Stop` when an
# API error (a usage limit, an overload, a failed sign-in) ended the turn; versions without it ignore it.
CLAUDE_HOOK_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "Notification",
    "Stop",
    "StopFailure",
    "SubagentStop",
    "SessionEnd",
)
CLAUDE_HOOK_TIMEOUT_SECONDS = 5
# Gemini CLI's hooks (0.61: `hooks` in the `.gemini/settings.json` of a trusted folder, command hooks run with
# the event's JSON on stdin) that IdeA installs, each relayed under the name of the Claude Code event that
# means the same, which the core follows: a turn starts (`BeforeAgent`) and ends (`AfterAgent`), a tool waits
# for the person's approval (`Notification` of type `ToolPermission`).
GEMINI_HOOK_EVENTS: Mapping[str, str] = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "AfterAgent": "Stop",
    "Notification": "Notification",
    "SessionEnd": "SessionEnd",
}
GEMINI_HOOK_TIMEOUT_MS = 5_000
GEMINI_HOOK_NAME = "IdeA lifecycle relay"  # what Gemini names when it tells the person about project hooks

CODEX_STARTUP_TIMEOUT_SEC = 20
# Claude Code 2.1 asks before each call of an MCP tool ("Do you want to proceed? … Yes, and don't ask again for
# idea - idea_reply"), and Codex 0.171 too ("Allow the idea MCP server to run tool "idea_reply"?"): a delegated
# task could never be answered with nobody at the agent's cell. IdeA's own tools are the team's plumbing, not
# an action on the person's machine: they run unasked (a Claude rule naming the server allows all its tools).
CLAUDE_IDEA_TOOLS_RULE = f"mcp__{MCP_SERVER_NAME}"
CODEX_TOOLS_APPROVED = "approve"
CODEX_MANAGED_TOP_LEVEL_KEYS: tuple[str, ...] = ("notify", "sandbox_mode", "approval_policy")
CODEX_CONFIG_HEADER = "# Managed by IdeA: the keys below are rewritten at every launch; other keys are preserved.\n"

RENDEZVOUS_TIMEOUT_MARGIN_MS = 60_000


def json_string(text: str) -> str:
    """A JSON string literal, escaped exactly like the original encoder (lowercase `\\u00xx` for controls)."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


@dataclass(frozen=True)
class McpServerWiring:
    """How to start IdeA's bridge: the single source of the JSON, TOML and settings declarations."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    transport: str = "stdio"

    def to_mcp_json(self) -> str:
        """The complete `.mcp.json` document: two-space indentation, one argument per line."""
        args = ",".join(f"\n        {json_string(arg)}" for arg in self.args)
        args_block = f"[{args}\n      ]" if self.args else "[]"
        env_block = ""
        if self.env:
            pairs = ",".join(f"\n        {json_string(key)}: {json_string(value)}" for key, value in self.env.items())
            env_block = f'      "env": {{{pairs}\n      }},\n'
        return (
            "{\n"
            '  "mcpServers": {\n'
            f"    {json_string(MCP_SERVER_NAME)}: {{\n"
            f'      "command": {json_string(self.command)},\n'
            f'      "args": {args_block},\n'
            f"{env_block}"
            f'      "transport": {json_string(self.transport)}\n'
            "    }\n"
            "  }\n"
            "}\n"
        )


def bridge_args(endpoint: str, project_hex: str, agent_id: str) -> list[str]:
    """Arguments of the `mcp-server` subcommand that connects one agent to its project's endpoint."""
    return ["mcp-server", "--endpoint", endpoint, "--project", project_hex, "--requester", agent_id]


def hook_relay_args(source: str, endpoint: str, project_hex: str, agent_id: str) -> list[str]:
    """Arguments of the `hook` subcommand that relays a CLI lifecycle event to the project (spec 05 §3)."""
    return ["hook", "--source", source, "--endpoint", endpoint, "--project", project_hex, "--agent", agent_id]


def bridge_wiring(
    idea_command: Sequence[str], endpoint: str, project_hex: str, agent_id: str, token: str
) -> McpServerWiring:
    """The bridge declaration: IdeA's executable (plus `-m idea` in a checkout) and the launch secret."""
    return McpServerWiring(
        command=idea_command[0],
        args=(*idea_command[1:], *bridge_args(endpoint, project_hex, agent_id)),
        env={TOKEN_ENV_VAR: token},
    )


def rendezvous_tool_timeout_ms(window_ms: int, ceiling_ms: int) -> int:
    """Client-side limit on one MCP tool call: longer than any rendezvous, so IdeA always answers first."""
    return ceiling_ms + window_ms + RENDEZVOUS_TIMEOUT_MARGIN_MS


def claude_settings(
    hook_command_prefix: Sequence[str] | None,
    tool_timeout_ms: int,
    shell: ShellDialect = POSIX_SHELL,
    *,
    http_hook_urls: Mapping[str, str] | None = None,
    http_hook_token: str = "",
) -> dict[str, Any]:
    """The keys IdeA owns in `<runDir>/.claude/settings.local.json`.

    `http_hook_urls` (event -> URL of the project's hook door) installs hooks of type `http` that post to
    IdeA with this launch's secret as bearer token: no process per event. Otherwise
    `hook_command_prefix` is the relay's argv; Claude runs hook commands through a shell, so it is quoted
    here for the platform's shell (`command_line.py`; UnquotableArgument when it cannot be) and
    `--event <name>` appended. Neither installs no hooks.
    """
    settings: dict[str, Any] = {
        "enabledMcpjsonServers": [MCP_SERVER_NAME],
        "permissions": {"allow": [CLAUDE_IDEA_TOOLS_RULE]},
    }
    if http_hook_urls is not None:
        settings["hooks"] = {
            event: [
                {
                    "hooks": [
                        {
                            "type": "http",
                            "url": http_hook_urls[event],
                            "headers": {"Authorization": f"Bearer {http_hook_token}"},
                            "timeout": CLAUDE_HOOK_TIMEOUT_SECONDS,
                        }
                    ]
                }
            ]
            for event in CLAUDE_HOOK_EVENTS
        }
    elif hook_command_prefix is not None:
        prefix = shell.join(hook_command_prefix)
        settings["hooks"] = {
            event: [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": f"{prefix} --event {event}",
                            "timeout": CLAUDE_HOOK_TIMEOUT_SECONDS,
                        }
                    ]
                }
            ]
            for event in CLAUDE_HOOK_EVENTS
        }
    settings["env"] = {CLAUDE_TOOL_TIMEOUT_ENV_VAR: str(tool_timeout_ms)}
    return settings


def with_idea_tools_allowed(permissions: Mapping[str, Any]) -> dict[str, Any]:
    """A permission policy's `permissions` for Claude, IdeA's own tools allowed as well."""
    allow = permissions.get("allow")
    rules = [rule for rule in allow if rule != CLAUDE_IDEA_TOOLS_RULE] if isinstance(allow, list) else []
    return {**permissions, "allow": [*rules, CLAUDE_IDEA_TOOLS_RULE]}


def codex_managed_config(
    wiring: McpServerWiring | None,
    *,
    notify_command: Sequence[str] | None,
    tool_timeout_ms: int,
    trusted_paths: Iterable[str],
    sandbox_mode: str | None = None,
    approval_policy: str | None = None,
) -> dict[str, Any]:
    """The content IdeA owns in an agent's Codex `config.toml` (spec 02 §13.2), as a TOML-shaped dict.

    `transport` is not written: Codex 0.171 rejects `mcp_servers.<name>.transport` under --strict-config.
    """
    managed: dict[str, Any] = {}
    if notify_command is not None:
        managed["notify"] = list(notify_command)
    if sandbox_mode is not None:
        managed["sandbox_mode"] = sandbox_mode
    if approval_policy is not None:
        managed["approval_policy"] = approval_policy
    if wiring is not None:
        managed["mcp_servers"] = {
            MCP_SERVER_NAME: {
                "command": wiring.command,
                "args": list(wiring.args),
                "env": dict(wiring.env),
                "startup_timeout_sec": CODEX_STARTUP_TIMEOUT_SEC,
                "tool_timeout_sec": -(-tool_timeout_ms // 1000),  # whole seconds, rounded up
                "default_tools_approval_mode": CODEX_TOOLS_APPROVED,
            }
        }
    managed["projects"] = {path: {"trust_level": "trusted"} for path in trusted_paths}
    return managed


def merge_codex_config(existing: Mapping[str, Any], managed: Mapping[str, Any]) -> dict[str, Any]:
    """Replace what IdeA manages in a parsed `config.toml` and keep everything else.

    Managed top-level keys absent from `managed` are removed (a policy that was lifted must not linger);
    other MCP servers and other projects are kept; a trusted project keeps its other keys.
    """
    merged = {key: value for key, value in existing.items() if key not in CODEX_MANAGED_TOP_LEVEL_KEYS}
    for key in CODEX_MANAGED_TOP_LEVEL_KEYS:
        if key in managed:
            merged[key] = managed[key]

    servers = {name: table for name, table in _table(existing, "mcp_servers").items() if name != MCP_SERVER_NAME}
    servers.update(_table(managed, "mcp_servers"))
    if servers:
        merged["mcp_servers"] = servers
    else:
        merged.pop("mcp_servers", None)

    projects = dict(_table(existing, "projects"))
    for path, settings in _table(managed, "projects").items():
        projects[path] = {**_table(projects, path), **settings}
    if projects:
        merged["projects"] = projects
    return merged


def _table(document: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = document.get(key)
    return dict(value) if isinstance(value, Mapping) else {}


def gemini_hooks(hook_command_prefix: Sequence[str], token: str, shell: ShellDialect = POSIX_SHELL) -> dict[str, Any]:
    """The `hooks` IdeA owns in `<runDir>/.gemini/settings.json`: the relay for each of `GEMINI_HOOK_EVENTS`,
    quoted for the shell Gemini runs hooks through (`bash -c`, PowerShell on Windows; UnquotableArgument when
    it cannot be), with the launch secret in the hook's own environment (Gemini may leave variables that look
    secret out of the one it passes on)."""
    prefix = shell.join(hook_command_prefix)
    return {
        event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "name": GEMINI_HOOK_NAME,
                        "command": f"{prefix} --event {idea_event}",
                        "timeout": GEMINI_HOOK_TIMEOUT_MS,
                        "env": {TOKEN_ENV_VAR: token},
                    }
                ]
            }
        ]
        for event, idea_event in GEMINI_HOOK_EVENTS.items()
    }


def merge_gemini_hooks(existing: Any, ours: Mapping[str, Any]) -> dict[str, Any]:
    """`existing` hooks of a co-owned settings file with IdeA's: for each event IdeA hooks, its definition
    first and the others' kept; IdeA's definitions of an earlier launch (by name) replaced."""
    merged: dict[str, Any] = dict(existing) if isinstance(existing, dict) else {}
    for event, definitions in ours.items():
        others = merged.get(event)
        kept = [d for d in others if not _is_idea_hook_definition(d)] if isinstance(others, list) else []
        merged[event] = [*definitions, *kept]
    return merged


def _is_idea_hook_definition(definition: Any) -> bool:
    hooks = definition.get("hooks") if isinstance(definition, dict) else None
    return isinstance(hooks, list) and any(isinstance(h, dict) and h.get("name") == GEMINI_HOOK_NAME for h in hooks)


def gemini_mcp_servers(wiring: McpServerWiring, tool_timeout_ms: int) -> dict[str, Any]:
    """The `mcpServers` entry of `.gemini/settings.json`; `timeout` is Gemini's per-call limit in ms. `trust`
    lets Gemini call IdeA's tools without asking the person each time (an agent in the background answers an
    ask with nobody at its cell; IdeA's door checks who calls and what each may do), as Claude Code's
    `mcp__idea` rule does."""
    entry: dict[str, Any] = {"command": wiring.command, "args": list(wiring.args)}
    if wiring.env:
        entry["env"] = dict(wiring.env)
    entry["timeout"] = tool_timeout_ms
    entry["trust"] = True
    return {MCP_SERVER_NAME: entry}


IDEA_SUBCOMMANDS = ("mcp-server", "hook")


def retarget_idea_argv(argv: Sequence[str], idea_command: Sequence[str], endpoint: str) -> list[str] | None:
    """A bridge or hook relay argv written by an earlier IdeA, pointed at this IdeA's command and endpoint.

    The IdeA command is whatever precedes the subcommand (an AppImage path, a frozen executable, a console
    script, `python -m idea`). None when `argv` is not IdeA's or already current.
    """
    for index, arg in enumerate(argv):
        if arg in IDEA_SUBCOMMANDS and "--endpoint" in argv[index + 1 :]:
            tail = list(argv[index:])
            at = tail.index("--endpoint") + 1
            if at < len(tail):
                tail[at] = endpoint
            retargeted = [*idea_command, *tail]
            return None if retargeted == list(argv) else retargeted
    return None


def retarget_idea_shell_command(
    command: str, idea_command: Sequence[str], endpoint: str, shell: ShellDialect = POSIX_SHELL
) -> str | None:
    """`retarget_idea_argv` for a hook command line a CLI runs through a shell (Claude's hooks)."""
    try:
        argv = shell.split(command)
        retargeted = retarget_idea_argv(argv, idea_command, endpoint)
        return None if retargeted is None else shell.join(retargeted)
    except ValueError:  # unbalanced quotes, or (Windows) a new path no hook line can carry
        return None
