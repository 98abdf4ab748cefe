"""Materialises an agent's private run dir `.ideai/run/<agentId>/` before each launch (spec 02 §8, §10-§13).

Replace-owned files (context file, `.mcp.json`, Claude settings) are rewritten whole; co-owned files (Codex
`config.toml`, Gemini `settings.json`) are merged so keys IdeA does not manage survive.
"""

from __future__ import annotations

import os
import tomllib
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from idea.application.agents.ports import PreparedRunDir, RunDirRequest
from idea.domain.command_line import POSIX_SHELL, ShellDialect, UnquotableArgument
from idea.domain.errors import AppError, CorruptFileError, ErrorCode, invalid
from idea.domain.ids import simple_hex
from idea.domain.mcp_wiring import (
    CLAUDE_HOOK_EVENTS,
    CLAUDE_TOOL_TIMEOUT_ENV_VAR,
    CODEX_CONFIG_HEADER,
    McpServerWiring,
    bridge_wiring,
    claude_settings,
    codex_managed_config,
    gemini_hooks,
    gemini_mcp_servers,
    hook_relay_args,
    merge_codex_config,
    merge_gemini_hooks,
    with_idea_tools_allowed,
)
from idea.domain.profile import GEMINI_MCP_DECLARATION, Profile
from idea.domain.profile_launch import injection_args, mcp_flag_args, resolve_cwd
from idea.domain.profile_parts import (
    ConfigFileMcp,
    ConventionFileInjection,
    EnvInjection,
    EnvMcp,
    FlagMcp,
    McpConfig,
    StdinInjection,
    TomlConfigHomeMcp,
)
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.agents.cli_trust import trust_run_dir
from idea.infrastructure.agents.codex_auth import link_codex_auth, user_codex_home
from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.agents.gemini_workspace import gemini_workspace, is_gemini_cli
from idea.infrastructure.agents.hook_command import HOOK_SUBCOMMAND, hook_relay_command
from idea.infrastructure.agents.run_dir_retarget import retarget_run_dirs
from idea.infrastructure.agents.sandbox_plan_file import write_sandbox_plan
from idea.infrastructure.hooks.http_door import HookUrls, hook_url
from idea.infrastructure.fs import atomic_write_json, atomic_write_text, quarantine, read_json

RUN_DIR = "run"
REQUESTS_DIR = "requests"
CLAUDE_SETTINGS = Path(".claude") / "settings.local.json"
GEMINI_SETTINGS = Path(GEMINI_MCP_DECLARATION)
MCP_DECLARATION_FOR_FLAG_OR_ENV = "idea-mcp.json"
PRIVATE_DIR_MODE = 0o700
SECRET_FILE_MODE = 0o600  # these files carry the launch token
STDIN_FIRST_TURN = "Read {path} now: it contains your role and IdeA's rules."


