"""Spec 02 §3: template records, versions, content hashes and the synchronisation rules."""

from __future__ import annotations

import pytest

from idea.domain.agent import AgentEntry
from idea.domain.errors import AppError, ErrorCode
from idea.domain.template import TemplateIndex, TemplateRecord, content_hash, has_drift, update_available

GIT_TEMPLATE = "5b0e2f7e-1b7a-4c55-9a55-3f7f0d1e2a10"
GIT_BODY = "# Git\n\nOwns the local repository.\n"


def record(version: int = 3, **overrides: object) -> TemplateRecord:
    data: dict[str, object] = {
        "id": GIT_TEMPLATE,
        "name": "Git",
        "description": "Owns the local repository",
        "version": version,
        "contentHash": content_hash(GIT_BODY),
        "updatedAtMs": 1781368615582,
    }
    data.update(overrides)
    return TemplateRecord.from_json(data)


def agent(template_id: str | None = GIT_TEMPLATE, template_version: int | None = 2) -> AgentEntry:
    return AgentEntry(
        agent_id="cd0b4cf1-1bef-4fae-ade5-f0a6b49bbaf5",
        name="Git",
        md_path="agents/git.md",
        profile_id="664cc20c-47b8-53ad-9351-dce3c09c0de4",
        synchronized=True,
        template_id=template_id,
        template_version=template_version,
    )


def test_content_hash_is_the_first_16_hex_of_sha256_of_utf8() -> None:
    assert content_hash("") == "e3b0c44298fc1c14"
    assert content_hash(GIT_BODY) == "7331bbb023abec40"
    assert content_hash("héllo") == "3c48591d8d098a45"


def test_record_round_trips_in_the_documented_shape() -> None:
    data = {
        "id": GIT_TEMPLATE,
        "name": "Git",
        "description": "Owns the local repository",
        "version": 3,
        "contentHash": "9fc8260f64c3b9d5",
        "updatedAtMs": 1781368615582,
    }

    assert TemplateRecord.from_json(data).to_json() == data
    assert TemplateRecord.from_json({**data, "defaultProfileId": "x"}).to_json()["defaultProfileId"] == "x"


def test_revising_with_the_same_body_keeps_the_version() -> None:
    assert record().revised(GIT_BODY, now_ms=9) == record()


def test_revising_with_a_new_body_moves_the_version_on() -> None:
    revised = record().revised("# Git\n\nOwns commits.\n", now_ms=1781368700000)

    assert (revised.version, revised.updated_at_ms) == (4, 1781368700000)
    assert revised.content_hash == content_hash("# Git\n\nOwns commits.\n")


@pytest.mark.parametrize(
    ("template_id", "template_version", "expected"),
    [
        (GIT_TEMPLATE, 2, True),
        (GIT_TEMPLATE, 3, False),
        (GIT_TEMPLATE, 4, False),
        (GIT_TEMPLATE, None, True),
        ("00000000-0000-4000-8000-000000000000", 1, False),
        (None, None, False),
    ],
)
def test_update_available(template_id: str | None, template_version: int | None, expected: bool) -> None:
    assert update_available(agent(template_id, template_version), record(version=3)) is expected


def test_drift_is_a_real_edit_not_line_endings_or_a_trailing_newline() -> None:
    assert has_drift(GIT_BODY, GIT_BODY) is False
    assert has_drift(GIT_BODY.replace("\n", "\r\n"), GIT_BODY) is False
    assert has_drift(GIT_BODY.rstrip("\n"), GIT_BODY) is False
    assert has_drift(GIT_BODY + "\nNever push.\n", GIT_BODY) is True


def test_an_unknown_old_body_counts_as_drift() -> None:
    assert has_drift(GIT_BODY, None) is True


def test_index_replaces_appends_and_removes() -> None:
    other = record(id="c7df8356-db1a-4168-82d9-a1925ed3da73", name="Orchestrator")
    index = TemplateIndex().with_template(record()).with_template(other)

    updated = index.with_template(record(version=4))

    assert [(t.name, t.version) for t in updated.templates] == [("Git", 4), ("Orchestrator", 3)]
    assert updated.without(GIT_TEMPLATE).templates == (other,)
    assert index.to_json() == {"version": 1, "templates": [record().to_json(), other.to_json()]}
    with pytest.raises(AppError) as raised:
        index.without("00000000-0000-4000-8000-000000000000")
    assert raised.value.code is ErrorCode.NOT_FOUND
