"""Points the run dirs an earlier IdeA wrote at the IdeA that runs now (spec 00 §5.6 step 6).

An agent's run dir names the executable that starts IdeA's bridge and hook relay. When that executable
moves (an AppImage replaced by a newer file, a one-dir unpacked elsewhere, a venv recreated) or the
project's endpoint changes, the declarations left in `.ideai/run/*/` would start nothing. At project open,
every IdeA-owned entry in them is rewritten; everything else in those files is kept. A launch rewrites its
run dir whole anyway: this covers the CLIs a person starts by hand in a run dir, and the time until then.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import tomli_w

from idea.domain.command_line import POSIX_SHELL, ShellDialect
from idea.domain.mcp_wiring import (
    CODEX_CONFIG_HEADER,
    MCP_SERVER_NAME,
    McpServerWiring,
    retarget_idea_argv,
    retarget_idea_shell_command,
)
from idea.infrastructure.fs import atomic_write_json, atomic_write_text

_GEMINI_DIR = ".gemini"
_SETTINGS_FILES = (Path(".claude") / "settings.local.json", Path(_GEMINI_DIR) / "settings.json")
_CODEX_CONFIG = "config.toml"
_MCP_JSON_KEYS = {"command", "args", "env", "transport"}


def retarget_run_dirs(
    runs: Path,
    idea_command: Sequence[str],
    endpoint: str,
    shell: ShellDialect = POSIX_SHELL,
    gemini_shell: ShellDialect = POSIX_SHELL,
) -> list[Path]:
    """Rewrite the drifted IdeA entries of every run dir under `runs` (`.ideai/run/`); returns the files
    rewritten. Hook lines are read and written as the shell that runs them does: Gemini CLI's (`gemini_shell`)
    for its settings, `shell` for the others.

    Never raises: a file that cannot be read or parsed is left alone (the next launch of that agent sets it
    aside and writes a fresh one).
    """
    rewritten = []
    for path in _declaration_files(runs):
        try:
            if path.suffix == ".toml":
                changed = _retarget_toml(path, idea_command, endpoint)
            else:
                dialect = gemini_shell if path.parent.name == _GEMINI_DIR else shell
                changed = _retarget_json(path, idea_command, endpoint, dialect)
        except (OSError, UnicodeDecodeError, ValueError, tomllib.TOMLDecodeError):
            continue
        if changed:
            rewritten.append(path)
    return rewritten


def _declaration_files(runs: Path) -> Iterator[Path]:
    """Where the run-dir writer puts declarations: `<run>/*.json` (`.mcp.json`, `idea-mcp.json`), the Claude
    and Gemini settings, and a Codex home's `config.toml` one folder down. Symbolic links are not followed
    (a Codex home links the user's own credentials)."""
    for run in _subdirectories(runs):
        for entry in _scan(run):
            if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                yield Path(entry.path)
        for relative in _SETTINGS_FILES:
            candidate = run / relative
            if candidate.is_file() and not candidate.is_symlink():
                yield candidate
        for home in _subdirectories(run):
            candidate = home / _CODEX_CONFIG
            if candidate.is_file() and not candidate.is_symlink():
                yield candidate


def _subdirectories(directory: Path) -> Iterator[Path]:
    for entry in _scan(directory):
        if entry.is_dir(follow_symlinks=False):
            yield Path(entry.path)


def _scan(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def _retarget_json(path: Path, idea_command: Sequence[str], endpoint: str, shell: ShellDialect) -> bool:
    document = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(document, dict):
        return False
    changed = _retarget_server(document.get("mcpServers"), idea_command, endpoint)
    changed = _retarget_hooks(document.get("hooks"), idea_command, endpoint, shell) or changed
    if not changed:
        return False
    mode = path.stat().st_mode & 0o777
    if _is_plain_mcp_json(document):
        server = document["mcpServers"][MCP_SERVER_NAME]
        wiring = McpServerWiring(
            command=server["command"],
            args=tuple(server.get("args", ())),
            env=dict(server.get("env", {})),
            transport=server.get("transport", "stdio"),
        )
        atomic_write_text(path, wiring.to_mcp_json(), mode)  # byte for byte what the writer produces
    else:
        atomic_write_json(path, document, mode)
    return True


def _retarget_toml(path: Path, idea_command: Sequence[str], endpoint: str) -> bool:
    document = tomllib.loads(path.read_text(encoding="utf-8"))
    changed = _retarget_server(document.get("mcp_servers"), idea_command, endpoint)
    notify = document.get("notify")
    if _is_argv(notify):
        retargeted = retarget_idea_argv(notify, idea_command, endpoint)
        if retargeted is not None:
            document["notify"] = retargeted
            changed = True
    if changed:
        atomic_write_text(path, CODEX_CONFIG_HEADER + tomli_w.dumps(document), path.stat().st_mode & 0o777)
    return changed


def _retarget_server(servers: Any, idea_command: Sequence[str], endpoint: str) -> bool:
    server = servers.get(MCP_SERVER_NAME) if isinstance(servers, dict) else None
    if not isinstance(server, dict) or not isinstance(server.get("command"), str):
        return False
    args = server.get("args", [])
    if not _is_argv(args):
        return False
    retargeted = retarget_idea_argv([server["command"], *args], idea_command, endpoint)
    if retargeted is None:
        return False
    server["command"], server["args"] = retargeted[0], retargeted[1:]
    return True


def _retarget_hooks(hooks: Any, idea_command: Sequence[str], endpoint: str, shell: ShellDialect) -> bool:
    changed = False
    for matchers in hooks.values() if isinstance(hooks, dict) else ():
        for matcher in matchers if isinstance(matchers, list) else ():
            for hook in matcher.get("hooks", ()) if isinstance(matcher, dict) else ():
                command = hook.get("command") if isinstance(hook, dict) else None
                if not isinstance(command, str):
                    continue
                retargeted = retarget_idea_shell_command(command, idea_command, endpoint, shell)
                if retargeted is not None:
                    hook["command"] = retargeted
                    changed = True
    return changed


def _is_argv(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_plain_mcp_json(document: dict[str, Any]) -> bool:
    servers = document.get("mcpServers")
    return (
        document.keys() == {"mcpServers"}
        and isinstance(servers, dict)
        and servers.keys() == {MCP_SERVER_NAME}
        and set(servers[MCP_SERVER_NAME]) <= _MCP_JSON_KEYS
        and isinstance(servers[MCP_SERVER_NAME].get("env", {}), dict)
        and isinstance(servers[MCP_SERVER_NAME].get("transport", "stdio"), str)
    )
