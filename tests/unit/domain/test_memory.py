"""Memory notes, the writing rules, the index and its reconciliation, links, and the harvest grammar
(spec 04 §11-§12; KN-8, KN-9, KN-10 parsing)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idea.domain.errors import AppError
from idea.domain.knowledge.front_matter import parse_block, render_block, split_front_matter
from idea.domain.knowledge.memory import (
    IndexEntry,
    MemoryIndex,
    MemoryType,
    is_valid_slug,
    link_report,
    parse_index,
    read_note,
    reconcile_index,
    wiki_links,
    write_note,
)
from idea.domain.knowledge.memory_harvest import parse_memory_blocks

# A note exactly as the original's write tool left it (002_f461842d34657061.txt L590-626, shortened), with
# the function-call markup that leaked at the end of other notes.
CLOSING = "</" + "invoke>"
ORIGINAL_NOTE = f"""---
name: backstop-fires-on-intra-task-turn-rootcause
description: memory note backstop-fires-on-intra-task-turn-rootcause
metadata:
  type: project
---
---
title: CAUSE RACINE — le backstop tire sur chaque tour interne (turn_duration ≠ retour-au-prompt)
type: project
description: Le turn-watcher fait tirer le backstop no-reply au PREMIER turn_duration.
---
# CAUSE RACINE (2026-06-23, prouvée live) — backstop tire sur les tours INTERNES

## Preuve
Cadrage délégué à Architect (tâche multi-étapes, lecture de code).
Lié à [[rendezvous-600s-cap-too-short-heavy-tasks]].

</content>
{CLOSING}
"""


def test_kn8_double_front_matter_and_trailing_markup_yield_one_block_a_clean_body_and_a_real_description() -> None:
    note = write_note("backstop-fires-on-intra-task-turn-rootcause", ORIGINAL_NOTE)

    text = note.render()
    assert text.count("---\n") == 2  # one block: its two fences
    assert text.startswith("---\nname: backstop-fires-on-intra-task-turn-rootcause\n")
    assert note.description == "Le turn-watcher fait tirer le backstop no-reply au PREMIER turn_duration."
    assert note.type is MemoryType.PROJECT
    assert not note.body.rstrip().endswith(">")  # the leaked markup is gone
    assert note.body.startswith("# CAUSE RACINE (2026-06-23")  # the body has its heading: none stacked on it
    assert dict(note.metadata) == {"title": "CAUSE RACINE — le backstop tire sur chaque tour interne (turn_duration ≠ retour-au-prompt)"}
    assert read_note(note.slug, text).note == note  # what is written reads back the same


def test_explicit_arguments_win_then_the_first_block_then_later_ones() -> None:
    content = "---\ndescription: first\ntype: reference\nowner: ana\n---\n---\ndescription: second\ntype: feedback\n---\nbody"
    assert write_note("n", content).description == "first"
    assert write_note("n", content).type is MemoryType.REFERENCE
    assert write_note("n", content).metadata == (("owner", "ana"),)  # an unknown key is kept under metadata
    chosen = write_note("n", content, description="given", note_type=MemoryType.FEEDBACK)
    assert (chosen.description, chosen.type) == ("given", MemoryType.FEEDBACK)
    assert "owner: ana" in chosen.render()


def test_a_placeholder_or_missing_description_is_derived_from_the_body_then_the_title_then_the_slug() -> None:
    assert write_note("a-note", "# Heading\n\n  First   real line.\nSecond").description == "First real line."
    assert write_note("a-note", "", description="memory note a-note", title="The title").description == "The title"
    assert write_note("a-note", "# Only a heading").description == "A note"
    assert len(write_note("a-note", "x" * 500).description) == 160


def test_a_title_becomes_the_first_heading_unless_the_body_has_one() -> None:
    assert write_note("s", "Body.", title="Building offline").body == "# Building offline\n\nBody."
    same = write_note("s", "# Building offline\n\nBody.", title="Building offline")
    assert same.body == "# Building offline\n\nBody." and same.metadata == ()
    other = write_note("s", "# Offline builds\n\nBody.", title="Building offline")
    assert other.body == "# Offline builds\n\nBody." and other.metadata == (("title", "Building offline"),)


@pytest.mark.parametrize("slug", ["", "-a", "A", "a_b", "é", "a" * 81, "a b"])
def test_invalid_slugs_are_refused(slug: str) -> None:
    assert not is_valid_slug(slug)
    with pytest.raises(AppError):
        write_note(slug, "x")


def test_valid_slugs() -> None:
    assert all(is_valid_slug(s) for s in ["a", "0-x", "git-owns-commit-merge-decisions", "a" * 80])


def test_a_hand_edited_note_is_read_as_far_as_valid_with_line_numbers() -> None:
    read = read_note("n", "---\ndescription: ok\nthis line is broken\ntype: nonsense\n---\nBody")
    assert read.note.description == "ok" and read.note.body == "Body" and read.note.type is MemoryType.PROJECT
    assert [p.line for p in read.problems] == [3, 1]
    assert "type" in read.problems[1].message
    unclosed = read_note("n", "---\ndescription: never closed\nBody")
    assert unclosed.note.body.startswith("---") and unclosed.problems


INDEX = """# Project memory

