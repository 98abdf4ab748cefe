"""AI CLI profiles (spec 02 §4-§6): how one CLI is launched, fed its context, and wired to IdeA's bridge.
Its parts are in `profile_parts`, the stored book in `profile_book`, what a launch derives from it in
`profile_launch`.

Profiles are data. A profile written by the original IdeA must load and re-save with the same keys, so
serialisation writes back exactly the keys that were given (`exclude_unset`), unknown keys included; the
defaults of absent fields are only seen by code reading the model.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import Field, field_validator

from idea.domain.documents import CamelDocument
from idea.domain.ids import is_uuid
from idea.domain.path_names import program_name
from idea.domain.profile_parts import (
    ConfigFileMcp,
    ContextInjection,
    LivenessStrategy,
    McpSpec,
    RateLimitPattern,
    SessionStrategy,
    TomlConfigHomeMcp,
    env_var_name,
    non_empty,
)

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
DEFAULT_SUBMIT_SEQUENCE = "\r"
DEFAULT_SUBMIT_DELAY_MS = 350
DEFAULT_NEWLINE_SEQUENCE = "\x1b\r"
DEFAULT_COLD_START_MAX_MS = 60_000
CLAUDE_MCP_DECLARATION = ".mcp.json"
GEMINI_MCP_DECLARATION = ".gemini/settings.json"  # Gemini CLI's workspace settings, read in its cwd

RUN_DIR_PLACEHOLDER = "{agentRunDir}"
PROJECT_ROOT_PLACEHOLDER = "{projectRoot}"
PATH_PLACEHOLDER = "{path}"
SESSION_ID_PLACEHOLDER = "{sessionId}"

StructuredAdapter = Literal["claude", "codex"]
ProjectorKey = Literal["claude", "codex"]
HookWiring = Literal["claude", "codexNotify", "gemini"]


def reference_profile_id(slug: str) -> str:
    """The stable id of a reference profile: UUIDv5 of the fixed namespace and the slug."""
    return str(uuid.uuid5(REFERENCE_PROFILE_NAMESPACE, slug))


REFERENCE_PROFILE_IDS: frozenset[str] = frozenset(reference_profile_id(slug) for slug in REFERENCE_PROFILE_SLUGS)


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
        return non_empty(value, f"profile {info.field_name}")

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
            env_var_name(name, "env key")
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
        if self.structured_adapter is None:  # Gemini CLI reads its servers there, in a folder it trusts
            return isinstance(config, ConfigFileMcp) and config.target == GEMINI_MCP_DECLARATION
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
