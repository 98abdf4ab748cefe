"""AI CLI profiles (spec 02 §4-§6): how one CLI is launched, fed its context, and wired to IdeA's bridge.

Profiles are data. A profile written by the original IdeA must load and re-save with the same keys, so
serialisation writes back exactly the keys that were given (`exclude_unset`), unknown keys included; the
defaults of absent fields are only seen by code reading the model.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from idea.domain.documents import CamelDocument
from idea.domain.errors import not_found
from idea.domain.ids import is_uuid
from idea.domain.path_names import program_name

REFERENCE_PROFILE_NAMESPACE = uuid.UUID("6f9b1d2a-7c34-4e58-9a1b-2c3d4e5f6a7b")
REFERENCE_PROFILE_SLUGS: tuple[str, ...] = ("claude", "codex", "gemini", "aider")
# How each reference CLI is installed, as its own documentation gives it; the slug is also its command.
REFERENCE_INSTALL_COMMANDS: dict[str, str] = {
    "claude": "npm install -g @anthropic-ai/claude-code",
    "codex": "npm install -g @openai/codex",
    "gemini": "npm install -g @google/gemini-cli",
    "aider": "python -m pip install aider-install && aider-install",
}

DEFAULT_CWD_TEMPLATE = "{agentRunDir}"
DEFAULT_CONTEXT_TARGET = "IDEA_CONTEXT.md"
DEFAULT_SUBMIT_SEQUENCE = "\r"
DEFAULT_SUBMIT_DELAY_MS = 350
DEFAULT_NEWLINE_SEQUENCE = "\x1b\r"
DEFAULT_COLD_START_MAX_MS = 60_000
CLAUDE_MCP_DECLARATION = ".mcp.json"

RUN_DIR_PLACEHOLDER = "{agentRunDir}"
PROJECT_ROOT_PLACEHOLDER = "{projectRoot}"
PATH_PLACEHOLDER = "{path}"
SESSION_ID_PLACEHOLDER = "{sessionId}"

StructuredAdapter = Literal["claude", "codex"]
ProjectorKey = Literal["claude", "codex"]
HookWiring = Literal["claude", "codexNotify"]
McpTransport = Literal["stdio", "socket"]


def reference_profile_id(slug: str) -> str:
    """The stable id of a reference profile: UUIDv5 of the fixed namespace and the slug."""
    return str(uuid.uuid5(REFERENCE_PROFILE_NAMESPACE, slug))


REFERENCE_PROFILE_IDS: frozenset[str] = frozenset(reference_profile_id(slug) for slug in REFERENCE_PROFILE_SLUGS)


# --- validation helpers (no `re` in the domain) -------------------------------------------------------


def _relative_safe(value: str, what: str) -> str:
    """A path relative to the run dir that cannot leave it: not empty, not absolute, no `..` component."""
    if not value:
        raise ValueError(f"{what} must not be empty")
    absolute = value.startswith(("/", "\\")) or (len(value) >= 2 and value[1] == ":" and value[0].isalpha())
    parts = value.replace("\\", "/").split("/")
    if absolute or ".." in parts:
        raise ValueError(f"{what} {value!r} must be a relative path without '..' (PathNotRelativeSafe)")
    return value


def is_valid_env_var(name: str) -> bool:
    """`[A-Za-z_][A-Za-z0-9_]*`, ASCII only."""
    if not name or not name.isascii():
        return False
    if not (name[0].isalpha() or name[0] == "_"):
        return False
    return all(ch.isalnum() or ch == "_" for ch in name)


def _env_var(value: str, what: str) -> str:
    if not is_valid_env_var(value):
        raise ValueError(
            f"{what} {value!r} is not a valid environment variable name: use letters, digits and '_', "
            "not starting with a digit (InvalidEnvVar)"
        )
    return value


def _non_empty(value: str, what: str) -> str:
    if not value.strip():
        raise ValueError(f"{what} must not be empty")
    return value


class _TaggedVariant(CamelDocument):
    """A variant of a union tagged by `strategy`: the tag is always written, even when left to its default."""

    def model_post_init(self, context: Any, /) -> None:
        self.model_fields_set.add("strategy")


# --- contextInjection ---------------------------------------------------------------------------------


class _InjectionVariant(_TaggedVariant):
    """Every way of injecting the context names the file that carries it: `target`, inside the run dir."""

    # Each variant declares `target` itself, in the original's key order.
    @field_validator("target", check_fields=False)
    @classmethod
    def _target(cls, value: str) -> str:
        return _relative_safe(value, "contextInjection.target")


class ConventionFileInjection(_InjectionVariant):
    strategy: Literal["conventionFile"] = "conventionFile"
    target: str


class FlagInjection(_InjectionVariant):
    strategy: Literal["flag"] = "flag"
    flag: str
    target: str = DEFAULT_CONTEXT_TARGET

    @field_validator("flag")
    @classmethod
    def _flag(cls, value: str) -> str:
        return _non_empty(value, "contextInjection.flag")


class StdinInjection(_InjectionVariant):
    strategy: Literal["stdin"] = "stdin"
    target: str = DEFAULT_CONTEXT_TARGET


class EnvInjection(_InjectionVariant):
    strategy: Literal["env"] = "env"
    var: str
    target: str = DEFAULT_CONTEXT_TARGET

    @field_validator("var")
    @classmethod
    def _var(cls, value: str) -> str:
        return _env_var(value, "contextInjection.var")


ContextInjection = Annotated[
    ConventionFileInjection | FlagInjection | StdinInjection | EnvInjection,
    Field(discriminator="strategy"),
]


# --- mcp ----------------------------------------------------------------------------------------------


class _DeclarationFileMcp(_TaggedVariant):
    """The MCP declarations IdeA writes as a file: `target`, inside the run dir."""

    # Each variant declares `target` itself, after its `strategy`.
    @field_validator("target", check_fields=False)
    @classmethod
    def _target(cls, value: str) -> str:
        return _relative_safe(value, "mcp.config.target")


class ConfigFileMcp(_DeclarationFileMcp):
    strategy: Literal["configFile"] = "configFile"
    target: str


class TomlConfigHomeMcp(_DeclarationFileMcp):
    strategy: Literal["tomlConfigHome"] = "tomlConfigHome"
    target: str
    # The original serialised struct-variant fields without camel-casing: the key stays `home_env`.
    home_env: str = Field(alias="home_env")

    @field_validator("home_env")
    @classmethod
    def _home_env(cls, value: str) -> str:
        return _env_var(value, "mcp.config.home_env")


class FlagMcp(_TaggedVariant):
    strategy: Literal["flag"] = "flag"
    flag: str

    @field_validator("flag")
    @classmethod
    def _flag(cls, value: str) -> str:
        return _non_empty(value, "mcp.config.flag")


class EnvMcp(_TaggedVariant):
    strategy: Literal["env"] = "env"
    var: str

    @field_validator("var")
    @classmethod
    def _var(cls, value: str) -> str:
        return _env_var(value, "mcp.config.var")


McpConfig = Annotated[
    ConfigFileMcp | TomlConfigHomeMcp | FlagMcp | EnvMcp,
    Field(discriminator="strategy"),
]


class McpSpec(CamelDocument):
    config: McpConfig
    transport: McpTransport = "stdio"


# --- other profile parts ------------------------------------------------------------------------------


class SessionStrategy(CamelDocument):
    assign_flag: str | None = None
    resume_flag: str | None = None
    resume_args: tuple[str, ...] | None = None


class RateLimitPattern(CamelDocument):
    pattern: str  # a regular expression, compiled by the infrastructure only
    reset_capture: str | None = None
    time_format: str | None = None

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        if not value:
            raise ValueError("rateLimitPattern.pattern must not be empty")
        return value


class LivenessStrategy(CamelDocument):
    stall_after_ms: int | None = None
    turn_timeout_ms: int | None = None

    @field_validator("stall_after_ms", "turn_timeout_ms")
    @classmethod
    def _positive(cls, value: int | None, info: Any) -> int | None:
        if value is not None and value <= 0:
            key = "stallAfterMs" if info.field_name == "stall_after_ms" else "turnTimeoutMs"
            raise ValueError(f"liveness.{key} must be a positive number of milliseconds; omit it for no threshold")
        return value


# --- the profile --------------------------------------------------------------------------------------


class Profile(CamelDocument):
    # Declared in the original's struct order, so an original profile re-saves with its key order.
    id: str
    name: str
    command: str
    args: tuple[str, ...] = ()
    context_injection: ContextInjection
    detect: str | None = None
    cwd_template: str = DEFAULT_CWD_TEMPLATE
    session: SessionStrategy | None = None
    structured_adapter: StructuredAdapter | None = None
    mcp: McpSpec | None = None
    prompt_ready_pattern: str | None = None
    liveness: LivenessStrategy | None = None
    rate_limit_pattern: RateLimitPattern | None = None
    submit_sequence: str = DEFAULT_SUBMIT_SEQUENCE
    submit_delay_ms: int = DEFAULT_SUBMIT_DELAY_MS
    projector: ProjectorKey | None = None
    # IdeA extensions.
    env: dict[str, str] = Field(default_factory=dict)
    hooks: HookWiring | None = None
    newline_sequence: str = DEFAULT_NEWLINE_SEQUENCE
    blocking_prompts: tuple[str, ...] = ()
    cold_start_max_ms: int = DEFAULT_COLD_START_MAX_MS
    edited: tuple[str, ...] = ()  # JSON keys the user changed on a reference profile (never overlaid)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not is_uuid(value):
            raise ValueError(f"profile id {value!r} is not a UUID")
        return value

    @field_validator("name", "command")
    @classmethod
    def _required_text(cls, value: str, info: Any) -> str:
        return _non_empty(value, f"profile {info.field_name}")

    @field_validator("submit_sequence")
    @classmethod
    def _submit_sequence(cls, value: str) -> str:
        return value or DEFAULT_SUBMIT_SEQUENCE  # an empty sequence would never submit

    @field_validator("submit_delay_ms")
    @classmethod
    def _submit_delay(cls, value: int) -> int:
        if value < 0:
            raise ValueError("submitDelayMs must not be negative")
        return value

    @field_validator("cold_start_max_ms")
    @classmethod
    def _cold_start(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("coldStartMaxMs must be a positive number of milliseconds")
        return value

    @field_validator("env")
    @classmethod
    def _env(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            _env_var(name, "env key")
        return value

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")

    @property
    def is_reference(self) -> bool:
        return self.id in REFERENCE_PROFILE_IDS

    @property
    def provider_key(self) -> str | None:
        """Key of this CLI family in providers.json: "claude"/"codex" (a frozen contract) from the structured
        adapter; for another CLI with a session strategy (Gemini CLI), its command's name ("gemini"), so its
        session ids are kept too; None otherwise."""
        if self.structured_adapter is not None:
            return self.structured_adapter
        if self.session is None:
            return None
        return program_name(self.command).lower() or None

    def materializes_idea_bridge(self) -> bool:
        """True when IdeA writes an MCP declaration this CLI really reads, so `idea_*` tools reach it.

        The single source of truth for the delegation guard and for the run-dir writer.
        """
        if self.mcp is None:
            return False
        config = self.mcp.config
        if self.structured_adapter == "claude":
            return isinstance(config, ConfigFileMcp) and config.target == CLAUDE_MCP_DECLARATION
        if self.structured_adapter == "codex":
            return isinstance(config, TomlConfigHomeMcp)
        return False

    def reachable_by_delegation(self) -> bool:
        """Over the MCP bridge, or through the request-folder protocol when no MCP is declared."""
        return self.materializes_idea_bridge() or self.mcp is None

    def with_changes(self, changes: Mapping[str, Any]) -> Profile:
        """Apply changes given as JSON keys (camelCase); None removes a key (back to its default).

        On a reference profile the changed keys join `edited`, so shipped defaults stop overriding them.
        """
        data = self.to_json()
        for key, value in changes.items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        if self.is_reference:
            data["edited"] = _ordered_union(self.edited, (key for key in changes if key != "edited"))
        return Profile.from_json(data)


def _ordered_union(first: Iterable[str], second: Iterable[str]) -> list[str]:
    seen: dict[str, None] = dict.fromkeys(first)
    seen.update(dict.fromkeys(second))
    return list(seen)


_NEVER_OVERLAID = frozenset({"id", "edited"})


def _overlaid(stored: Profile, shipped: Profile) -> Profile:
    data = stored.to_json()
    shipped_data = shipped.to_json()
    edited = set(stored.edited)
    for name, field in Profile.model_fields.items():
        key = field.alias or name
        if key in _NEVER_OVERLAID or key in edited:
            continue
        if key in shipped_data:
            data[key] = shipped_data[key]
        else:
            data.pop(key, None)
    return Profile.from_json(data)


class ProfileBook(CamelDocument):
    """`<user-data>/profiles.json`."""

    version: int = 1
    profiles: tuple[Profile, ...] = ()

    def to_json(self) -> dict[str, Any]:
        extra = self.model_extra or {}
        return {"version": self.version, "profiles": [profile.to_json() for profile in self.profiles], **extra}

    def by_id(self, profile_id: str) -> Profile | None:
        return next((profile for profile in self.profiles if profile.id == profile_id), None)

    def with_profile(self, profile: Profile) -> ProfileBook:
        """Replace the profile with the same id, or append it."""
        if self.by_id(profile.id) is None:
            return self.model_copy(update={"profiles": (*self.profiles, profile)})
        return self.model_copy(
            update={"profiles": tuple(profile if p.id == profile.id else p for p in self.profiles)}
        )

    def without(self, profile_id: str) -> ProfileBook:
        if self.by_id(profile_id) is None:
            raise not_found(f"profile {profile_id} not found", profileId=profile_id)
        return self.model_copy(update={"profiles": tuple(p for p in self.profiles if p.id != profile_id)})

    def overlay_reference_defaults(self, shipped: Iterable[Profile]) -> ProfileBook:
        """Stored reference profiles take the shipped value of every field the user never edited.

        Custom profiles, and reference profiles the user never stored, are left as they are.
        """
        shipped_by_id = {profile.id: profile for profile in shipped}
        overlaid = tuple(
            _overlaid(profile, shipped_by_id[profile.id]) if profile.id in shipped_by_id else profile
            for profile in self.profiles
        )
        return self.model_copy(update={"profiles": overlaid})


# --- launch arguments ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoSession:
    """Fresh launch; the CLI picks its own session id (learned later from a hook or a rollout)."""


@dataclass(frozen=True)
class Assign:
    """Fresh launch with an engine session id chosen by IdeA."""

    session_id: str


@dataclass(frozen=True)
class Resume:
    """Resume the CLI's own session."""

    engine_session_id: str


