"""Trimming a JSON document to what can be read: each broken entry is its innermost list item or its top-level
key; the version and the document as a whole are never trimmed."""

from __future__ import annotations

from idea.domain.documents import without_entries

DOCUMENT = {
    "version": 1,
    "colorScheme": "light",
    "terminalFont": 5,
    "windows": [{"id": "w1", "tabs": ["a", "b"]}, {"id": 3}, {"id": "w3", "tabs": [1, "c", 2]}],
}


def test_a_broken_setting_goes_alone() -> None:
    assert without_entries(DOCUMENT, [("terminalFont",)]) == {k: v for k, v in DOCUMENT.items() if k != "terminalFont"}


def test_broken_list_items_go_at_their_innermost_list_and_no_cut_moves_another() -> None:
    trimmed = without_entries(DOCUMENT, [("windows", 1, "id"), ("windows", 2, "tabs", 0), ("windows", 2, "tabs", 2)])
    assert trimmed is not None and trimmed["windows"] == [{"id": "w1", "tabs": ["a", "b"]}, {"id": "w3", "tabs": ["c"]}]
    assert DOCUMENT["windows"][2] == {"id": "w3", "tabs": [1, "c", 2]}  # a copy: the data read stays as read


def test_two_items_of_one_list_go_from_the_end() -> None:
    trimmed = without_entries({"projects": ["a", "b", "c", "d"]}, [("projects", 1), ("projects", 3, "name")])
    assert trimmed == {"projects": ["a", "c"]}


def test_what_cannot_be_trimmed_gives_none() -> None:
    assert without_entries(DOCUMENT, [("version",)]) is None  # another version is not read as this one
    assert without_entries(DOCUMENT, [()]) is None  # the document as a whole
    assert without_entries(DOCUMENT, [("name",)]) is None  # a required key the file does not have
    assert without_entries([1, 2], [("windows", 0)]) is None
