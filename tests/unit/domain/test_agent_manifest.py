"""Spec 02 §1-§2, acceptance AG-1 and AG-2: the manifest, agent names, slugs and persona paths."""

from __future__ import annotations

import re

import pytest

from idea.domain.agent import (
    AgentEntry,
    AgentManifest,
    slugify,
    unique_md_path,
    validate_agent_name,
    validate_persona_path,
)
from idea.domain.errors import AppError, ErrorCode

MAIN = "a6ced819-b893-4213-b003-9e9dc79b9641"
ARCHITECT = "dce19c75-9669-4e45-b8de-9950025157da"
GIT = "cd0b4cf1-1bef-4fae-ade5-f0a6b49bbaf5"
CLAUDE = "664cc20c-47b8-53ad-9351-dce3c09c0de4"

# The original's shape: no version key, optional fields absent, `orchestrator` absent when unset.
ORIGINAL_MANIFEST = {
    "agents": [
        {"agentId": MAIN, "name": "Main", "mdPath": "agents/main.md", "profileId": CLAUDE, "synchronized": False},
        {
            "agentId": ARCHITECT,
            "name": "Architect",
            "mdPath": "agents/architect.md",
            "profileId": CLAUDE,
            "synchronized": False,
        },
        {"agentId": GIT, "name": "Git", "mdPath": "agents/git.md", "profileId": CLAUDE, "synchronized": False},
    ]
}


def manifest() -> AgentManifest:
    return AgentManifest.from_json(ORIGINAL_MANIFEST)


def entry(agent_id: str, name: str) -> AgentEntry:
    return AgentEntry(agent_id=agent_id, name=name, md_path=f"agents/{slugify(name)}.md", profile_id=CLAUDE)


# --- AG-1 ---------------------------------------------------------------------------------------------


def test_original_manifest_loads_and_rewrites_identically() -> None:
    loaded = manifest()

    assert [agent.name for agent in loaded.agents] == ["Main", "Architect", "Git"]
    assert loaded.orchestrator is None
    assert loaded.to_json() == ORIGINAL_MANIFEST
    assert list(loaded.to_json()["agents"][0]) == ["agentId", "name", "mdPath", "profileId", "synchronized"]


def test_optional_fields_are_written_only_when_set() -> None:
    data = {
        "agents": [
            {
                "agentId": GIT,
                "name": "Git",
                "mdPath": "agents/git.md",
                "profileId": CLAUDE,
                "synchronized": True,
                "templateId": "5b0e2f7e-1b7a-4c55-9a55-3f7f0d1e2a10",
                "templateVersion": 3,
                "skills": [{"skillId": "a72dac60-641c-4417-b0d7-94b8539f817a", "scope": "project"}],
                "worktree": {"branch": "git/work", "path": "/p-worktrees/git"},
            }
        ],
        "orchestrator": GIT,
    }

    assert AgentManifest.from_json(data).to_json() == data


def test_empty_skills_and_a_cleared_designation_are_omitted() -> None:
    data = {"agents": [{**ORIGINAL_MANIFEST["agents"][0], "skills": []}], "orchestrator": MAIN}

    rewritten = AgentManifest.from_json(data).with_orchestrator(None).to_json()

    assert rewritten == {"agents": [ORIGINAL_MANIFEST["agents"][0]]}


def test_unknown_keys_survive_a_rewrite() -> None:
    data = {"agents": [{**ORIGINAL_MANIFEST["agents"][0], "color": "teal"}], "layoutHint": 2}

    assert AgentManifest.from_json(data).to_json() == data


# --- queries ------------------------------------------------------------------------------------------


def test_by_name_ignores_case() -> None:
    found = manifest().by_name("aRCHITECT")

    assert found is not None and found.agent_id == ARCHITECT
    assert manifest().by_name("QA") is None


def test_effective_orchestrator_is_the_designation_else_the_first_agent() -> None:
    assert manifest().effective_orchestrator() == manifest().agents[0]
    assert manifest().with_orchestrator(GIT).effective_orchestrator() == manifest().agents[2]
    dangling = AgentManifest.from_json({**ORIGINAL_MANIFEST, "orchestrator": "00000000-0000-4000-8000-000000000000"})
    assert dangling.effective_orchestrator() == manifest().agents[0]
    assert AgentManifest().effective_orchestrator() is None


# --- changes ------------------------------------------------------------------------------------------


def test_with_agent_appends_in_creation_order() -> None:
    qa = entry("3f2a9c1e-5d7b-4c1a-9e0f-2b6d8a4c7e11", "QA")

    grown = manifest().with_agent(qa)

    assert [a.name for a in grown.agents] == ["Main", "Architect", "Git", "QA"]


