"""Persona templates shared by every project, and where an agent stands with respect to its template."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from idea.application.agents.ports import TemplateStore
from idea.application.ports import Clock, IdGenerator
from idea.domain.agent import AgentEntry
from idea.domain.errors import invalid
from idea.domain.template import TemplateRecord, content_hash, has_drift, update_available


class TemplateLink(StrEnum):
    NONE = "none"  # not made from a template
    CURRENT = "current"
    UPDATE_AVAILABLE = "updateAvailable"
    LOCAL_EDITS = "localEdits"  # update available, but the persona was edited since the last sync
    TEMPLATE_DELETED = "templateDeleted"


@dataclass(frozen=True)
class TemplateStatus:
    link: TemplateLink
    template: TemplateRecord | None = None

    def describe(self) -> str:
        match self.link:
            case TemplateLink.UPDATE_AVAILABLE:
                return f"update available (template v{self.template.version})" if self.template else ""
            case TemplateLink.LOCAL_EDITS:
                return "update available (local edits)"
            case TemplateLink.TEMPLATE_DELETED:
                return "template deleted"
        return ""


class TemplateCatalogue:
    def __init__(self, store: TemplateStore, clock: Clock, ids: IdGenerator) -> None:
        self._store = store
        self._clock = clock
        self._ids = ids

    def templates(self) -> list[TemplateRecord]:
        return list(self._store.load_index().templates)

    def template(self, template_id: str) -> TemplateRecord | None:
        return self._store.load_index().by_id(template_id)

    def body(self, template_id: str) -> str:
        return self._store.read_body(template_id)

    def create(self, name: str, description: str, body: str, default_profile_id: str | None) -> TemplateRecord:
        name = name.strip()
        if not name:
            raise invalid("a template needs a name")
        if any(t.name.casefold() == name.casefold() for t in self.templates()):
            raise invalid(f"a template named {name!r} already exists")
        record = TemplateRecord(
            id=self._ids.new_id(),
            name=name,
            description=description.strip(),
            version=1,
            content_hash=content_hash(body),
            updated_at_ms=self._clock.now_ms(),
            default_profile_id=default_profile_id,
        )
        self._store.save(record, body)
        return record

    def update(self, template_id: str, body: str, *, description: str | None = None) -> TemplateRecord:
        """Save a new body; the version moves on only when the body changed."""
        current = self.template(template_id)
        if current is None:
            raise invalid(f"template {template_id} not found")
        record = current.revised(body, self._clock.now_ms())
        if description is not None:
            record = record.model_copy(update={"description": description.strip()})
        self._store.save(record, body)
        return record

    def delete(self, template_id: str) -> None:
        self._store.delete(template_id)

    def status(self, agent: AgentEntry, persona: str) -> TemplateStatus:
        if agent.template_id is None:
            return TemplateStatus(TemplateLink.NONE)
        template = self.template(agent.template_id)
        if template is None:
            return TemplateStatus(TemplateLink.TEMPLATE_DELETED)
        if not update_available(agent, template):
            return TemplateStatus(TemplateLink.CURRENT, template)
        synced_body = self._store.read_body_at(template.id, agent.template_version or 0)
        if has_drift(persona, synced_body):
            return TemplateStatus(TemplateLink.LOCAL_EDITS, template)
        return TemplateStatus(TemplateLink.UPDATE_AVAILABLE, template)
