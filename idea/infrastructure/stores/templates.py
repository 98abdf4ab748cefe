"""`<user-data>/templates/`: the index, the current bodies, and the previous bodies kept for drift detection."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from idea.application.ports import Clock
from idea.domain.errors import AppError, ErrorCode, invalid, not_found
from idea.domain.profile import reference_profile_id
from idea.domain.template import MAX_KEPT_PREVIOUS_VERSIONS, TemplateIndex, TemplateRecord, content_hash
from idea.infrastructure.clock import SystemClock
from idea.infrastructure.fs import atomic_write_text, read_text
from idea.infrastructure.resources import resources_dir
from idea.infrastructure.stores.document_file import DocumentFile, path_lock

INDEX_FILE = "index.json"
BODIES_DIR = "md"


def starter_templates_dir() -> Path:
    return resources_dir() / "templates"


class JsonTemplateStore:
    def __init__(self, user_data_dir: Path, starter_dir: Path | None = None, clock: Clock | None = None) -> None:
        self._directory = user_data_dir / "templates"
        self._index = DocumentFile(self._directory / INDEX_FILE, TemplateIndex)
        self._bodies = self._directory / BODIES_DIR
        self._starter_dir = starter_dir if starter_dir is not None else starter_templates_dir()
        self._clock = clock if clock is not None else SystemClock()

    def load_index(self) -> TemplateIndex:
        with path_lock(self._index.path):
            index = self._index.load_or_none()
            if index is None:
                index = self._install_starters()
            return index

    def read_body(self, template_id: str) -> str:
        body = self._read(self._body_path(template_id))
        if body is None:
            raise not_found(f"template {template_id} has no body", templateId=template_id)
        return body

    def read_body_at(self, template_id: str, version: int) -> str | None:
        record = self.load_index().by_id(template_id)
        if record is not None and record.version == version:
            return self._read(self._body_path(template_id))
        return self._read(self._version_path(template_id, version))

    def save(self, record: TemplateRecord, body: str) -> None:
        with path_lock(self._index.path):
            index = self.load_index()
            previous = index.by_id(record.id)
            current = self._body_path(record.id)
            if previous is not None and previous.version != record.version:
                old_body = self._read(current)
                if old_body is not None:
                    atomic_write_text(self._version_path(record.id, previous.version), old_body)
                self._prune_versions(record.id)
            atomic_write_text(current, body)
            self._index.save(index.with_template(record))

    def delete(self, template_id: str) -> None:
        with path_lock(self._index.path):
            index = self.load_index().without(template_id)
            self._index.save(index)
            for path in (self._body_path(template_id), *self._version_paths(template_id).values()):
                path.unlink(missing_ok=True)

    # --- files ---

    def _body_path(self, template_id: str) -> Path:
        return self._bodies / f"{_checked_id(template_id)}.md"

    def _version_path(self, template_id: str, version: int) -> Path:
        return self._bodies / f"{_checked_id(template_id)}.v{version}.md"

    def _version_paths(self, template_id: str) -> dict[int, Path]:
        prefix = f"{_checked_id(template_id)}.v"
        found: dict[int, Path] = {}
        for path in self._bodies.glob(f"{prefix}*.md"):
            number = path.name[len(prefix) : -len(".md")]
            if number.isdigit():
                found[int(number)] = path
        return found

    def _prune_versions(self, template_id: str) -> None:
        kept = self._version_paths(template_id)
        for version in sorted(kept)[:-MAX_KEPT_PREVIOUS_VERSIONS]:
            kept[version].unlink(missing_ok=True)

    @staticmethod
    def _read(path: Path) -> str | None:
        with path_lock(path):
            return read_text(path)

    def _install_starters(self) -> TemplateIndex:
        """First use: copy the shipped starter templates; writing the index last marks them installed."""
        manifest_path = self._starter_dir / INDEX_FILE
        try:
            starters = json.loads(manifest_path.read_text(encoding="utf-8"))["templates"]
        except (OSError, ValueError, KeyError) as exc:
            raise AppError(
                ErrorCode.INTERNAL, f"The starter templates in {self._starter_dir} are unreadable: {exc}"
            ) from exc
        now_ms = self._clock.now_ms()
        index = TemplateIndex()
        for starter in starters:
            body = (self._starter_dir / starter["file"]).read_text(encoding="utf-8")
            default_profile = starter.get("defaultProfile")
            record = TemplateRecord(
                id=starter["id"],
                name=starter["name"],
                description=starter.get("description", ""),
                version=starter.get("version", 1),
                content_hash=content_hash(body),
                updated_at_ms=now_ms,
                default_profile_id=reference_profile_id(default_profile) if default_profile else None,
            )
            atomic_write_text(self._body_path(record.id), body)
            index = index.with_template(record)
        self._index.save(index)
        return index


def _checked_id(template_id: str) -> str:
    """Template ids become file names: only UUIDs are accepted."""
    try:
        return str(uuid.UUID(template_id))
    except ValueError:
        raise invalid(f"{template_id!r} is not a template id", templateId=template_id) from None
