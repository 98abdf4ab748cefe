"""Editing a profile's profiles.json dictionary through the form's fields: what the fields show, what they
give back, what passes through untouched, and one sentence for text that cannot be read."""

from __future__ import annotations

from dataclasses import replace

import pytest

from idea.application.agents.profile_editing import (
    ProfileFields,
    copy_of,
    escape_sequence,
    fields_of,
    json_of,
    parse_json_text,
    profile_to_save,
    unescape_sequence,
)
from idea.application.agents.limit_patterns import LimitPatternCheck
from idea.domain.profile import Profile
from tests.fakes_agents import ScriptedLimitPatterns

ACCEPTING = LimitPatternCheck(ScriptedLimitPatterns())  # every limit pattern is usable
STORED = {
    "id": "0b9d3c3e-0000-4000-8000-00000000abcd",
    "name": "Echo CLI",
    "command": "echo-cli",
    "args": ["--fast", "two words"],
    "contextInjection": {"strategy": "flag", "flag": "--read {path}"},
    "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}, "transport": "stdio"},
    "promptReadyPattern": "ready>",
    "futureKey": {"kept": True},
}


def test_the_fields_show_the_dictionary_and_give_it_back_unchanged() -> None:
    shown = fields_of(STORED)
    assert shown.args == "--fast 'two words'"
    assert (shown.injection, shown.injection_flag, shown.mcp, shown.mcp_target) == (
        "flag", "--read {path}", "configFile", ".mcp.json"
    )
    assert shown.submit_sequence == "\\r"  # the default, written as the person types it
    assert json_of(STORED, shown) == STORED


def test_edits_change_only_their_keys_and_defaults_stay_implicit() -> None:
    edited = replace(fields_of(STORED), name="Echo 2", env="MODE=test\n\nLEVEL=a=b", blocking_prompts="Allow?\n \n")
    data = json_of(STORED, edited)
    assert data["name"] == "Echo 2" and data["env"] == {"MODE": "test", "LEVEL": "a=b"}
    assert data["blockingPrompts"] == ["Allow?"]
    assert "submitSequence" not in data and "cwdTemplate" not in data  # never spelled out: still absent
    assert data["futureKey"] == {"kept": True} and data["mcp"]["transport"] == "stdio"  # not on the form
    assert list(data)[:2] == ["id", "name"]


@pytest.mark.parametrize(
    ("edit", "sentence"),
    [
        ({"args": "'unclosed"}, "Arguments: No closing quotation (quote arguments like in a shell)"),
        ({"env": "MODE"}, "Environment line 1 needs the form KEY=VALUE"),
        ({"submit_sequence": "\\q"}, "Submit sequence: unknown escape \\q"),
    ],
)
def test_text_that_cannot_be_read_says_which_field(edit: dict[str, str], sentence: str) -> None:
    with pytest.raises(ValueError) as raised:
        json_of(STORED, replace(ProfileFields(), **edit))
    assert str(raised.value).startswith(sentence)


def test_control_sequences_are_written_with_escapes_and_read_back() -> None:
    assert escape_sequence("\x1b[13;2u\r\t") == "\\x1b[13;2u\\r\\t"
    assert unescape_sequence("\\e\\x1b\\u00e9\\\\") == "\x1b\x1bé\\"


def test_the_json_tab_keeps_the_id_and_reads_as_a_profile() -> None:
    with pytest.raises(ValueError, match="cannot be changed"):
        parse_json_text('{"id": "other"}', STORED["id"])
    with pytest.raises(ValueError, match="JSON line 1, column 2"):
        parse_json_text("{", STORED["id"])
    with pytest.raises(ValueError, match="contextInjection"):
        profile_to_save({**STORED, "contextInjection": {}}, None, None, ACCEPTING)


def test_a_stored_profile_records_which_keys_changed_and_a_copy_gets_its_own_id() -> None:
    stored = Profile.from_json(STORED)
    original = {**STORED}
    saved = profile_to_save({**STORED, "name": "Renamed"}, stored, original, ACCEPTING)
    assert saved.name == "Renamed" and saved.id == stored.id
    copied = copy_of(stored, "0b9d3c3e-0000-4000-8000-00000000ffff")
    assert (copied["id"], copied["name"]) == ("0b9d3c3e-0000-4000-8000-00000000ffff", "Echo CLI copy")
