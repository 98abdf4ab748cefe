"""Persona templates shared by all projects (spec 02 §3) and the rules that keep agents in sync with them."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import Field

from idea.domain.agent import AgentEntry
from idea.domain.documents import CamelDocument
from idea.domain.errors import not_found

MAX_KEPT_PREVIOUS_VERSIONS = 10


def content_hash(body: str) -> str:
    """First 16 hex characters of the SHA-256 of the UTF-8 body."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


class TemplateRecord(CamelDocument):
    id: str
    name: str
    description: str = ""
    version: int = 1
    content_hash: str
    updated_at_ms: int
    default_profile_id: str | None = None  # IdeA extension: the profile proposed when creating an agent

    def revised(self, body: str, now_ms: int) -> TemplateRecord:
        """The record after saving `body`: the version moves on only when the body really changed."""
        new_hash = content_hash(body)
        if new_hash == self.content_hash:
            return self
        return self.model_copy(update={"version": self.version + 1, "content_hash": new_hash, "updated_at_ms": now_ms})


class TemplateIndex(CamelDocument):
    """`<user-data>/templates/index.json`."""

    version: int = 1
    templates: tuple[TemplateRecord, ...] = Field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        extra = self.model_extra or {}
        return {"version": self.version, "templates": [t.to_json() for t in self.templates], **extra}

    def by_id(self, template_id: str) -> TemplateRecord | None:
        return next((t for t in self.templates if t.id == template_id), None)

    def with_template(self, record: TemplateRecord) -> TemplateIndex:
        """Replace the record with the same id, or append it."""
        if self.by_id(record.id) is None:
            return self.model_copy(update={"templates": (*self.templates, record)})
        return self.model_copy(update={"templates": tuple(record if t.id == record.id else t for t in self.templates)})

    def without(self, template_id: str) -> TemplateIndex:
        if self.by_id(template_id) is None:
            raise not_found(f"template {template_id} not found", templateId=template_id)
        return self.model_copy(update={"templates": tuple(t for t in self.templates if t.id != template_id)})


def update_available(agent: AgentEntry, template: TemplateRecord) -> bool:
    """The agent comes from this template and was last synced with an older version."""
    if agent.template_id != template.id:
        return False
    return (agent.template_version or 0) < template.version


def has_drift(persona_body: str, body_at_agent_version: str | None) -> bool:
    """The persona was edited since its last sync (an unknown old body counts as drift: never overwrite).

    Line endings and trailing whitespace at the end are not edits.
    """
    if body_at_agent_version is None:
        return True
    return _comparable(persona_body) != _comparable(body_at_agent_version)


def _comparable(body: str) -> str:
    return body.replace("\r\n", "\n").rstrip()
