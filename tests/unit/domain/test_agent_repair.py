"""Rows of agents.json that share an agentId: repaired, nothing lost (spec 02 §1, issue 16)."""

from __future__ import annotations

from itertools import count

from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.agent_repair import PersonaCopy, repair_duplicate_ids

CLAUDE = "664cc20c-47b8-53ad-9351-dce3c09c0de4"
SAME = "a6ced819-b893-4213-b003-9e9dc79b9641"


def entry(name: str, md_path: str, agent_id: str = SAME) -> AgentEntry:
    return AgentEntry(agent_id=agent_id, name=name, md_path=md_path, profile_id=CLAUDE)


def fresh_ids():  # noqa: ANN201
    numbers = count(1)
    return lambda: f"00000000-0000-4000-8000-{next(numbers):012d}"


def test_a_manifest_without_shared_ids_is_left_as_it_is() -> None:
    manifest = AgentManifest(agents=(entry("Main", "agents/main.md"), entry("Git", "agents/git.md", "other")))
    repair = repair_duplicate_ids(manifest, fresh_ids())
    assert not repair.changed and repair.manifest is manifest


def test_a_second_agent_with_the_id_of_the_first_gets_an_id_of_its_own() -> None:
    manifest = AgentManifest(agents=(entry("Main", "agents/main.md"), entry("Reviewer", "agents/reviewer.md")),
                             orchestrator=SAME)

    repair = repair_duplicate_ids(manifest, fresh_ids())

    main, reviewer = repair.manifest.agents
    assert main == manifest.agents[0]  # the first keeps the id, its pins and the designation
    assert reviewer.agent_id == "00000000-0000-4000-8000-000000000001"
    assert (reviewer.name, reviewer.md_path) == ("Reviewer", "agents/reviewer.md")
    assert repair.manifest.orchestrator == SAME and repair.copies == ()
    assert repair.changes == (
        f"'Reviewer' had the id {SAME} of 'Main'; it was given the id 00000000-0000-4000-8000-000000000001.",
    )


def test_a_copied_row_with_another_name_gets_its_own_persona_copy_and_a_clashing_name_a_free_one() -> None:
    manifest = AgentManifest(agents=(
        entry("Main", "agents/main.md"),
        entry("main", "agents/main.md").model_copy(update={"synchronized": True}),
    ))

    repair = repair_duplicate_ids(manifest, fresh_ids())

    first, second = repair.manifest.agents
    assert (second.name, second.md_path) == ("main 2", "agents/main-2.md")
    assert repair.copies == (PersonaCopy("agents/main.md", "agents/main-2.md"),)
    assert "its own copy of the persona as agents/main-2.md" in repair.changes[0]


def test_a_row_listed_twice_is_listed_once() -> None:
    row = entry("Main", "agents/main.md")
    repair = repair_duplicate_ids(AgentManifest(agents=(row, row)), fresh_ids())
    assert repair.manifest.agents == (row,) and "listed twice" in repair.changes[0]