Notes kept by the team.

- [git-owns-commit-merge-decisions](git-owns-commit-merge-decisions.md) — Never ask the user whether to commit or merge.
- [gone](gone.md) — A note whose file was deleted.
<!-- a comment kept in place -->
- [stale](stale.md) — old description
"""


def test_kn9_reconciliation_adds_missing_files_removes_dangling_lines_and_refreshes_descriptions() -> None:
    index = parse_index(INDEX)
    files = {
        "git-owns-commit-merge-decisions": "Never ask the user whether to commit or merge.",
        "stale": "new description",
        "zeta": "Z",
        "alpha": "A",
    }

    result = reconcile_index(index, files)

    assert result.added == ("alpha", "zeta") and result.removed == ("gone",) and result.refreshed == ("stale",)
    assert result.index.render() == (
        "# Project memory\n\nNotes kept by the team.\n\n"
        "- [git-owns-commit-merge-decisions](git-owns-commit-merge-decisions.md) — Never ask the user whether to commit or merge.\n"
        "<!-- a comment kept in place -->\n"
        "- [stale](stale.md) — new description\n"
        "- [alpha](alpha.md) — A\n"
        "- [zeta](zeta.md) — Z\n"
    )
    assert not reconcile_index(result.index, files).changed


def test_index_lines_in_other_shapes_are_understood_and_rewritten_canonically() -> None:
    index = parse_index("- [a](a.md): colon\n* [b](b.md) - dash\n- [c](c.md)\n- [c](c.md) — repeated\n")
    assert index.entries == (IndexEntry("a", "colon"), IndexEntry("b", "dash"), IndexEntry("c", ""))
    assert index.with_entry(IndexEntry("b", "new")).render() == "- [a](a.md) — colon\n- [b](b.md) — new\n- [c](c.md)\n"
    assert MemoryIndex().with_entry(IndexEntry("x", "X")).render() == "# Project memory\n\n- [x](x.md) — X\n"


def test_wiki_links_backlinks_and_broken_links() -> None:
    bodies = {"a": "see [[b]] and [[ghost|a ghost]] and [[b]]", "b": "back to [[a]]", "c": "also [[a]]"}
    assert wiki_links(bodies["a"]) == ("b", "ghost")
    report = link_report("a", bodies)
    assert report.broken == ("ghost",) and report.backlinks == ("b", "c")


@given(st.dictionaries(st.from_regex(r"[a-z][a-zA-Z]{0,8}", fullmatch=True), st.text(max_size=40), max_size=6))
def test_front_matter_scalars_round_trip(values: dict[str, str]) -> None:
    document = split_front_matter(render_block(values) + "body")
    assert document.blocks[0].values == values
    assert document.body == "body" and document.problems == ()


def test_front_matter_nested_maps_lists_and_quotes() -> None:
    values, problems = parse_block(["a: 'it''s'", 'b: "x: y"', "meta:", "  type: project", "  tags:", "    - one", "    - two"])
    assert values == {"a": "it's", "b": "x: y", "meta": {"type": "project", "tags": ["one", "two"]}}
    assert problems == []


HARVESTED_REPLY = """Done. The build works offline now.

