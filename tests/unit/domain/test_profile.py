"""Spec 02 §4-§6, acceptance AG-3, AG-4, AG-5: profiles load, validate, re-save and plan launches."""

from __future__ import annotations

import uuid

import pytest
from pydantic import ValidationError

from idea.domain.profile import Profile, reference_profile_id
from idea.domain.profile_book import ProfileBook
from idea.domain.profile_launch import (
    Assign,
    NoSession,
    Resume,
    injection_args,
    mcp_flag_args,
    plan_session,
    resolve_cwd,
    session_args,
)
from idea.domain.profile_parts import ConventionFileInjection, TomlConfigHomeMcp
from idea.domain.providers import ProviderSessions

CLAUDE_ID = "664cc20c-47b8-53ad-9351-dce3c09c0de4"
CODEX_ID = "d2603c4e-1ee5-51a3-8b61-99a9f03eec50"
ENGINE_ID = "4b8e0c1a-7a32-4d2c-9a37-1c3e6f0b9d21"
PAIR_CONVERSATION = "7a2f446c-2efa-0c56-08dd-07cdc5cac19b"

# A profile exactly as the original IdeA wrote it, before the newer fields existed.
LEGACY_PROFILE = {
    "id": "00000000-0000-0000-0000-000000000000",
    "name": "Dev",
    "command": "claude",
    "args": [],
    "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
    "detect": None,
    "cwdTemplate": "{agentRunDir}",
}


def claude_profile(**overrides: object) -> Profile:
    data: dict[str, object] = {
        "id": CLAUDE_ID,
        "name": "Claude Code",
        "command": "claude",
        "args": [],
        "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
        "session": {"assignFlag": "--session-id", "resumeFlag": "--resume"},
        "structuredAdapter": "claude",
        "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}, "transport": "stdio"},
    }
    data.update(overrides)
    return Profile.from_json(data)


def codex_profile(**overrides: object) -> Profile:
    data: dict[str, object] = {
        "id": CODEX_ID,
        "name": "Codex",
        "command": "codex",
        "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
        "session": {"resumeArgs": ["resume", "{sessionId}"]},
        "structuredAdapter": "codex",
        "mcp": {"config": {"strategy": "tomlConfigHome", "target": ".codex/config.toml", "home_env": "CODEX_HOME"}},
    }
    data.update(overrides)
    return Profile.from_json(data)


# --- AG-3 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("claude", "664cc20c-47b8-53ad-9351-dce3c09c0de4"),
        ("codex", "d2603c4e-1ee5-51a3-8b61-99a9f03eec50"),
        ("gemini", "2ba0c437-dec7-513b-be25-e419008f78d4"),
        ("aider", "b9ae09dc-3111-517a-9744-794411cfaf57"),
    ],
)
def test_reference_profile_ids_are_uuid5_of_the_fixed_namespace(slug: str, expected: str) -> None:
    assert reference_profile_id(slug) == expected
    assert uuid.UUID(expected).version == 5


# --- AG-4: loading, defaults, re-saving ---------------------------------------------------------------


def test_legacy_profile_loads_with_newer_fields_unset_and_resaves_unchanged() -> None:
    profile = Profile.from_json(LEGACY_PROFILE)

    assert profile.liveness is None
    assert profile.rate_limit_pattern is None
    assert profile.projector is None
    assert profile.hooks is None
    assert profile.mcp is None
    assert profile.session is None
    assert profile.to_json() == LEGACY_PROFILE
    assert list(profile.to_json()) == list(LEGACY_PROFILE)


def test_absent_fields_read_as_their_defaults_without_being_written() -> None:
    profile = Profile.from_json(LEGACY_PROFILE)

    assert profile.submit_sequence == "\r"
    assert profile.submit_delay_ms == 350
    assert profile.newline_sequence == "\x1b\r"
    assert profile.cold_start_max_ms == 60_000
    assert profile.blocking_prompts == ()
    assert profile.env == {}
    assert "submitSequence" not in profile.to_json()
    assert "coldStartMaxMs" not in profile.to_json()


def test_unknown_keys_are_kept_on_rewrite_at_every_level() -> None:
    data = {
        **LEGACY_PROFILE,
        "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md", "encoding": "utf-8"},
        "futureField": {"nested": [1, 2]},
    }

    assert Profile.from_json(data).to_json() == data


def test_full_original_profile_resaves_with_the_same_keys_in_the_same_order() -> None:
    original = {
        "id": CLAUDE_ID,
        "name": "Claude Code",
        "command": "claude",
        "args": ["--verbose"],
        "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
        "detect": "claude --version",
        "cwdTemplate": "{agentRunDir}",
        "session": {"assignFlag": "--session-id", "resumeFlag": "--resume"},
        "structuredAdapter": "claude",
        "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}, "transport": "stdio"},
        "promptReadyPattern": "? for shortcuts",
        "liveness": {"stallAfterMs": 30000, "turnTimeoutMs": 600000},
        "rateLimitPattern": {"pattern": "limit reached", "resetCapture": "reset"},
        "submitSequence": "\r",
        "submitDelayMs": 60,
        "projector": "claude",
    }

    saved = Profile.from_json(original).to_json()

    assert saved == original
    assert list(saved) == list(original)


