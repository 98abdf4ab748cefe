"""Spec 02 §11, acceptance AG-10: the convention file's order, omissions, surface partition and bounds."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from idea.application.agents.convention_file import (
    ComposeInputs,
    LiveStateRow,
    MemoryPointer,
    OrchestrationTexts,
    SkillBrief,
    compose_convention_file,
)

PROMPTS = Path(__file__).resolve().parents[3] / "idea" / "resources" / "prompts"
SELF = "a6ced819-b893-4213-b003-9e9dc79b9641"
OTHER = "dce19c75-9669-4e45-b8de-9950025157da"
TICKET = "3f2a9c1e-5d7b-4c1a-9e0f-2b6d8a4c7e11"

SHORT_TEXTS = OrchestrationTexts(
    mcp="# IdeA orchestration\n\nYou are **{agentName}**; use `idea_*` tools.\n\n"
    "## Your permissions\n{permissionSummary}\n",
    file="# IdeA orchestration\n\nYou are **{agentName}**; write requests in {requestsDir}.\n\n"
    "## Your permissions\n{permissionSummary}\n",
)
SHIPPED_TEXTS = OrchestrationTexts(
    mcp=(PROMPTS / "orchestration_mcp.md").read_text(encoding="utf-8"),
    file=(PROMPTS / "orchestration_file.md").read_text(encoding="utf-8"),
)


def full_inputs(texts: OrchestrationTexts = SHORT_TEXTS, *, uses_mcp: bool = True) -> ComposeInputs:
    return ComposeInputs(
        project_root="/home/ada/IdeA",
        agent_id=SELF,
        agent_name="Main",
        uses_mcp=uses_mcp,
        orchestration=texts,
        requests_dir="/home/ada/IdeA/.ideai/requests/" + SELF,
        permission_summary="You may edit files in the project; ask before network access.",
        skills=(SkillBrief("release", "Cut a release:\n tag, notes, build.", "1. Tag.\n2. Build.\n"),),
        project_context="IdeA is a desktop IDE.\n",
        persona="# Main\n\nYou orchestrate.\n",
        memory=(MemoryPointer("appimage-offline", "Attach a vendored runtime."),),
        live_state=(
            LiveStateRow(SELF, "Main", "busy", "planning", None),
            LiveStateRow(OTHER, "Architect", "busy", "reviewing   the\nAPI", TICKET),
        ),
        handoff="**Objective:** Ship 1.0\n\n- **Prompt:** Plan the release\n",
    )


EXPECTED_MCP = """\
# Project root

/home/ada/IdeA

Work on this project by absolute path; your current directory is your private IdeA run directory.

# IdeA orchestration

You are **Main**; use `idea_*` tools.

## Your permissions
You may edit files in the project; ask before network access.

# Available skills

- **release** — Cut a release: tag, notes, build.

Load a skill with `idea_skill_read(name=…)` before applying it.

# Project context

IdeA is a desktop IDE.

# Role

# Main

You orchestrate.

# Project memory

Durable notes shared by the team. Read a note with `idea_memory_read(slug=…)`.

- [appimage-offline](appimage-offline.md) — Attach a vendored runtime.

To save durable knowledge for the team (a decision, a pitfall, a how-to), end your reply with a block:
```idea-memory
slug: short-kebab-case-id
title: One-line title
description: One-line summary shown in the index
type: project | reference | feedback
---
The note in Markdown.
```
Only explicit blocks are saved. Do not save transient status.

# Project state

- **Architect** — busy: reviewing the API (ticket 3f2a9c1e)

# Conversation resume

**Objective:** Ship 1.0