```idea-memory
slug: appimage-offline-runtime
title: Building the AppImage without network
description: Attach the project's own AppImage runtime when building offline.
type: reference
---
Pass `--runtime-file` with the runtime kept in `packaging/appimage/runtime/`.

```bash
appimagetool --runtime-file runtime AppDir
```
```

````idea-memory
slug: Bad Slug
title: x
---
body
````
"""


def test_kn10_harvest_grammar_one_valid_one_invalid() -> None:
    parsed = parse_memory_blocks(HARVESTED_REPLY.replace("```bash\nappimagetool --runtime-file runtime AppDir\n```\n", ""))
    assert parsed.found == 2
    assert [d.slug for d in parsed.directives] == ["appimage-offline-runtime"]
    assert parsed.directives[0].type is MemoryType.REFERENCE
    assert parsed.directives[0].body == "Pass `--runtime-file` with the runtime kept in `packaging/appimage/runtime/`."
    assert len(parsed.errors) == 1 and "slug" in parsed.errors[0]


def test_a_longer_fence_lets_a_body_hold_code_blocks() -> None:
    reply = "````idea-memory\nslug: with-code\ntitle: T\n---\nRun:\n```sh\nmake\n```\n````\n"
    parsed = parse_memory_blocks(reply)
    assert parsed.directives[0].body == "Run:\n```sh\nmake\n```"


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        ("slug: a\ntitle: T\nbody without separator", "'---'"),
        ("title: T\n---\nbody", "`slug` is required"),
        ("slug: a\n---\nbody", "`title` is required"),
        ("slug: a\ntitle: T\ntype: opinion\n---\nbody", "`type`"),
        ("slug: a\ntitle: T\n---\n   ", "body is empty"),
        ("slug: a\ntitle: " + "t" * 121 + "\n---\nbody", "more than 120"),
        ("slug: a\ntitle: T\ndescription: " + "d" * 201 + "\n---\nbody", "more than 200"),
        ("slug: a\ntitle: T\n---\n" + "b" * 16_001, "more than 16000"),
        ("slug: a\ntitle: T\nowner: me\n---\nbody", "unexpected header"),
    ],
)
def test_invalid_blocks_are_reported_with_a_reason(block: str, reason: str) -> None:
    parsed = parse_memory_blocks(f"```idea-memory\n{block}\n```")
    assert parsed.directives == () and reason in parsed.errors[0]


def test_at_most_five_blocks_per_reply_and_an_unclosed_block_is_reported() -> None:
    many = "".join(f"```idea-memory\nslug: n{i}\ntitle: T\n---\nbody {i}\n```\n" for i in range(7))
    parsed = parse_memory_blocks(many)
    assert parsed.found == 7 and len(parsed.directives) == 5 and len(parsed.errors) == 2
    assert "never closed" in parse_memory_blocks("```idea-memory\nslug: a\ntitle: T\n---\nbody").errors[0]
    assert parse_memory_blocks("```python\nslug: a\n```").found == 0


@given(st.text(max_size=400))
def test_harvest_parsing_never_raises(text: str) -> None:
    parsed = parse_memory_blocks("```idea-memory\n" + text)
    assert parsed.found == len(parsed.directives) + len(parsed.errors)
