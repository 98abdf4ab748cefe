"""The agents' stores on a real file system: formats on disk, corrupt files kept aside, locks, trash, versions."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from idea.domain.agent import AgentManifest
from idea.domain.errors import AppError, CorruptFileError, ErrorCode, PartlyReadFileError
from idea.domain.profile import Profile, reference_profile_id
from idea.domain.profile_book import ProfileBook
from idea.domain.providers import ProviderSessions, RunningAgent, RunningAgents
from idea.domain.template import TemplateRecord, content_hash
from idea.infrastructure.fs import dump_json
from idea.infrastructure.resources import ResourcePromptLibrary, resources_dir
from idea.infrastructure.stores.manifest import JsonManifestStore
from idea.infrastructure.stores.personas import MarkdownPersonaStore
from idea.infrastructure.stores.profiles import JsonProfileStore
from idea.infrastructure.stores.providers import JsonProviderSessionStore
from idea.infrastructure.stores.running import JsonRunningAgentsStore
from idea.infrastructure.stores.templates import JsonTemplateStore

MAIN = "a6ced819-b893-4213-b003-9e9dc79b9641"
GIT = "cd0b4cf1-1bef-4fae-ade5-f0a6b49bbaf5"
CLAUDE = "664cc20c-47b8-53ad-9351-dce3c09c0de4"

ORIGINAL_MANIFEST_TEXT = """{
  "agents": [
    {
      "agentId": "a6ced819-b893-4213-b003-9e9dc79b9641",
      "name": "Main",
      "mdPath": "agents/main.md",
      "profileId": "664cc20c-47b8-53ad-9351-dce3c09c0de4",
      "synchronized": false
    },
    {
      "agentId": "cd0b4cf1-1bef-4fae-ade5-f0a6b49bbaf5",
      "name": "Git",
      "mdPath": "agents/git.md",
      "profileId": "664cc20c-47b8-53ad-9351-dce3c09c0de4",
      "synchronized": false
    }
  ]
}
"""

LEGACY_PROFILES_TEXT = """{
  "version": 1,
  "profiles": [
    {
      "id": "00000000-0000-0000-0000-000000000000",
      "name": "Dev",
      "command": "claude",
      "args": [],
      "contextInjection": {
        "strategy": "conventionFile",
        "target": "CLAUDE.md"
      },
      "detect": null,
      "cwdTemplate": "{agentRunDir}"
    }
  ]
}
"""


class FixedClock:
    def __init__(self, now_ms: int) -> None:
        self.now = now_ms

    def now_ms(self) -> int:
        return self.now


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".ideai").mkdir(parents=True)
    return root


def kept_aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.corrupt-*"))


# --- manifest -----------------------------------------------------------------------------------------


def test_original_manifest_file_loads_and_resaves_byte_for_byte(project: Path) -> None:
    path = project / ".ideai" / "agents.json"
    path.write_text(ORIGINAL_MANIFEST_TEXT, encoding="utf-8")
    store = JsonManifestStore()

    store.save(str(project), store.load(str(project)))

    assert path.read_text(encoding="utf-8") == ORIGINAL_MANIFEST_TEXT


def test_missing_manifest_is_an_empty_team(project: Path) -> None:
    assert JsonManifestStore().load(str(project)) == AgentManifest()


@pytest.mark.parametrize("content", ['{"agents": [', '{"agents": "Main"}', "[]"])
def test_unreadable_manifest_is_kept_aside(project: Path, content: str) -> None:
    path = project / ".ideai" / "agents.json"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(CorruptFileError) as raised:
        JsonManifestStore().load(str(project))

    assert not path.exists()
    [kept] = kept_aside(path)
    assert kept.read_text(encoding="utf-8") == content
    assert raised.value.kept_as == str(kept)


def test_a_broken_agent_entry_is_dropped_and_the_team_kept(project: Path) -> None:
    path = project / ".ideai" / "agents.json"
    main = {"agentId": "a6ced819-b893-4213-b003-9e9dc79b9641", "name": "Main", "mdPath": "agents/main.md",
            "profileId": "664cc20c-47b8-53ad-9351-dce3c09c0de4"}
    written = json.dumps({"agents": [{"agentId": 5, "name": "Broken"}, main]})
    path.write_text(written, encoding="utf-8")

    with pytest.raises(PartlyReadFileError) as raised:
        JsonManifestStore().load(str(project))

    assert [agent.name for agent in raised.value.document.agents] == ["Main"]
    [kept] = kept_aside(path)
    assert kept.read_text(encoding="utf-8") == written and raised.value.kept_as == str(kept)
    assert "(agents.0.agentId: Input should be a valid string)" in raised.value.message
    assert JsonManifestStore().load(str(project)) == raised.value.document  # written back in its place


def test_concurrent_updates_lose_nothing(project: Path) -> None:
    store = JsonProviderSessionStore()
    conversations = [f"00000000-0000-4000-8000-{i:012d}" for i in range(24)]

    def record(conversation: str) -> None:
        store.update(str(project), lambda s: s.with_entry(conversation, "claude", conversation, 1))

    threads = [threading.Thread(target=record, args=(c,)) for c in conversations]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    stored = store.load(str(project))
    assert sorted(e.conversation_id for e in stored.entries) == conversations


# --- profiles -----------------------------------------------------------------------------------------


def test_no_profiles_file_means_first_run(tmp_path: Path) -> None:
    assert JsonProfileStore(tmp_path).load() is None


def test_legacy_profiles_file_resaves_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "profiles.json"
    path.write_text(LEGACY_PROFILES_TEXT, encoding="utf-8")
    store = JsonProfileStore(tmp_path)

    book = store.load()
    assert book is not None
    store.save(book)

    assert path.read_text(encoding="utf-8") == LEGACY_PROFILES_TEXT


def test_invalid_profile_file_is_kept_aside_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "profiles.json"
    data = json.loads(LEGACY_PROFILES_TEXT)
    data["profiles"][0]["liveness"] = {"stallAfterMs": 0}
    path.write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(CorruptFileError, match="stallAfterMs must be a positive number"):
        JsonProfileStore(tmp_path).load()
    assert len(kept_aside(path)) == 1


def test_shipped_reference_profiles(tmp_path: Path) -> None:
    shipped = JsonProfileStore(tmp_path).reference_profiles()

    assert [(p.id, p.name) for p in shipped] == [
        (reference_profile_id("claude"), "Claude Code"),
        (reference_profile_id("codex"), "Codex"),
        (reference_profile_id("gemini"), "Gemini CLI"),
        (reference_profile_id("aider"), "Aider"),
    ]
    assert [p.materializes_idea_bridge() for p in shipped] == [True, True, True, False]
    assert [p.reachable_by_delegation() for p in shipped] == [True, True, True, True]
    shipped_text = (resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8")
    assert dump_json([p.to_json() for p in shipped]) == shipped_text


def test_stored_reference_profile_is_overlaid_from_the_shipped_file(tmp_path: Path) -> None:
    store = JsonProfileStore(tmp_path)
    shipped_claude = store.reference_profiles()[0]
    user_edit = {"command": "/opt/claude", "edited": ["command"]}
    stale = Profile.from_json({**shipped_claude.to_json(), **user_edit, "submitDelayMs": 60, "blockingPrompts": []})
    store.save(ProfileBook(profiles=(stale,)))

    book = store.load()
    assert book is not None
    overlaid = book.overlay_reference_defaults(store.reference_profiles()).profiles[0]

    assert overlaid.command == "/opt/claude"
    assert overlaid.submit_delay_ms == 350
    assert overlaid.blocking_prompts == shipped_claude.blocking_prompts


def test_broken_shipped_profiles_are_an_internal_error(tmp_path: Path) -> None:
    broken = tmp_path / "reference-profiles.json"
    broken.write_text('[{"id": "x"}]', encoding="utf-8")

    with pytest.raises(AppError) as raised:
        JsonProfileStore(tmp_path, shipped_path=broken).reference_profiles()
    assert raised.value.code is ErrorCode.INTERNAL


# --- personas -----------------------------------------------------------------------------------------


def test_persona_write_read_and_missing(project: Path) -> None:
    store = MarkdownPersonaStore()

    store.write(str(project), "agents/git.md", "# Git\n\nOwns commits.\n")

    assert store.read(str(project), "agents/git.md") == "# Git\n\nOwns commits.\n"
    assert (project / ".ideai" / "agents" / "git.md").is_file()
    assert store.read(str(project), "agents/nobody.md") is None


@pytest.mark.parametrize("md_path", ["../CONTEXT.md", "agents/../../outside.md", "/tmp/x.md", "agents/.deleted/x.md"])
def test_persona_paths_escaping_agents_are_refused_before_any_write(project: Path, md_path: str) -> None:
    with pytest.raises(AppError, match=r"must stay inside \.ideai/agents/"):
        MarkdownPersonaStore().write(str(project), md_path, "x")
    assert not (project / "outside.md").exists()
    assert not (project / ".ideai" / "CONTEXT.md").exists()


def test_a_symbolic_link_cannot_lead_a_persona_out_of_agents(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / ".ideai" / "agents").mkdir()
    (project / ".ideai" / "agents" / "team").symlink_to(outside, target_is_directory=True)

    with pytest.raises(AppError, match="leads outside"):
        MarkdownPersonaStore().write(str(project), "agents/team/x.md", "x")
    assert list(outside.iterdir()) == []


def test_deleted_persona_goes_to_the_versioned_trash(project: Path) -> None:
    store = MarkdownPersonaStore()
    store.write(str(project), "agents/git.md", "first")

    first = store.trash(str(project), "agents/git.md", at_ms=1781368615582)
    store.write(str(project), "agents/git.md", "second")
    second = store.trash(str(project), "agents/git.md", at_ms=1781368615582)

    assert first == "agents/.deleted/git-1781368615582.md"
    assert second == "agents/.deleted/git-1781368615582-2.md"
    assert (project / ".ideai" / first).read_text(encoding="utf-8") == "first"
    assert (project / ".ideai" / second).read_text(encoding="utf-8") == "second"
    assert not (project / ".ideai" / "agents" / "git.md").exists()
    assert store.trash(str(project), "agents/git.md", at_ms=1) is None


def test_persona_that_is_not_utf8_is_kept_aside(project: Path) -> None:
    path = project / ".ideai" / "agents" / "git.md"
    path.parent.mkdir()
    path.write_bytes(b"\xff\xfe broken")

    with pytest.raises(CorruptFileError):
        MarkdownPersonaStore().read(str(project), "agents/git.md")
    assert len(kept_aside(path)) == 1


# --- templates ----------------------------------------------------------------------------------------


def test_first_use_installs_the_starter_templates(tmp_path: Path) -> None:
    store = JsonTemplateStore(tmp_path, clock=FixedClock(1781368615582))

    index = store.load_index()

    names = [t.name for t in index.templates]
    assert names == ["Orchestrator", "Architect", "Developer", "Reviewer / QA", "Git keeper"]
    for record in index.templates:
        body = store.read_body(record.id)
        assert record.content_hash == content_hash(body)
        assert (record.version, record.updated_at_ms) == (1, 1781368615582)
        assert record.default_profile_id == CLAUDE
        assert "idea_reply" in body
    assert json.loads((tmp_path / "templates" / "index.json").read_text(encoding="utf-8"))["version"] == 1


def test_starters_are_not_reinstalled_once_the_user_removed_them(tmp_path: Path) -> None:
    store = JsonTemplateStore(tmp_path, clock=FixedClock(1))
    for record in store.load_index().templates:
        store.delete(record.id)

    assert store.load_index().templates == ()
    assert list((tmp_path / "templates" / "md").iterdir()) == []


def test_previous_bodies_are_kept_up_to_ten_versions(tmp_path: Path) -> None:
    store = JsonTemplateStore(tmp_path, clock=FixedClock(1))
    store.load_index()
    template_id = "5b0e2f7e-1b7a-4c55-9a55-3f7f0d1e2a10"
    record = TemplateRecord(id=template_id, name="Mine", version=1, content_hash=content_hash("v1"), updated_at_ms=1)
    store.save(record, "v1")
    for version in range(2, 13):
        record = record.revised(f"v{version}", now_ms=version)
        store.save(record, f"v{version}")

    assert record.version == 12
    assert store.read_body(template_id) == "v12"
    assert store.read_body_at(template_id, 12) == "v12"
    assert store.read_body_at(template_id, 11) == "v11"
    assert store.read_body_at(template_id, 2) == "v2"
    assert store.read_body_at(template_id, 1) is None
    kept = sorted(p.name for p in (tmp_path / "templates" / "md").glob(f"{template_id}.v*.md"))
    assert len(kept) == 10


def test_saving_an_unchanged_body_keeps_no_extra_version(tmp_path: Path) -> None:
    store = JsonTemplateStore(tmp_path, clock=FixedClock(1))
    [orchestrator, *_] = store.load_index().templates
    body = store.read_body(orchestrator.id)

    store.save(orchestrator.revised(body, now_ms=2), body)

    assert store.load_index().by_id(orchestrator.id) == orchestrator
    assert list((tmp_path / "templates" / "md").glob("*.v*.md")) == []


def test_template_ids_must_be_uuids(tmp_path: Path) -> None:
    with pytest.raises(AppError, match="is not a template id"):
        JsonTemplateStore(tmp_path).read_body("../../profiles")


def test_corrupt_template_index_is_kept_aside(tmp_path: Path) -> None:
    index = tmp_path / "templates" / "index.json"
    index.parent.mkdir()
    index.write_text("{nope", encoding="utf-8")

    with pytest.raises(CorruptFileError):
        JsonTemplateStore(tmp_path).load_index()
    assert len(kept_aside(index)) == 1


# --- providers.json, running.json ---------------------------------------------------------------------


def test_providers_and_running_round_trip_in_their_documented_shape(project: Path) -> None:
    sessions = ProviderSessions().with_entry(MAIN, "claude", "4b8e0c1a-7a32-4d2c-9a37-1c3e6f0b9d21", 5)
    running = RunningAgents().with_agent(RunningAgent(agent_id=GIT, since_ms=4), now_ms=5)

    JsonProviderSessionStore().save(str(project), sessions)
    JsonRunningAgentsStore().save(str(project), running)

    assert json.loads((project / ".ideai" / "providers.json").read_text(encoding="utf-8")) == {
        "version": 1,
        "entries": [
            {
                "conversationId": MAIN,
                "provider": "claude",
                "engineSessionId": "4b8e0c1a-7a32-4d2c-9a37-1c3e6f0b9d21",
                "updatedAtMs": 5,
            }
        ],
    }
    assert json.loads((project / ".ideai" / "running.json").read_text(encoding="utf-8")) == {
        "version": 1,
        "updatedAtMs": 5,
        "agents": [{"agentId": GIT, "nodeId": None, "sinceMs": 4}],
    }
    assert JsonProviderSessionStore().load(str(project)) == sessions
    assert JsonRunningAgentsStore().load(str(project)) == running


def test_corrupt_running_file_is_kept_aside(project: Path) -> None:
    path = project / ".ideai" / "running.json"
    path.write_text('{"version": 1, "agents": [{"agentId": 3}]}', encoding="utf-8")

    with pytest.raises(CorruptFileError):
        JsonRunningAgentsStore().load(str(project))
    assert len(kept_aside(path)) == 1


# --- resources ----------------------------------------------------------------------------------------


def test_prompt_library_reads_both_orchestration_variants() -> None:
    texts = ResourcePromptLibrary().orchestration_texts()

    assert texts.mcp.startswith("# IdeA orchestration\n")
    assert texts.file.startswith("# IdeA orchestration\n")
    assert "{requestsDir}" in texts.file
