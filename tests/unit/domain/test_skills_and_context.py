"""Skills (lookup, effective description, index format, assignment) and the shared context (single writer,
proposals, diff) as pure rules (spec 04 §13-§14; KN-11, KN-12)."""

from __future__ import annotations

import pytest

from idea.domain.agent import AgentEntry, AgentManifest, SkillRef
from idea.domain.knowledge.context import (
    DiffKind,
    Proposal,
    context_diff,
    context_hash,
    is_proposal_file_name,
    may_write_directly,
    parse_proposal,
    proposal_file_name,
)
from idea.domain.errors import AppError, ErrorCode
from idea.domain.knowledge.skill import (
    SkillIndex,
    SkillRecord,
    assigned,
    assigned_skills,
    Skill,
    effective_description,
    ensure_unique_name,
    is_valid_name,
    parse_index,
    resolve_by_name,
    unassigned,
    unassigned_everywhere,
)

# `.ideai/skills/index.json` of the original (002_f461842d34657061.txt L2426-2444), plus one legacy entry
# without `description`.
ORIGINAL_INDEX = {
    "version": 1,
    "skills": [
        {"id": "a72dac60-641c-4417-b0d7-94b8539f817a", "name": "build-appimage", "description": None,
         "contentHash": "77cb33b978b242f6"},
        {"id": "86ea97df-1533-47e5-8809-dc2b02242567", "name": "mcp-rendezvous-functional-test", "description": None,
         "contentHash": "9fc8260f64c3b9d5"},
        {"id": "0b8fcc51-c692-4928-9d90-3823857dad5c", "name": "legacy", "contentHash": "0000000000000000"},
    ],
}


def record(number: int, name: str) -> SkillRecord:
    return SkillRecord(f"00000000-0000-4000-8000-{number:012d}", name, None, "")


def test_the_original_index_reads_and_writes_back_with_explicit_null_descriptions() -> None:
    parsed = parse_index(ORIGINAL_INDEX)
    assert parsed.problems == ()
    assert [r.description for r in parsed.index.skills] == [None, None, None]
    written = parsed.index.to_json()
    assert written["skills"][0] == ORIGINAL_INDEX["skills"][0]
    assert written["skills"][2] == {**ORIGINAL_INDEX["skills"][2], "description": None}


def test_a_malformed_entry_is_reported_and_kept_through_a_rewrite() -> None:
    data = {"version": 1, "skills": [{"id": "nope", "name": "x"}, {"name": "no-id"}, ORIGINAL_INDEX["skills"][0]], "future": 3}
    parsed = parse_index(data)
    assert [r.name for r in parsed.index.skills] == ["build-appimage"]
    assert [p.line for p in parsed.problems] == [1, 2]
    assert parsed.index.to_json()["skills"][1:] == data["skills"][:2] and parsed.index.to_json()["future"] == 3
    with pytest.raises(ValueError):
        parse_index([1, 2])


def test_kn11_project_shadows_global_case_insensitively() -> None:
    project = SkillIndex(skills=(record(1, "Deploy"),))
    global_ = SkillIndex(skills=(record(2, "deploy"), record(3, "lint")))
    assert resolve_by_name("DEPLOY", [("project", project), ("global", global_)]) == ("project", record(1, "Deploy"))
    assert resolve_by_name("Lint", [("project", project), ("global", global_)]) == ("global", record(3, "lint"))


def test_kn11_ambiguity_is_per_scope_even_when_the_other_scope_has_one_match() -> None:
    project = SkillIndex(skills=(record(1, "deploy"), record(2, "DEPLOY")))
    global_ = SkillIndex(skills=(record(3, "deploy"),))
    with pytest.raises(AppError) as ambiguous:
        resolve_by_name("deploy", [("project", project), ("global", global_)])
    assert ambiguous.value.code is ErrorCode.INVALID
    assert ambiguous.value.message == "skill name `deploy` is ambiguous in project scope"
    with pytest.raises(AppError) as missing:
        resolve_by_name("absent", [("project", project), ("global", global_)])
    assert missing.value.code is ErrorCode.NOT_FOUND and missing.value.message == "skill `absent`"


