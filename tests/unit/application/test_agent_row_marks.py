"""What an agent's row in the Agents panel says when the agent needs the person."""

from __future__ import annotations

import pytest

from idea.application.agents.agent_activity import ActivityBook
from idea.domain.agent_states.attention import AttentionReason
from idea.domain.agent_states.events import AgentNeedsAttention
from tests.unit.application.test_net_toasts import NOW, row


@pytest.mark.parametrize(
    ("reason", "phrase", "mark"),
    [
        (AttentionReason.TRUST, "asks whether you trust its folder", "needs you: asks whether you trust its folder"),
        (AttentionReason.PERMISSION, "waits for your permission", "needs you: waits for your permission"),
        (AttentionReason.SIGN_IN, "needs you to sign in", "needs you to sign in"),
        (AttentionReason.NOT_STARTED, "needs you before it can start", "needs you before it can start"),
    ],
)
def test_the_mark_says_needs_you_once(reason: AttentionReason, phrase: str, mark: str) -> None:
    book = ActivityBook()
    book.apply(AgentNeedsAttention("scout", reason, "", True), NOW)
    shown = row(book, "scout")
    assert (shown.attention_phrase, shown.attention_text) == (phrase, mark)
    ended = row(book, "scout", live=False)
    assert (ended.attention_phrase, ended.attention_text) == ("", "")  # an ended agent needs nobody