- **Prompt:** Plan the release
"""


def test_every_section_in_order_byte_for_byte() -> None:
    assert compose_convention_file(full_inputs()) == EXPECTED_MCP


def test_empty_sections_are_omitted() -> None:
    bare = ComposeInputs(
        project_root="/p", agent_id=SELF, agent_name="Solo", uses_mcp=True, orchestration=SHORT_TEXTS
    )

    assert compose_convention_file(bare) == (
        "# Project root\n\n/p\n\n"
        "Work on this project by absolute path; your current directory is your private IdeA run directory.\n\n"
        "# IdeA orchestration\n\nYou are **Solo**; use `idea_*` tools.\n\n## Your permissions\n"
        "IdeA sets no permission policy; your CLI asks the user as usual.\n"
    )


def test_blank_content_and_only_the_agent_itself_in_live_state_count_as_empty() -> None:
    inputs = replace(
        full_inputs(),
        skills=(),
        project_context="  \n\n",
        persona="\n",
        memory=(),
        live_state=(LiveStateRow(SELF, "Main", "busy"),),
        handoff="   ",
    )

    text = compose_convention_file(inputs)

    headings = [line for line in text.splitlines() if line.startswith("# ") and line != "# Main"]
    assert headings == ["# Project root", "# IdeA orchestration"]


def test_section_order_with_the_shipped_texts() -> None:
    text = compose_convention_file(full_inputs(SHIPPED_TEXTS))

    positions = [
        text.index(f"\n{heading}\n") if i else text.index(heading)
        for i, heading in enumerate(
            [
                "# Project root",
                "# IdeA orchestration",
                "# Available skills",
                "# Project context",
                "# Role",
                "# Project memory",
                "# Project state",
                "# Conversation resume",
            ]
        )
    ]
    assert positions == sorted(positions)
    assert text.count("# IdeA orchestration") == 1


# --- the MCP / file-protocol partition ----------------------------------------------------------------


def test_file_protocol_text_names_no_idea_tool_at_all() -> None:
    many_notes = tuple(MemoryPointer(f"note-{i}", "d") for i in range(70))
    inputs = replace(full_inputs(SHIPPED_TEXTS, uses_mcp=False), memory=many_notes, permission_summary=None)

    text = compose_convention_file(inputs)

    assert "idea_" not in text
    assert f"/home/ada/IdeA/.ideai/requests/{SELF}/in/<id>.json.tmp" in text
    assert "agent.reply" in text
    assert "## release\n\nCut a release: tag, notes, build.\n\n1. Tag.\n2. Build." in text  # full skill body
    assert "… 10 more notes: read .ideai/memory/MEMORY.md for the full index" in text
    assert "{" + "agentName}" not in text and "{permissionSummary}" not in text and "{projectRoot}" not in text


def test_mcp_text_uses_the_tools_and_never_the_request_folder() -> None:
    text = compose_convention_file(full_inputs(SHIPPED_TEXTS, uses_mcp=True))

    assert "`idea_reply(result=<your complete answer>, ticket=<id>)`" in text
    assert "`idea_skill_read(name=…)`" in text
    assert "requests/" not in text
    assert "1. Tag." not in text  # skill bodies are loaded on demand
    assert "You are **Main**, one agent of a team managed by IdeA." in text


def test_the_shipped_file_variant_contains_no_idea_tool_name() -> None:
    assert "idea_" not in SHIPPED_TEXTS.file
    assert "idea_reply" in SHIPPED_TEXTS.mcp


# --- bounds -------------------------------------------------------------------------------------------


def test_memory_is_bounded_to_60_entries_with_an_overflow_line() -> None:
    notes = tuple(MemoryPointer(f"n{i:02d}", "x" * 200) for i in range(61))

    text = compose_convention_file(replace(full_inputs(), memory=notes))

    lines = [line for line in text.splitlines() if line.startswith("- [n")]
    assert len(lines) == 60
    assert lines[-1] == "- [n59](n59.md) — " + "x" * 160
    assert "… 1 more notes: call idea_memory_read() for the full index" in text
    assert "- [n60]" not in text


def test_memory_without_overflow_has_no_overflow_line() -> None:
    assert "more notes" not in compose_convention_file(full_inputs())


def test_live_state_is_bounded_to_16_rows_of_other_agents_in_manifest_order() -> None:
    rows = (LiveStateRow(SELF, "Main", "busy"),) + tuple(
        LiveStateRow(f"00000000-0000-4000-8000-{i:012d}", f"Agent{i:02d}", "idle") for i in range(20)
    )

    text = compose_convention_file(replace(full_inputs(), live_state=rows))

    state = text.split("# Project state\n\n")[1].split("\n\n")[0].splitlines()
    assert state == [f"- **Agent{i:02d}** — idle" for i in range(16)]


def test_skill_descriptions_are_flattened_and_bounded() -> None:
    skill = SkillBrief("long", "word " * 100)

    text = compose_convention_file(replace(full_inputs(), skills=(skill,)))

    line = next(line for line in text.splitlines() if line.startswith("- **long**"))
    assert line == "- **long** — " + ("word " * 32).rstrip()  # cut at 160 characters, no trailing space


def test_handoff_is_rebounded_to_4096_characters_keeping_the_objective_and_recent_bullets() -> None:
    bullets = [f"- **Prompt:** turn {i:03d} " + "y" * 60 for i in range(100)]
    body = "**Objective:** Ship 1.0\n\n" + "\n".join(bullets)

    text = compose_convention_file(replace(full_inputs(), handoff=body))

    resume = text.split("# Conversation resume\n\n")[1].rstrip("\n")
    assert len(resume) <= 4096
    assert resume.startswith("**Objective:** Ship 1.0\n\n- **Prompt:** turn ")
    assert resume.endswith(bullets[-1])
    kept = resume.split("\n\n", 1)[1].splitlines()
    assert kept == bullets[-len(kept) :]
    assert len("\n".join(["**Objective:** Ship 1.0", "", *bullets[-len(kept) - 1 :]])) > 4096


@pytest.mark.parametrize("summary", [None, "", "   "])
def test_no_permission_policy_is_stated_plainly(summary: str | None) -> None:
    text = compose_convention_file(replace(full_inputs(), permission_summary=summary))

    assert "## Your permissions\nIdeA sets no permission policy; your CLI asks the user as usual." in text


def test_an_agent_in_its_own_worktree_is_told_where_it_works_and_where_ideai_stays() -> None:
    inputs = replace(
        full_inputs(SHIPPED_TEXTS, uses_mcp=False),
        project_root="/home/ada/IdeA.worktrees/main",
        main_root="/home/ada/IdeA",
        worktree_branch="idea/main",
    )
    text = compose_convention_file(inputs)
    assert text.startswith(
        "# Project root\n\n/home/ada/IdeA.worktrees/main\n\nThis is your own git worktree, on branch `idea/main`"
    )
    assert "IdeA's shared files (`.ideai/`) stay in the main project, /home/ada/IdeA." in text
    # The shared context file is in the main project, not in the worktree.
    assert "`.ideai/CONTEXT.md` in the project root (`/home/ada/IdeA`)" in text
    assert "/home/ada/IdeA.worktrees/main/.ideai" not in text
