"""Why an agent needs the person, from a hook or from its screen, and what its requester is told."""

from __future__ import annotations

import json

import pytest

from idea.infrastructure.resources import resources_dir
from idea.domain.agent_states.attention import (
    Attention,
    AttentionOrigin,
    AttentionReason,
    attention_title,
    reason_of_notification,
    reason_of_screen_prompt,
    requester_note,
    visible_blocking_prompt,
)

REFERENCE = resources_dir() / "profiles" / "reference-profiles.json"


def test_claude_notification_reason() -> None:
    assert reason_of_notification("Claude needs your permission to use Bash") is AttentionReason.PERMISSION
    assert reason_of_notification("Claude is waiting for your input") is AttentionReason.INPUT
    assert reason_of_notification(None) is AttentionReason.INPUT
    # Claude Code 2.1's notification_type, when the payload has one
    assert reason_of_notification("Claude is waiting", "permission_prompt") is AttentionReason.PERMISSION
    assert reason_of_notification("Tool WriteFile requires editing", "ToolPermission") is AttentionReason.PERMISSION
    assert reason_of_notification("needs permission to idle", "idle_prompt") is AttentionReason.INPUT
    assert reason_of_notification("server asks", "elicitation_dialog") is AttentionReason.QUESTION
    for over in ("auth_success", "elicitation_complete", "elicitation_response"):
        assert reason_of_notification("done", over) is None
    assert reason_of_notification("Claude needs your permission", "a_new_type") is AttentionReason.PERMISSION


@pytest.mark.parametrize(
    ("literal", "reason"),
    [
        ("Do you trust the files in this folder?", AttentionReason.TRUST),
        ("Yes, I trust this folder", AttentionReason.TRUST),
        ("Quick safety check", AttentionReason.TRUST),
        ("Trust this folder?", AttentionReason.TRUST),
        ("Sign in with ChatGPT", AttentionReason.SIGN_IN),
        ("Select login method", AttentionReason.SIGN_IN),
        ("Detected a custom API key", AttentionReason.SIGN_IN),
        ("How would you like to authenticate", AttentionReason.SIGN_IN),
        ("Allow execution", AttentionReason.PERMISSION),
        ("Would you like to run the following command?", AttentionReason.PERMISSION),
        ("Would you like to grant these permissions?", AttentionReason.PERMISSION),
        ("Approve app tool call?", AttentionReason.PERMISSION),
        ('to run tool "', AttentionReason.PERMISSION),  # Codex: Allow the <server> MCP server to run tool "<tool>"?
        ("Apply this change?", AttentionReason.PERMISSION),
        ("Do you want to proceed?", AttentionReason.PERMISSION),
        ("(Y)es/(N)o", AttentionReason.QUESTION),
        ("Usage limit reached for", AttentionReason.QUESTION),  # Gemini CLI's quota dialog: its choices
        ("Choose the text style", AttentionReason.QUESTION),
        ("Make auto mode your default", AttentionReason.QUESTION),  # Claude Code 2.1.332: its permission mode
    ],
)
def test_screen_prompt_reason(literal: str, reason: AttentionReason) -> None:
    assert reason_of_screen_prompt(literal) is reason


def test_every_reference_blocking_prompt_has_a_reason_and_a_title() -> None:
    for profile in json.loads(REFERENCE.read_text(encoding="utf-8")):
        for literal in profile.get("blockingPrompts", []):
            title = attention_title("Architect", reason_of_screen_prompt(literal))
            assert title.startswith("Architect ")


def test_visible_blocking_prompt() -> None:
    screen = "╭──╮\n│ Do you trust the files in this folder? │\n│ 1. Yes │"
    literals = ("Sign in", "Do you trust the files in this folder?")
    assert visible_blocking_prompt(screen, literals) == "Do you trust the files in this folder?"
    assert visible_blocking_prompt("fake> ", literals) is None
    assert visible_blocking_prompt("anything", ("",)) is None


def test_requester_note_says_why_and_where() -> None:
    attention = Attention(AttentionReason.TRUST, "Do you trust the files in this folder?", AttentionOrigin.SCREEN, 0)
    background = requester_note("Architect", attention, visible=False, delivered=False)
    assert "Architect" in background and "trust" in background and "background" in background
    assert "retry once they have answered" in background
    visible = requester_note("Architect", attention, visible=True, delivered=True)
    assert "in its cell" in visible and "delivered to you later" in visible


def test_dialogs_hold_deliveries_but_idea_own_notices_do_not() -> None:
    assert AttentionReason.TRUST.blocks_delivery and AttentionReason.PERMISSION.blocks_delivery
    assert not AttentionReason.DELIVERY_STUCK.blocks_delivery
