"""Messages count things in words: one noun singular, any other count plural, irregular plurals given."""

from __future__ import annotations

import pytest

from idea.domain.wording import capitalized, counted


@pytest.mark.parametrize(
    ("count", "noun", "plural", "expected"),
    [
        (1, "file", None, "1 file"),
        (0, "file", None, "0 files"),
        (3, "changed file", None, "3 changed files"),
        (2, "entry", "entries", "2 entries"),
        (1, "entry", "entries", "1 entry"),
        (12480, "line", None, "12,480 lines"),
    ],
)
def test_a_count_takes_its_noun_in_the_right_number(count: int, noun: str, plural: str | None, expected: str) -> None:
    assert counted(count, noun, plural) == expected


def test_capitalized_raises_the_first_letter_only() -> None:
    assert capitalized("its data folder /x cannot be written") == "Its data folder /x cannot be written"
    assert capitalized("run idea_reply with TICKET") == "Run idea_reply with TICKET"
    assert capitalized("") == ""