SessionPlan = NoSession | Assign | Resume


def plan_session(profile: Profile, engine_session_id: str | None, assign_id: str | None = None) -> SessionPlan:
    """Resume with the engine id from providers.json, else assign `assign_id`, else start fresh.

    `engine_session_id` must be the CLI's own id for this conversation and provider (never the pair
    conversation id); a value that is not a UUID is ignored.
    """
    strategy = profile.session
    if strategy is None:
        return NoSession()
    can_resume = bool(strategy.resume_args) or bool(strategy.resume_flag)
    if can_resume and engine_session_id is not None and is_uuid(engine_session_id):
        return Resume(engine_session_id)
    if strategy.assign_flag and assign_id is not None:
        return Assign(assign_id)
    return NoSession()


def session_args(profile: Profile, plan: SessionPlan) -> list[str]:
    strategy = profile.session
    if strategy is None or isinstance(plan, NoSession):
        return []
    if isinstance(plan, Assign):
        return [strategy.assign_flag, plan.session_id] if strategy.assign_flag else []
    if strategy.resume_args:
        return [token.replace(SESSION_ID_PLACEHOLDER, plan.engine_session_id) for token in strategy.resume_args]
    if strategy.resume_flag:
        return [strategy.resume_flag, plan.engine_session_id]
    return []


def injection_args(profile: Profile, context_path: str) -> list[str]:
    """Arguments of the `flag` injection: the template split on whitespace, `{path}` substituted per token."""
    injection = profile.context_injection
    if not isinstance(injection, FlagInjection):
        return []
    return [token.replace(PATH_PLACEHOLDER, context_path) for token in injection.flag.split()]


def mcp_flag_args(profile: Profile, declaration_path: str) -> list[str]:
    """Arguments of the `flag` MCP strategy, built like `injection_args`."""
    if profile.mcp is None or not isinstance(profile.mcp.config, FlagMcp):
        return []
    return [token.replace(PATH_PLACEHOLDER, declaration_path) for token in profile.mcp.config.flag.split()]


def resolve_cwd(profile: Profile, run_dir: str, project_root: str) -> str:
    return profile.cwd_template.replace(RUN_DIR_PLACEHOLDER, run_dir).replace(PROJECT_ROOT_PLACEHOLDER, project_root)
