"""The parts of an AI CLI profile (spec 02 §4-§6): how its context is injected, how IdeA's MCP bridge is
declared to it, how its sessions are assigned and resumed, what its usage-limit message looks like and when
it counts as stalled, with the validation each value needs (no `re` in the domain)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from idea.domain.documents import CamelDocument

DEFAULT_CONTEXT_TARGET = "IDEA_CONTEXT.md"

McpTransport = Literal["stdio", "socket"]


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


def is_validenv_var_name(name: str) -> bool:
    """`[A-Za-z_][A-Za-z0-9_]*`, ASCII only."""
    if not name or not name.isascii():
        return False
    if not (name[0].isalpha() or name[0] == "_"):
        return False
    return all(ch.isalnum() or ch == "_" for ch in name)


def env_var_name(value: str, what: str) -> str:
    if not is_validenv_var_name(value):
        raise ValueError(
            f"{what} {value!r} is not a valid environment variable name: use letters, digits and '_', "
            "not starting with a digit (InvalidEnvVar)"
        )
    return value


def non_empty(value: str, what: str) -> str:
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
        return non_empty(value, "contextInjection.flag")


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
        return env_var_name(value, "contextInjection.var")


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
        return env_var_name(value, "mcp.config.home_env")


class FlagMcp(_TaggedVariant):
    strategy: Literal["flag"] = "flag"
    flag: str

    @field_validator("flag")
    @classmethod
    def _flag(cls, value: str) -> str:
        return non_empty(value, "mcp.config.flag")


class EnvMcp(_TaggedVariant):
    strategy: Literal["env"] = "env"
    var: str

    @field_validator("var")
    @classmethod
    def _var(cls, value: str) -> str:
        return env_var_name(value, "mcp.config.var")


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