def test_kn12_effective_description_falls_back_to_the_first_body_line() -> None:
    assert effective_description("  Build the AppImage  ", "# Body") == "Build the AppImage"
    assert effective_description(None, "\n\n## Build de l'AppImage IdeA (Linux)\n\nText") == "Build de l'AppImage IdeA (Linux)"
    assert effective_description("", "first   line\nsecond") == "first line"
    assert effective_description(None, "x" * 400) == "x" * 160
    assert effective_description(None, "") == ""


def test_names_are_checked_and_unique_per_scope() -> None:
    assert all(is_valid_name(n) for n in ["build-appimage", "A.b_c-9", "x" * 64])
    assert not any(is_valid_name(n) for n in ["", "-x", ".x", "a b", "x" * 65, "é"])
    with pytest.raises(AppError):
        ensure_unique_name(SkillIndex(skills=(record(1, "Deploy"),)), "deploy", "project")
    ensure_unique_name(SkillIndex(skills=(record(1, "Deploy"),)), "deploy", "project", except_id=record(1, "x").id)


def team() -> AgentManifest:
    return AgentManifest(
        agents=(
            AgentEntry(agent_id="a1", name="Main", md_path="agents/main.md", profile_id="p"),
            AgentEntry(agent_id="a2", name="QA", md_path="agents/qa.md", profile_id="p"),
        )
    )


def test_assignment_adds_once_removes_and_dangling_references_are_reported() -> None:
    ref = SkillRef(skill_id=record(1, "x").id, scope="global")
    manifest = assigned(assigned(team(), "a2", ref), "a2", ref)
    assert manifest.by_id("a2").skills == (ref,)
    assert manifest.by_id("a2").to_json()["skills"] == [{"skillId": ref.skill_id, "scope": "global"}]
    assert unassigned(manifest, "a2", ref.skill_id, "global").by_id("a2").skills == ()
    assert unassigned_everywhere(manifest, ref.skill_id, "global") == team()
    skill = Skill(record(1, "x"), "global", "body")
    found = assigned_skills([ref, SkillRef(skill_id="gone", scope="project")], {("global", ref.skill_id): skill})
    assert found.skills == (skill,) and found.dangling == (SkillRef(skill_id="gone", scope="project"),)


def test_only_the_designated_orchestrator_or_the_person_write_the_context() -> None:
    manifest = team()
    assert may_write_directly(None, manifest)
    assert may_write_directly("a1", manifest)  # no designation: the first agent
    assert not may_write_directly("a2", manifest)
    designated = manifest.with_orchestrator("a2")
    assert may_write_directly("a2", designated) and not may_write_directly("a1", designated)


def test_a_proposal_file_round_trips_and_knows_when_the_context_moved_on() -> None:
    name = proposal_file_name(1781368615582, "Dev Backend")
    assert name == "1781368615582-dev-backend.md" and is_proposal_file_name(name)
    assert proposal_file_name(1781368615582, "Dev Backend", {name}) == "1781368615582-dev-backend-2.md"
    proposal = Proposal(name, "Dev Backend", 1781368615582, context_hash("old"), "# Context\n\nnew: text\n")
    parsed = parse_proposal(name, proposal.render())
    assert parsed.problems == () and parsed.proposal == Proposal(name, "Dev Backend", 1781368615582, context_hash("old"), "# Context\n\nnew: text")
    assert not parsed.proposal.is_stale("old") and parsed.proposal.is_stale("changed")
    bare = parse_proposal("1700-qa.md", "just a body")
    assert (bare.proposal.author, bare.proposal.at_ms, bare.proposal.content) == ("qa", 1700, "just a body")
    assert len(bare.problems) == 3
    assert not is_proposal_file_name("../x.md") and not is_proposal_file_name("notes.md")


def test_the_diff_shows_changes_with_context_lines_and_gaps() -> None:
    current = "\n".join(f"line {i}" for i in range(1, 21))
    proposed = current.replace("line 2\n", "line two\n").replace("line 19", "line 19\nline 19b")
    diff = context_diff(current, proposed, context_lines=1)
    kinds = [(line.kind, line.text) for line in diff]
    assert (DiffKind.REMOVED, "line 2") in kinds and (DiffKind.ADDED, "line two") in kinds
    assert (DiffKind.ADDED, "line 19b") in kinds and (DiffKind.GAP, "…") in kinds
    assert (DiffKind.SAME, "line 10") not in kinds
    assert context_diff("same", "same") == ()