def test_empty_submit_sequence_is_normalised_to_carriage_return() -> None:
    profile = Profile.from_json({**LEGACY_PROFILE, "submitSequence": ""})

    assert profile.submit_sequence == "\r"
    assert profile.to_json()["submitSequence"] == "\r"


@pytest.mark.parametrize("key", ["stallAfterMs", "turnTimeoutMs"])
@pytest.mark.parametrize("value", [0, -5])
def test_liveness_thresholds_must_be_positive(key: str, value: int) -> None:
    with pytest.raises(ValidationError, match=f"liveness.{key} must be a positive number"):
        Profile.from_json({**LEGACY_PROFILE, "liveness": {key: value}})


def test_liveness_with_one_threshold_omits_the_other() -> None:
    profile = Profile.from_json({**LEGACY_PROFILE, "liveness": {"turnTimeoutMs": 900000}})

    assert profile.liveness is not None
    assert profile.liveness.stall_after_ms is None
    assert profile.to_json()["liveness"] == {"turnTimeoutMs": 900000}


def test_rate_limit_pattern_must_not_be_empty() -> None:
    with pytest.raises(ValidationError, match="rateLimitPattern.pattern must not be empty"):
        Profile.from_json({**LEGACY_PROFILE, "rateLimitPattern": {"pattern": ""}})


def test_toml_config_home_keeps_the_snake_case_home_env_key() -> None:
    profile = codex_profile()

    assert profile.to_json()["mcp"] == {
        "config": {"strategy": "tomlConfigHome", "target": ".codex/config.toml", "home_env": "CODEX_HOME"}
    }
    assert profile.mcp is not None
    assert isinstance(profile.mcp.config, TomlConfigHomeMcp)
    assert profile.mcp.config.home_env == "CODEX_HOME"


def test_a_variant_built_in_code_still_writes_its_tag() -> None:
    injection = ConventionFileInjection(target="AGENTS.md")

    assert injection.to_json() == {"strategy": "conventionFile", "target": "AGENTS.md"}
    assert TomlConfigHomeMcp(target="c/config.toml", home_env="CODEX_HOME").model_dump(
        by_alias=True, exclude_unset=True
    ) == {"strategy": "tomlConfigHome", "target": "c/config.toml", "home_env": "CODEX_HOME"}


@pytest.mark.parametrize("target", ["/etc/passwd", "../CLAUDE.md", "docs/../../x.md", "C:\\x.md", "\\\\server\\x", ""])
def test_targets_must_be_relative_and_stay_inside(target: str) -> None:
    with pytest.raises(ValidationError, match="contextInjection.target"):
        Profile.from_json({**LEGACY_PROFILE, "contextInjection": {"strategy": "conventionFile", "target": target}})


def test_nested_relative_targets_are_accepted() -> None:
    profile = Profile.from_json(
        {**LEGACY_PROFILE, "contextInjection": {"strategy": "conventionFile", "target": ".gemini/GEMINI.md"}}
    )

    assert profile.context_injection.target == ".gemini/GEMINI.md"


@pytest.mark.parametrize("name", ["1CODEX", "CODEX-HOME", "HÖME", "", "A B"])
def test_environment_variable_names_are_checked(name: str) -> None:
    mcp = {"config": {"strategy": "tomlConfigHome", "target": ".codex/config.toml", "home_env": name}}
    with pytest.raises(ValidationError, match="InvalidEnvVar"):
        Profile.from_json({**LEGACY_PROFILE, "mcp": mcp})


def test_valid_environment_variable_names_pass_everywhere() -> None:
    profile = Profile.from_json(
        {
            **LEGACY_PROFILE,
            "contextInjection": {"strategy": "env", "var": "_IDEA_CONTEXT2"},
            "mcp": {"config": {"strategy": "env", "var": "IDEA_MCP_SERVER"}},
            "env": {"MY_VAR": "{agentRunDir}/x"},
        }
    )

    assert profile.context_injection.target == "IDEA_CONTEXT.md"


def test_profile_env_keys_are_checked() -> None:
    with pytest.raises(ValidationError, match="env key 'BAD-NAME'"):
        Profile.from_json({**LEGACY_PROFILE, "env": {"BAD-NAME": "x"}})


def test_profile_id_must_be_a_uuid() -> None:
    with pytest.raises(ValidationError, match="is not a UUID"):
        Profile.from_json({**LEGACY_PROFILE, "id": "claude"})