def test_with_agent_refuses_a_duplicate_id_or_name() -> None:
    with pytest.raises(AppError, match="already in the manifest"):
        manifest().with_agent(entry(GIT, "Other"))
    with pytest.raises(AppError, match="An agent named 'Git' already exists"):
        manifest().with_agent(entry("3f2a9c1e-5d7b-4c1a-9e0f-2b6d8a4c7e11", "GIT"))


def test_rename_changes_the_name_only() -> None:
    renamed = manifest().renamed(GIT, "Git Keeper")

    agent = renamed.by_id(GIT)
    assert agent is not None
    assert (agent.name, agent.md_path) == ("Git Keeper", "agents/git.md")


def test_rename_to_a_new_case_of_the_same_name_is_allowed() -> None:
    renamed = manifest().renamed(GIT, "GIT")

    assert renamed.by_id(GIT) is not None and renamed.by_id(GIT).name == "GIT"  # type: ignore[union-attr]


def test_removing_the_designated_orchestrator_clears_the_designation() -> None:
    shrunk = manifest().with_orchestrator(ARCHITECT).without(ARCHITECT)

    assert shrunk.orchestrator is None
    assert [a.name for a in shrunk.agents] == ["Main", "Git"]
    assert manifest().with_orchestrator(GIT).without(ARCHITECT).orchestrator == GIT


def test_profile_and_template_version_changes() -> None:
    codex = "d2603c4e-1ee5-51a3-8b61-99a9f03eec50"

    changed = manifest().with_profile(GIT, codex).with_template_version(GIT, 4)

    agent = changed.by_id(GIT)
    assert agent is not None
    assert (agent.profile_id, agent.template_version) == (codex, 4)
    assert changed.by_id(MAIN) == manifest().by_id(MAIN)


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m.renamed("00000000-0000-4000-8000-000000000000", "X"),
        lambda m: m.without("00000000-0000-4000-8000-000000000000"),
        lambda m: m.with_profile("00000000-0000-4000-8000-000000000000", CLAUDE),
        lambda m: m.with_orchestrator("00000000-0000-4000-8000-000000000000"),
        lambda m: m.with_template_version("00000000-0000-4000-8000-000000000000", 1),
    ],
)
def test_changes_to_an_unknown_agent_are_not_found(change) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AppError) as raised:
        change(manifest())
    assert raised.value.code is ErrorCode.NOT_FOUND


# --- AG-2: slugs --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Main", "main"),
        ("TestConversation", "testconversation"),
        ("Dev Backend", "dev-backend"),
        ("  --QA__lead--  ", "qa-lead"),
        ("Équipe 2", "quipe-2"),
        ("!!!", "agent"),
        ("", "agent"),
    ],
)
def test_slug_rule(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_md_path_collisions_get_numbered_suffixes() -> None:
    assert unique_md_path("Git", []) == "agents/git.md"
    assert unique_md_path("Git", ["agents/git.md"]) == "agents/git-2.md"
    assert unique_md_path("git!", ["agents/git.md", "agents/git-2.md"]) == "agents/git-3.md"
    assert unique_md_path("Git", ["agents/GIT.md"]) == "agents/git-2.md"


# --- names --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Lead", "Dev Backend_2-x", "Élodie", "x" * 64])
def test_valid_names(name: str) -> None:
    validate_agent_name(name, manifest())


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("x" * 65, "at most 64 characters (65 given)"),
        (" Main2", "must not start or end with a space"),
        ("dev/ops", "contains '/'"),
        ("a.b", "contains '.'"),
        ("architect", "An agent named 'Architect' already exists"),
    ],
)
def test_invalid_names_say_why(name: str, message: str) -> None:
    with pytest.raises(AppError, match=re.escape(message)) as raised:
        validate_agent_name(name, manifest())
    assert raised.value.code is ErrorCode.INVALID


def test_an_agent_may_keep_its_own_name() -> None:
    validate_agent_name("architect", manifest(), exclude_agent_id=ARCHITECT)


# --- persona paths ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["agents/git.md", "agents/team/lead.md"])
def test_persona_paths_inside_agents(path: str) -> None:
    validate_persona_path(path)


@pytest.mark.parametrize(
    "path",
    [
        "../agents/x.md",
        "agents/../../etc/passwd.md",
        "agents/../CONTEXT.md",
        "/etc/agents/x.md",
        "agents/.deleted/git-1.md",
        "memory/x.md",
        "agents\\x.md",
        "C:/agents/x.md",
        "agents//x.md",
        "agents.md",
    ],
)
def test_persona_paths_escaping_agents_are_refused(path: str) -> None:
    with pytest.raises(AppError, match=r"must stay inside \.ideai/agents/") as raised:
        validate_persona_path(path)
    assert raised.value.code is ErrorCode.INVALID


def test_persona_path_must_be_markdown() -> None:
    with pytest.raises(AppError, match="ending in '.md'"):
        validate_persona_path("agents/git.txt")