class LocalRunDirWriter:
    def __init__(
        self,
        idea_command_prefix: Sequence[str] | None = None,
        codex_home: Path | None = None,
        shell: ShellDialect = POSIX_SHELL,
        hook_command_prefix: Sequence[str] | None = None,
        hook_urls: HookUrls | None = None,
        gemini_shell: ShellDialect = POSIX_SHELL,
    ) -> None:
        """`hook_command_prefix`: how CLIs start the hook relay; by default the cheapest form this installation
        has (`hook_relay_command`), or `<idea_command_prefix> hook` when that prefix is given.
        `hook_urls`: the projects' HTTP hook doors; Claude posts its hooks there when its project has one."""
        self._hook_urls = hook_urls
        self._idea_command = list(idea_command_prefix) if idea_command_prefix else idea_command()
        if hook_command_prefix is not None:
            self._hook_command = list(hook_command_prefix)
        elif idea_command_prefix:
            self._hook_command = [*idea_command_prefix, HOOK_SUBCOMMAND]
        else:
            self._hook_command = hook_relay_command()
        self._codex_home = codex_home
        self._shell = shell  # how the CLIs' shell reads hook command lines (cmd.exe and Git Bash on Windows)
        self._gemini_shell = gemini_shell  # Gemini CLI's: bash, PowerShell on Windows

    def prepare(self, request: RunDirRequest) -> PreparedRunDir:
        try:
            return self._prepare(request)
        except OSError as exc:
            raise AppError(
                ErrorCode.STORE,
                f"The run directory of agent {request.agent_id} could not be prepared: {exc}",
                data={"agentId": request.agent_id},
            ) from exc

    def retarget(self, project_root: str, endpoint: str) -> list[str]:
        return [
            str(path)
            for path in retarget_run_dirs(
                Path(project_root) / IDEAI_DIR / RUN_DIR, self._idea_command, endpoint, self._shell, self._gemini_shell
            )
        ]

    def _prepare(self, request: RunDirRequest) -> PreparedRunDir:
        profile = request.profile
        root = Path(request.project_root).resolve()
        run_dir = root / IDEAI_DIR / RUN_DIR / _checked_agent_id(request.agent_id)
        _make_private_dir(run_dir)
        work_root = Path(request.work_root).resolve() if request.work_root else root  # the agent's project root
        cwd = Path(resolve_cwd(profile, str(run_dir), str(work_root)))
        launch = _LaunchAdditions()

        context_path = self._write_context(profile, request.convention_text, run_dir, cwd, launch)
        request_dir = root / IDEAI_DIR / REQUESTS_DIR / request.agent_id
        if profile.mcp is None:
            for box in ("in", "out"):
                (request_dir / box).mkdir(parents=True, exist_ok=True)
        else:
            self._write_mcp_declaration(request, profile.mcp.config, work_root, run_dir, launch)
        hooks_tell_session = profile.hooks == "gemini" and self._write_gemini_hooks(request, run_dir, cwd, launch)
        if profile.structured_adapter == "claude" or profile.hooks == "claude":
            self._write_claude_settings(request, run_dir, launch)
        else:
            (run_dir / CLAUDE_SETTINGS).unlink(missing_ok=True)  # a swapped-away CLI's permissions must not linger
        write_sandbox_plan(run_dir, request.sandbox_plan)
        launch.args.extend(request.permission_args)
        if request.trust_run_dir and (warning := trust_run_dir(profile, str(cwd))):
            launch.warnings.append(warning)
        if is_gemini_cli(profile.command):
            workspace = gemini_workspace(
                str(cwd),
                str(work_root),
                str(request_dir) if profile.mcp is None else None,
                session_told=hooks_tell_session or profile.session is None,
            )
            launch.args.extend(workspace.args)
            launch.warnings.extend(workspace.warnings)
            launch.session_assignable = workspace.session_assignable

        return PreparedRunDir(
            run_dir=str(run_dir),
            cwd=str(cwd),
            context_path=str(context_path),
            extra_args=tuple(launch.args),
            extra_env=dict(launch.env),
            first_turn=launch.first_turn,
            warnings=tuple(launch.warnings),
            session_assignable=launch.session_assignable,
        )

    # --- context injection ---

    @staticmethod
    def _write_context(profile: Profile, text: str, run_dir: Path, cwd: Path, launch: _LaunchAdditions) -> Path:
        injection = profile.context_injection
        if isinstance(injection, ConventionFileInjection):
            # A generated file must never replace one of the user's own (e.g. the project's CLAUDE.md).
            if not cwd.resolve().is_relative_to(run_dir.resolve()):
                raise invalid(
                    f"Profile {profile.name!r} would write {injection.target} into {cwd}, outside the agent's "
                    "run directory; use cwdTemplate {agentRunDir} or another injection strategy.",
                    profileId=profile.id,
                )
            path = cwd / injection.target
        else:
            path = run_dir / injection.target
        atomic_write_text(path, text)
        if isinstance(injection, StdinInjection):
            launch.first_turn = STDIN_FIRST_TURN.format(path=path)
        elif isinstance(injection, EnvInjection):
            launch.env[injection.var] = str(path)
        else:
            launch.args.extend(injection_args(profile, str(path)))
        return path

    # --- MCP declaration ---

    def _write_mcp_declaration(
        self, request: RunDirRequest, config: McpConfig, root: Path, run_dir: Path, launch: _LaunchAdditions
    ) -> None:
        wiring = self._wiring(request)
        if isinstance(config, TomlConfigHomeMcp):
            self._write_codex_home(request, root, run_dir, config, wiring, launch)
            return
        if wiring is None:
            return
        if isinstance(config, ConfigFileMcp):
            path = run_dir / config.target
            if Path(config.target) == GEMINI_SETTINGS:
                servers = gemini_mcp_servers(wiring, request.tool_timeout_ms)
                self._update_gemini_settings(path, launch, lambda settings: _merge_key(settings, "mcpServers", servers))
            else:
                atomic_write_text(path, wiring.to_mcp_json(), SECRET_FILE_MODE)
            return
        path = run_dir / MCP_DECLARATION_FOR_FLAG_OR_ENV
        atomic_write_text(path, wiring.to_mcp_json(), SECRET_FILE_MODE)
        if isinstance(config, FlagMcp):
            launch.args.extend(mcp_flag_args(request.profile, str(path)))
        elif isinstance(config, EnvMcp):
            launch.env[config.var] = str(path)

    def _wiring(self, request: RunDirRequest) -> McpServerWiring | None:
        if request.bridge is None:
            return None
        return bridge_wiring(
            self._idea_command,
            request.bridge.endpoint,
            simple_hex(request.project_id),
            request.agent_id,
            request.bridge.token,
        )

    def _hook_door(self, request: RunDirRequest) -> dict[str, str] | None:
        """Event -> URL on the project's hook door, when it has one open."""
        prefix = self._hook_urls.url_for(request.project_id) if self._hook_urls is not None else None
        if prefix is None:
            return None
        return {event: hook_url(prefix, request.agent_id, event) for event in CLAUDE_HOOK_EVENTS}

    def _hook_relay(self, request: RunDirRequest, source: str) -> list[str] | None:
        if request.bridge is None:
            return None
        relay = hook_relay_args(source, request.bridge.endpoint, simple_hex(request.project_id), request.agent_id)
        return [*self._hook_command, *relay[1:]]  # relay[0] is the subcommand, part of the prefix when needed

    def _write_codex_home(
        self,
        request: RunDirRequest,
        root: Path,
        run_dir: Path,
        config: TomlConfigHomeMcp,
        wiring: McpServerWiring | None,
        launch: _LaunchAdditions,
    ) -> None:
        path = run_dir / config.target
        home = path.parent
        _make_private_dir(home)  # Codex refuses a CODEX_HOME that does not exist
        notify = self._hook_relay(request, "codex") if request.profile.hooks == "codexNotify" else None
        managed = codex_managed_config(
            wiring,
            notify_command=notify,
            tool_timeout_ms=request.tool_timeout_ms,
            trusted_paths=(str(root), str(run_dir)),
            sandbox_mode=request.codex_sandbox_mode,
            approval_policy=request.codex_approval_policy,
        )
        existing = self._read_toml(path, launch)
        text = CODEX_CONFIG_HEADER + tomli_w.dumps(merge_codex_config(existing, managed))
        atomic_write_text(path, text, SECRET_FILE_MODE)
        launch.env[config.home_env] = str(home)
        if request.profile.structured_adapter == "codex":
            link_codex_auth(home, self._codex_home if self._codex_home is not None else user_codex_home())

    @staticmethod
    def _read_toml(path: Path, launch: _LaunchAdditions) -> dict[str, Any]:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return {}
        try:
            return tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            launch.warnings.append(quarantine(path, f"invalid TOML: {exc}").message + "; a fresh one was written")
            return {}

    # --- Gemini settings ---

    def _write_gemini_hooks(self, request: RunDirRequest, run_dir: Path, cwd: Path, launch: _LaunchAdditions) -> bool:
        """True when they were installed."""
        relay = self._hook_relay(request, "gemini")
        if relay is None or request.bridge is None:
            return False
        if cwd != run_dir:
            launch.warnings.append(
                "Gemini CLI's lifecycle hooks were not installed: it reads them in the folder it starts in, which "
                "is not the agent's run dir"
            )
            return False
        try:
            hooks = gemini_hooks(relay, request.bridge.token, self._gemini_shell)
        except UnquotableArgument as exc:
            launch.warnings.append(
                f"Gemini CLI's lifecycle hooks were not installed: the command that relays them cannot be written "
                f"for the shell it runs hooks through ({exc}); the agent runs without them"
            )
            return False

        def install(settings: dict[str, Any]) -> None:
            settings["hooks"] = merge_gemini_hooks(settings.get("hooks"), hooks)

        self._update_gemini_settings(run_dir / GEMINI_SETTINGS, launch, install)
        return True

    @staticmethod
    def _update_gemini_settings(
        path: Path, launch: _LaunchAdditions, update: Callable[[dict[str, Any]], None]
    ) -> None:
        """A co-owned file: what IdeA does not manage in it stays."""
        try:
            existing = read_json(path)
        except CorruptFileError as exc:
            launch.warnings.append(f"{exc.message}; a fresh one was written")
            existing = None
        settings: dict[str, Any] = existing if isinstance(existing, dict) else {}
        update(settings)
        atomic_write_json(path, settings, SECRET_FILE_MODE)

    # --- Claude settings ---

    def _write_claude_settings(self, request: RunDirRequest, run_dir: Path, launch: _LaunchAdditions) -> None:
        hooks = self._hook_relay(request, "claude") if request.profile.hooks == "claude" else None
        door = self._hook_door(request) if hooks is not None else None
        try:
            settings = claude_settings(
                hooks,
                request.tool_timeout_ms,
                self._shell,
                http_hook_urls=door,
                http_hook_token=request.bridge.token if request.bridge is not None else "",
            )
        except UnquotableArgument as exc:
            launch.warnings.append(
                f"Claude's lifecycle hooks were not installed: the command that relays them cannot be written "
                f"for this system's shell ({exc}); the agent runs without them"
            )
            settings = claude_settings(None, request.tool_timeout_ms, self._shell)
        for key, value in request.claude_permission_settings.items():
            if key == "env" and isinstance(value, Mapping):
                settings["env"] = {**value, **settings["env"]}
            elif key == "permissions" and isinstance(value, Mapping):
                settings["permissions"] = with_idea_tools_allowed(value)
            else:
                settings[key] = value
        atomic_write_json(run_dir / CLAUDE_SETTINGS, settings, SECRET_FILE_MODE)
        # Also in the process environment: Claude ignores local settings until the folder is trusted.
        launch.env[CLAUDE_TOOL_TIMEOUT_ENV_VAR] = str(request.tool_timeout_ms)


@dataclass
class _LaunchAdditions:
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    first_turn: str | None = None
    warnings: list[str] = field(default_factory=list)
    session_assignable: bool = True


def _merge_key(settings: dict[str, Any], key: str, ours: Mapping[str, Any]) -> None:
    """`settings[key]`, a mapping of entries, with IdeA's entries set and the others kept."""
    current = settings.get(key)
    settings[key] = {**(current if isinstance(current, dict) else {}), **ours}


def _checked_agent_id(agent_id: str) -> str:
    """Agent ids become directory names: only UUIDs are accepted."""
    try:
        uuid.UUID(agent_id)
    except ValueError:
        raise invalid(f"{agent_id!r} is not an agent id", agentId=agent_id) from None
    return agent_id


def _make_private_dir(path: Path) -> None:
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    os.chmod(path, PRIVATE_DIR_MODE)  # mkdir's mode is masked by the umask and ignored for existing dirs
