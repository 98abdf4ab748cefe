"""Memory, harvest, skills, the shared context and the six tool handlers on real files (spec 04 §11-§14,
03 §5.7-§5.12; KN-8, KN-9, KN-10, KN-11)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from idea.application.knowledge.file_guard import FileGuard
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.commands import (
    CreateSkill,
    ProposeContext,
    ReadContext,
    ReadMemory,
    ReadSkill,
    WriteMemory,
)
from idea.domain.knowledge.conversation_log import TurnRole
from idea.domain.knowledge.events import MemoryDeleted, MemorySaved, ProjectContextChanged, ProposalFiled, SkillsChanged
from idea.domain.knowledge.memory import MemoryType
from idea.domain.knowledge.skill import body_hash
from idea.domain.orchestration.commands import AgentCaller, Human
from tests.knowledge_support import ARCHITECT, MAIN, QA, KnowledgeWorld

CLOSING = "</" + "invoke>"


@pytest.fixture
def world(tmp_path: Path) -> KnowledgeWorld:
    return KnowledgeWorld(tmp_path / "project", tmp_path / "user-data")


def agent(agent_id: str) -> AgentCaller:
    return AgentCaller(agent_id)


# ---------------------------------------------------------------------------------------------- memory


async def test_kn8_the_write_tool_leaves_one_front_matter_block_a_clean_body_and_an_index_line(
    world: KnowledgeWorld,
) -> None:
    content = f"---\nname: x\ndescription: memory note git-owns-merges\n---\n---\ntitle: Git owns merges\ntype: feedback\n---\nNever ask the user whether to merge.\n\n{CLOSING}\n"
    outcome = await world.tools.handle(agent(QA), WriteMemory("git-owns-merges", content))

    assert outcome.text == "saved memory note git-owns-merges"
    note = (world.memory_dir / "git-owns-merges.md").read_text()
    assert note == (
        "---\nname: git-owns-merges\ndescription: Never ask the user whether to merge.\nmetadata:\n  type: feedback\n---\n"
        "# Git owns merges\n\nNever ask the user whether to merge.\n"
    )
    assert (world.memory_dir / "MEMORY.md").read_text() == (
        "# Project memory\n\n- [git-owns-merges](git-owns-merges.md) — Never ask the user whether to merge.\n"
    )
    assert world.events.of_type(MemorySaved) == [MemorySaved("git-owns-merges")]
    read = await world.tools.handle(agent(MAIN), ReadMemory("git-owns-merges"))
    assert read.text == note
    index = await world.tools.handle(agent(MAIN), ReadMemory())
    assert "[git-owns-merges](git-owns-merges.md)" in index.text


async def test_writing_again_replaces_the_note_and_its_index_line_in_place(world: KnowledgeWorld) -> None:
    memory = world.knowledge.memory
    await memory.write("first", "One.")
    await memory.write("second", "Two.")
    await memory.write("first", "Changed.", description="Now changed", note_type=MemoryType.REFERENCE)

    assert (world.memory_dir / "MEMORY.md").read_text().splitlines()[2:] == [
        "- [first](first.md) — Now changed",
        "- [second](second.md) — Two.",
    ]
    listing = await memory.listing()
    assert [(n.slug, n.type) for n in listing.notes] == [("first", MemoryType.REFERENCE), ("second", MemoryType.PROJECT)]


async def test_kn9_reconciliation_at_open_adds_files_and_removes_dangling_lines(world: KnowledgeWorld) -> None:
    world.memory_dir.mkdir(parents=True)
    (world.memory_dir / "MEMORY.md").write_text(
        "# Project memory\n\nKept preamble.\n\n- [gone](gone.md) — deleted by hand\n- [kept](kept.md) — old\n"
    )
    (world.memory_dir / "kept.md").write_text("---\nname: kept\ndescription: fresh\nmetadata:\n  type: project\n---\nBody\n")
    (world.memory_dir / "added.md").write_text("A note written by hand, without front matter.\n")
    (world.memory_dir / "Not A Slug.md").write_text("ignored\n")
    (world.memory_dir / "broken.md").write_bytes(b"\xff\xfe not utf-8")

    await world.knowledge.open()

    assert (world.memory_dir / "MEMORY.md").read_text() == (
        "# Project memory\n\nKept preamble.\n\n- [kept](kept.md) — fresh\n"
        "- [added](added.md) — A note written by hand, without front matter.\n"
    )
    assert (world.memory_dir / "Not A Slug.md").read_text() == "ignored\n"  # left alone
    assert any(p.name.startswith("broken.md.corrupt-") for p in world.memory_dir.iterdir())  # set aside
    beacons = "\n".join(world.diagnostics.lines)
    assert "not a memory note name" in beacons and "broken.md is unreadable" in beacons
    assert "index reconciled added=added removed=gone" in beacons


async def test_unknown_notes_and_bad_slugs_are_tool_errors(world: KnowledgeWorld) -> None:
    with pytest.raises(AppError) as missing:
        await world.tools.handle(agent(QA), ReadMemory("absent"))
    assert missing.value.code is ErrorCode.NOT_FOUND
    with pytest.raises(AppError) as bad:
        await world.tools.handle(agent(QA), ReadMemory("../etc/passwd"))
    assert bad.value.code is ErrorCode.INVALID_ARGUMENTS and "`slug`" in bad.value.message


async def test_the_person_deletes_a_note_and_its_line(world: KnowledgeWorld) -> None:
    await world.knowledge.memory.write("doomed", "Body.")
    await world.knowledge.memory.delete("doomed")

    assert not (world.memory_dir / "doomed.md").exists()
    assert "doomed" not in (world.memory_dir / "MEMORY.md").read_text()
    assert world.events.of_type(MemoryDeleted) == [MemoryDeleted("doomed")]
    with pytest.raises(AppError):
        await world.knowledge.memory.delete("doomed")


async def test_pointers_for_injection_follow_the_index(world: KnowledgeWorld) -> None:
    await world.knowledge.memory.write("b-note", "Second.")
    await world.knowledge.memory.write("a-note", "First.")
    assert [(p.slug, p.description) for p in await world.knowledge.memory.pointers()] == [
        ("b-note", "Second."),
        ("a-note", "First."),
    ]


REPLY = """Here is the result.

