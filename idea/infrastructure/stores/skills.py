"""Skills of one scope: `<dir>/index.json` + `<dir>/md/<id>.md` (spec 04 §13.1), the project's under
`.ideai/skills/`, the global ones under `<user-data>/skills/`.

The index is read entry by entry: a malformed entry is reported and carried through rewrites untouched; an
index that is not JSON at all is moved aside (`index.json.corrupt-<ms>`). A `contentHash` that does not match
its body is corrected silently (the original's values cannot be verified).
"""

from __future__ import annotations

import threading
import uuid
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path

from idea.domain.errors import CorruptFileError
from idea.domain.knowledge.skill import BODIES_DIR, INDEX_FILE, SKILLS_DIR, SkillIndex, body_hash, parse_index
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_json, atomic_write_text, quarantine, read_json, read_text, remove_if_present
from idea.infrastructure.stores.document_file import path_lock


@dataclass
class SkillScan:
    index: SkillIndex
    bodies: dict[str, str] = field(default_factory=dict)  # skill id -> body
    problems: list[str] = field(default_factory=list)


class JsonSkillStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._index_path = directory / INDEX_FILE

    @classmethod
    def for_project(cls, project_root: str) -> JsonSkillStore:
        return cls(Path(project_root) / IDEAI_DIR / SKILLS_DIR)

    @classmethod
    def global_(cls, user_data_dir: Path) -> JsonSkillStore:
        return cls(user_data_dir / SKILLS_DIR)

    def lock(self) -> AbstractContextManager[object]:
        lock: threading.RLock = path_lock(self._index_path)
        return lock

    def scan(self) -> SkillScan:
        """The index with every body, hashes corrected; problems as `file:entry: why`."""
        with self.lock():
            problems: list[str] = []
            try:
                data = read_json(self._index_path)
            except CorruptFileError as exc:
                return SkillScan(SkillIndex(), problems=[exc.message])
            if data is None:
                return SkillScan(SkillIndex())
            try:
                parsed = parse_index(data)
            except ValueError as exc:
                error = quarantine(self._index_path, str(exc))
                return SkillScan(SkillIndex(), problems=[error.message])
            problems.extend(f"{self._index_path}: entry {p.line}: {p.message}" for p in parsed.problems)
            index = parsed.index
            bodies: dict[str, str] = {}
            corrected = False
            for record in index.skills:
                try:
                    body = self.read_body(record.id)
                except CorruptFileError as exc:
                    problems.append(exc.message)
                    body = None
                if body is None:
                    problems.append(f"{self.body_path(record.id)}: the body of skill {record.name!r} is missing")
                    body = ""
                bodies[record.id] = body
                if record.content_hash != body_hash(body):
                    index = index.with_record(replace(record, content_hash=body_hash(body)))
                    corrected = True
            if corrected:
                atomic_write_json(self._index_path, index.to_json())
            return SkillScan(index, bodies, problems)

    def body_path(self, skill_id: str) -> Path:
        return self.directory / BODIES_DIR / f"{uuid.UUID(skill_id)}.md"

    def read_body(self, skill_id: str) -> str | None:
        path = self.body_path(skill_id)
        with path_lock(path):
            return read_text(path)

    def write(self, index: SkillIndex, skill_id: str | None = None, body: str | None = None) -> None:
        """The body first (an index never names a body that was not written), then the index."""
        with self.lock():
            if skill_id is not None and body is not None:
                path = self.body_path(skill_id)
                with path_lock(path):
                    atomic_write_text(path, body)
            atomic_write_json(self._index_path, index.to_json())

    def delete_body(self, skill_id: str) -> None:
        path = self.body_path(skill_id)
        with path_lock(path):
            remove_if_present(path)