def test_unknown_strategy_is_rejected() -> None:
    with pytest.raises(ValidationError):
        Profile.from_json({**LEGACY_PROFILE, "contextInjection": {"strategy": "clipboard"}})


# --- AG-5: the bridge predicate -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("adapter", "mcp", "materializes", "reachable"),
    [
        ("claude", {"config": {"strategy": "configFile", "target": ".mcp.json"}}, True, True),
        ("codex", {"config": {"strategy": "tomlConfigHome", "target": "c.toml", "home_env": "CODEX_HOME"}}, True, True),
        ("codex", None, False, True),
        ("codex", {"config": {"strategy": "configFile", "target": ".mcp.json"}}, False, False),
        ("claude", {"config": {"strategy": "configFile", "target": "mcp.json"}}, False, False),
        ("claude", {"config": {"strategy": "tomlConfigHome", "target": "c.toml", "home_env": "X"}}, False, False),
        (None, {"config": {"strategy": "configFile", "target": ".mcp.json"}}, False, False),
        (None, {"config": {"strategy": "configFile", "target": ".gemini/settings.json"}}, True, True),
        ("claude", {"config": {"strategy": "configFile", "target": ".gemini/settings.json"}}, False, False),
        (None, {"config": {"strategy": "tomlConfigHome", "target": ".gemini/x.toml", "home_env": "X"}}, False, False),
        (None, None, False, True),
    ],
)
def test_materializes_idea_bridge_matrix(
    adapter: str | None, mcp: dict[str, object] | None, materializes: bool, reachable: bool
) -> None:
    data: dict[str, object] = dict(LEGACY_PROFILE)
    if adapter is not None:
        data["structuredAdapter"] = adapter
    if mcp is not None:
        data["mcp"] = mcp
    profile = Profile.from_json(data)

    assert profile.materializes_idea_bridge() is materializes
    assert profile.reachable_by_delegation() is reachable


def test_provider_key_follows_the_structured_adapter() -> None:
    assert claude_profile().provider_key == "claude"
    assert codex_profile().provider_key == "codex"
    assert Profile.from_json(LEGACY_PROFILE).provider_key is None


# --- overlay of reference defaults and user edits -----------------------------------------------------


def test_overlay_takes_shipped_values_for_fields_the_user_never_edited() -> None:
    shipped = claude_profile(submitDelayMs=350, blockingPrompts=["Yes, I trust this folder"])
    stored = claude_profile(
        command="/opt/claude/bin/claude",
        submitDelayMs=60,
        promptReadyPattern="old pattern",
        edited=["command"],
        userNote="kept",
    )

    book = ProfileBook(profiles=(stored,)).overlay_reference_defaults([shipped])
    result = book.profiles[0]

    assert result.command == "/opt/claude/bin/claude"
    assert result.submit_delay_ms == 350
    assert result.blocking_prompts == ("Yes, I trust this folder",)
    assert result.prompt_ready_pattern is None  # not shipped any more: the stale value goes
    assert "promptReadyPattern" not in result.to_json()
    assert result.to_json()["userNote"] == "kept"
    assert result.edited == ("command",)


def test_overlay_leaves_custom_profiles_and_unstored_references_alone() -> None:
    custom = Profile.from_json({**LEGACY_PROFILE, "id": "0f3c2a9e-6b1d-4c1e-9d0a-2f6f1f7b8c11", "submitDelayMs": 10})
    book = ProfileBook(profiles=(custom,))

    result = book.overlay_reference_defaults([claude_profile(), codex_profile()])

    assert result.profiles == (custom,)


def test_user_changes_on_a_reference_profile_are_recorded_as_edited() -> None:
    changed = claude_profile().with_changes({"command": "/usr/local/bin/claude", "submitDelayMs": 500})

    assert changed.command == "/usr/local/bin/claude"
    assert changed.edited == ("command", "submitDelayMs")
    cleared = changed.with_changes({"promptReadyPattern": None})
    assert cleared.edited == ("command", "submitDelayMs", "promptReadyPattern")


def test_changes_on_a_custom_profile_record_nothing_and_none_removes_a_key() -> None:
    custom = Profile.from_json({**LEGACY_PROFILE, "promptReadyPattern": "> "})

    changed = custom.with_changes({"promptReadyPattern": None, "name": "Renamed"})

    assert changed.edited == ()
    assert changed.prompt_ready_pattern is None
    assert changed.to_json() == {**LEGACY_PROFILE, "name": "Renamed"}


def test_book_replaces_appends_and_removes_profiles() -> None:
    claude, codex = claude_profile(), codex_profile()
    book = ProfileBook().with_profile(claude).with_profile(codex)

    renamed = book.with_profile(claude.with_changes({"name": "Claude (work)"}))

    assert [p.name for p in renamed.profiles] == ["Claude (work)", "Codex"]
    assert renamed.without(CLAUDE_ID).profiles == (codex,)
    assert book.to_json() == {"version": 1, "profiles": [claude.to_json(), codex.to_json()]}