```idea-memory
slug: appimage-offline-runtime
title: Building the AppImage without network
description: Attach the project's own AppImage runtime when building offline.
type: reference
---
Pass `--runtime-file`.
```

```idea-memory
slug: no-title
---
A block without a title.
```
"""


async def test_kn10_harvest_saves_the_valid_block_reports_the_invalid_one_and_ignores_prompts(
    world: KnowledgeWorld,
) -> None:
    outcome = await world.knowledge.harvest(TurnRole.RESPONSE, REPLY)

    assert outcome.found == 2 and outcome.saved == ("appimage-offline-runtime",) and outcome.skipped == 1
    assert "`title` is required" in outcome.errors[0]
    note = (world.memory_dir / "appimage-offline-runtime.md").read_text()
    assert "# Building the AppImage without network\n\nPass `--runtime-file`." in note
    assert "type: reference" in note
    assert any(line.startswith("[memory-harvest] found=2 saved=appimage-offline-runtime") for line in world.diagnostics.lines)
    assert (await world.knowledge.harvest(TurnRole.PROMPT, REPLY)).found == 0


async def test_kn10_a_failing_store_never_makes_the_harvest_raise(
    world: KnowledgeWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(note: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(world.stores.memory, "write_note", broken)
    outcome = await world.knowledge.harvest(TurnRole.RESPONSE, REPLY)

    assert outcome.saved == () and outcome.skipped == 2 and any("No space left" in e for e in outcome.errors)


# ---------------------------------------------------------------------------------------------- skills


async def test_skills_are_created_in_both_scopes_and_read_by_name_project_first(world: KnowledgeWorld) -> None:
    tools = world.tools
    created = await tools.handle(agent(QA), CreateSkill("Deploy", "# Deploy globally\nsteps", scope="global"))
    await tools.handle(agent(QA), CreateSkill("lint", "# Lint\nrun ruff", description="Run the linters"))
    await tools.handle(agent(QA), CreateSkill("deploy", "# Deploy this project\nsteps"))

    assert json.loads(created.text) == {"skillId": created.data["skillId"], "name": "Deploy", "scope": "global"}
    assert (await tools.handle(agent(MAIN), ReadSkill("DEPLOY"))).text == "# Deploy this project\nsteps"
    assert (await tools.handle(agent(MAIN), ReadSkill("lint"))).text == "# Lint\nrun ruff"
    index = json.loads((world.root / ".ideai" / "skills" / "index.json").read_text())
    assert [s["name"] for s in index["skills"]] == ["lint", "deploy"]
    assert index["skills"][1]["description"] is None  # written as an explicit null, as the original does
    assert (world.data_dir / "skills" / "md" / f"{created.data['skillId']}.md").read_text() == "# Deploy globally\nsteps"
    with pytest.raises(AppError) as taken:
        await tools.handle(agent(QA), CreateSkill("LINT", "again"))
    assert taken.value.code is ErrorCode.INVALID
    with pytest.raises(AppError) as missing:
        await tools.handle(agent(QA), ReadSkill("nothing"))
    assert missing.value.code is ErrorCode.NOT_FOUND
    assert world.events.of_type(SkillsChanged) == [SkillsChanged("global"), SkillsChanged("project"), SkillsChanged("project")]


async def test_kn11_a_hand_edited_index_with_two_skills_of_one_name_is_ambiguous(world: KnowledgeWorld) -> None:
    skills = world.root / ".ideai" / "skills"
    (skills / "md").mkdir(parents=True)
    entries = []
    for number, name in ((1, "deploy"), (2, "Deploy")):
        skill_id = f"00000000-0000-4000-8000-{number:012d}"
        (skills / "md" / f"{skill_id}.md").write_text(f"body {number}")
        entries.append({"id": skill_id, "name": name, "description": None, "contentHash": "77cb33b978b242f6"})
    (skills / "index.json").write_text(json.dumps({"version": 1, "skills": entries}))
    await world.knowledge.skills.create("deploy", "global body", scope="global")

    with pytest.raises(AppError) as ambiguous:
        await world.tools.handle(agent(QA), ReadSkill("deploy"))
    assert ambiguous.value.message == "skill name `deploy` is ambiguous in project scope"
    hashes = [s["contentHash"] for s in json.loads((skills / "index.json").read_text())["skills"]]
    assert hashes == [body_hash("body 1"), body_hash("body 2")]  # corrected silently


async def test_a_broken_skill_index_is_set_aside_and_reported(world: KnowledgeWorld) -> None:
    skills = world.root / ".ideai" / "skills"
    skills.mkdir(parents=True)
    (skills / "index.json").write_text("{ not json")

    catalogue = await world.knowledge.skills.catalogue()

    assert catalogue.skills == () and "index.json is unreadable" in catalogue.problems[0]
    assert any(p.name.startswith("index.json.corrupt-") for p in skills.iterdir())


async def test_skills_are_assigned_listed_for_injection_and_unassigned_when_deleted(world: KnowledgeWorld) -> None:
    skills = world.knowledge.skills
    lint = await skills.create("lint", "# Lint the code\nruff check")
    build = await skills.create("build", "body", description="Build everything", scope="global")
    await skills.assign(QA, "project", lint.record.id)
    await skills.assign(QA, "global", build.record.id)

    injected = await world.knowledge.injection(QA, None)
    assert [(s.name, s.effective_description) for s in injected.skills] == [
        ("lint", "Lint the code"),
        ("build", "Build everything"),
    ]
    await skills.delete("project", lint.record.id)
    assert [ref.skill_id for ref in world.team.manifest().by_id(QA).skills] == [build.record.id]
    await skills.update("global", build.record.id, name="build-all", description=None, body="# Build all\nmake")
    assert [(s.name, s.effective_description) for s in (await skills.assigned_to(QA)).skills] == [("build-all", "Build all")]


async def test_a_dangling_assignment_is_ignored_with_a_warning(world: KnowledgeWorld) -> None:
    lint = await world.knowledge.skills.create("lint", "body")
    await world.knowledge.skills.assign(QA, "project", lint.record.id)
    (world.root / ".ideai" / "skills" / "index.json").write_text('{"version": 1, "skills": []}')

    assert (await world.knowledge.skills.assigned_to(QA)).skills == ()
    assert any("does not exist" in line for line in world.diagnostics.lines)


# ---------------------------------------------------------------------------------------------- context


async def test_the_orchestrator_writes_the_context_and_others_file_proposals(world: KnowledgeWorld) -> None:
    tools = world.tools
    written = await tools.handle(agent(MAIN), ProposeContext("# Context\n\nUse Python 3.11.\n"))
    proposed = await tools.handle(agent(QA), ProposeContext("# Context\n\nUse Python 3.12.\n"))

    assert written.text == "wrote project context"
    assert (world.root / ".ideai" / "CONTEXT.md").read_text() == "# Context\n\nUse Python 3.11.\n"
    name = f"{world.clock.now}-qa.md"
    assert proposed.text == f"filed proposal for project context at .ideai/proposals/{name}; it is not applied until validated"
    assert (await tools.handle(agent(QA), ReadContext())).text == "# Context\n\nUse Python 3.11.\n"
    [review] = await world.knowledge.context.reviews()
    assert review.proposal.author == "QA" and not review.stale
    assert [(line.kind.value, line.text) for line in review.diff if line.kind.value != "same"] == [
        ("removed", "Use Python 3.11."),
        ("added", "Use Python 3.12."),
    ]
    assert world.events.of_type(ProposalFiled) == [ProposalFiled(name, "QA")]


async def test_accepting_replaces_the_context_and_rejecting_deletes_the_proposal(world: KnowledgeWorld) -> None:
    context = world.knowledge.context
    await context.write("v1\n")
    first = await context.propose(QA, "from QA\n")
    world.clock.advance(5)
    second = await context.propose(ARCHITECT, "from Architect\n")
    await context.write("v2\n")  # the person edits in between: both proposals are now stale

    assert [r.stale for r in await context.reviews()] == [True, True]
    await context.accept(first.file_name)
    await context.reject(second.file_name)

    assert (world.root / ".ideai" / "CONTEXT.md").read_text() == "from QA\n"
    assert await context.reviews() == ()
    assert len(world.events.of_type(ProjectContextChanged)) == 3
    with pytest.raises(AppError):
        await context.reject(second.file_name)


async def test_a_target_reads_and_replaces_a_persona_with_the_update_context_rules(world: KnowledgeWorld) -> None:
    tools = world.tools
    assert (await tools.handle(agent(QA), ReadContext("architect"))).text == "# Architect\n"
    own = await tools.handle(agent(QA), ProposeContext("# QA, renewed\n", target="qa"))
    by_orchestrator = await tools.handle(agent(MAIN), ProposeContext("# Architect v2\n", target="Architect"))

    assert own.text == "updated context of QA (applies at next launch)"
    assert by_orchestrator.text == "updated context of Architect (applies at next launch)"
    assert world.team.personas[QA] == "# QA, renewed\n" and world.team.personas[ARCHITECT] == "# Architect v2\n"
    with pytest.raises(AppError) as denied:
        await tools.handle(agent(QA), ProposeContext("# hijack", target="Architect"))
    assert denied.value.code is ErrorCode.PERMISSION_DENIED
    with pytest.raises(AppError) as unknown:
        await tools.handle(agent(QA), ReadContext("Nobody"))
    assert unknown.value.message == "agent 'Nobody' not found; known agents: Main, Architect, QA"


async def test_a_caller_outside_the_team_is_refused_and_the_person_may_do_everything(world: KnowledgeWorld) -> None:
    with pytest.raises(AppError) as refused:
        await world.tools.handle(AgentCaller("ffffffff-0000-4000-8000-000000000000"), ReadMemory())
    assert refused.value.code is ErrorCode.PERMISSION_DENIED
    assert (await world.tools.handle(Human(), ProposeContext("by the person\n"))).text == "wrote project context"


async def test_injection_gathers_context_memory_skills_and_the_handoff(world: KnowledgeWorld) -> None:
    await world.knowledge.context.write("# Context\n")
    await world.knowledge.memory.write("note", "A note.")

    injected = await world.knowledge.injection(QA, "6ffc1f69-77a5-0da1-1965-ef26d1df72f5")

    assert injected.project_context == "# Context\n"
    assert [p.slug for p in injected.memory] == ["note"]
    assert injected.skills == () and injected.handoff == ""


async def test_a_second_writer_waits_for_the_lease_then_gets_resource_busy() -> None:
    guard = FileGuard(timeout_s=0.05)
    async with guard.write("context"):
        with pytest.raises(AppError) as busy:
            async with guard.write("context"):
                pass
        with pytest.raises(AppError):
            async with guard.read("context"):
                pass
    assert busy.value.code is ErrorCode.STORE and "resource busy" in busy.value.message
    async with guard.read("context"), guard.read("context"):  # readers share
        pass
    order: list[str] = []

    async def writer(name: str) -> None:
        async with guard.write("memory"):
            order.append(f"{name} in")
            await asyncio.sleep(0.01)
            order.append(f"{name} out")

    await asyncio.gather(writer("a"), writer("b"))
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
