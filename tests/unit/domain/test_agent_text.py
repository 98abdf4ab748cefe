"""The one rule for texts agents write (issue 16: NUL stored in live-state.json from idea_workstate_set)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from idea.domain.agent_text import clean_agent_text, follows_the_rule


def test_line_breaks_and_tabs_are_kept_and_carriage_returns_become_line_feeds() -> None:
    assert clean_agent_text("a\tb\nc\r\nd\re") == "a\tb\nc\nd\ne"


def test_other_controls_are_removed() -> None:
    assert clean_agent_text("a\u0000b\x1b[31mc\x07d\x7fe\x85f\x9bg") == "ab[31mcdefg"


def test_half_a_surrogate_pair_becomes_the_replacement_character() -> None:
    assert clean_agent_text("x\ud800y\udfffz") == "x\ufffdy\ufffdz"


def test_ordinary_text_passes_untouched() -> None:
    text = "Review §17 — naïve café, 日本語, emoji 🎉, math ∑ (U+00A0:\u00a0)"
    assert clean_agent_text(text) == text and follows_the_rule(text)


@given(st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)))
def test_the_result_follows_the_rule_and_can_be_stored_as_utf8(text: str) -> None:
    cleaned = clean_agent_text(text)

    assert follows_the_rule(cleaned)
    cleaned.encode("utf-8")  # no lone surrogate left
    assert all(ch in "\n\t" or not (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0) for ch in cleaned)