# --- session plans and launch arguments ---------------------------------------------------------------


def test_resume_uses_the_engine_id_from_the_store_never_the_pair_id() -> None:
    sessions = ProviderSessions().with_entry(PAIR_CONVERSATION, "claude", ENGINE_ID, 1)
    profile = claude_profile()

    plan = plan_session(profile, sessions.engine_session_for(PAIR_CONVERSATION, profile.provider_key or ""), "new-id")

    assert plan == Resume(ENGINE_ID)
    assert session_args(profile, plan) == ["--resume", ENGINE_ID]


def test_a_mismatched_provider_key_finds_nothing_and_assigns_a_fresh_id() -> None:
    sessions = ProviderSessions().with_entry(PAIR_CONVERSATION, "codex", ENGINE_ID, 1)
    assigned = "9d1f3c2e-1111-4e4e-9a9a-0123456789ab"

    plan = plan_session(claude_profile(), sessions.engine_session_for(PAIR_CONVERSATION, "claude"), assigned)

    assert plan == Assign(assigned)
    assert session_args(claude_profile(), plan) == ["--session-id", assigned]


def test_a_non_uuid_engine_id_is_never_resumed() -> None:
    assert plan_session(claude_profile(), "latest", None) == NoSession()
    assert plan_session(claude_profile(), "not-a-uuid", "9d1f3c2e-1111-4e4e-9a9a-0123456789ab") == Assign(
        "9d1f3c2e-1111-4e4e-9a9a-0123456789ab"
    )


def test_codex_resumes_through_its_subcommand_and_cannot_assign() -> None:
    profile = codex_profile()

    assert session_args(profile, plan_session(profile, ENGINE_ID)) == ["resume", ENGINE_ID]
    assert plan_session(profile, None, "9d1f3c2e-1111-4e4e-9a9a-0123456789ab") == NoSession()


def test_resume_args_take_precedence_over_resume_flag() -> None:
    profile = claude_profile(session={"resumeFlag": "--resume", "resumeArgs": ["--continue-session={sessionId}"]})

    assert session_args(profile, Resume(ENGINE_ID)) == [f"--continue-session={ENGINE_ID}"]


def test_profiles_without_session_strategy_start_fresh() -> None:
    profile = Profile.from_json(LEGACY_PROFILE)

    assert plan_session(profile, ENGINE_ID, "x") == NoSession()
    assert session_args(profile, Resume(ENGINE_ID)) == []


def test_flag_injection_substitutes_the_path_in_each_token() -> None:
    flag = {"strategy": "flag", "flag": "--read {path}  --note=from:{path}", "target": "CONVENTIONS.md"}
    profile = Profile.from_json({**LEGACY_PROFILE, "contextInjection": flag})

    assert injection_args(profile, "/p q/C.md") == ["--read", "/p q/C.md", "--note=from:/p q/C.md"]
    assert injection_args(claude_profile(), "/x/CLAUDE.md") == []


def test_mcp_flag_strategy_builds_its_arguments() -> None:
    mcp = {"config": {"strategy": "flag", "flag": "--mcp-config {path}"}}
    profile = Profile.from_json({**LEGACY_PROFILE, "mcp": mcp})

    assert mcp_flag_args(profile, "/r/idea-mcp.json") == ["--mcp-config", "/r/idea-mcp.json"]
    assert mcp_flag_args(claude_profile(), "/r/idea-mcp.json") == []


def test_resolve_cwd_fills_both_placeholders() -> None:
    profile = Profile.from_json({**LEGACY_PROFILE, "cwdTemplate": "{projectRoot}/sub"})

    assert resolve_cwd(profile, "/p/.ideai/run/a", "/p") == "/p/sub"
    assert resolve_cwd(claude_profile(), "/p/.ideai/run/a", "/p") == "/p/.ideai/run/a"


def test_provider_key_of_a_cli_without_structured_adapter_but_with_sessions() -> None:
    from idea.domain.profile import Profile as _Profile

    base = {
        "id": "2ba0c437-dec7-513b-be25-e419008f78d4",
        "name": "Gemini CLI",
        "command": "/opt/bin/Gemini.EXE",
        "contextInjection": {"strategy": "conventionFile", "target": "GEMINI.md"},
    }
    assert _Profile.from_json(base).provider_key is None  # nothing to resume: nothing to record
    with_sessions = _Profile.from_json({**base, "session": {"assignFlag": "--session-id", "resumeFlag": "--resume"}})
    assert with_sessions.provider_key == "gemini"
    assert _Profile.from_json({**base, "structuredAdapter": "codex", "session": {}}).provider_key == "codex"
