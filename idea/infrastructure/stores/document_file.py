"""One JSON document file read into a domain model: a lock per path, atomic writes, broken files kept aside;
and the stores of a project's documents made of it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from idea.domain.documents import CamelDocument, without_entries
from idea.domain.errors import PartlyReadFileError
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_json, quarantine, read_json, set_aside

D = TypeVar("D", bound=CamelDocument)

_registry_lock = threading.Lock()
_path_locks: dict[Path, threading.RLock] = {}


def path_lock(path: Path) -> threading.RLock:
    """The lock serialising every store's access to `path` in this process (reentrant for updates)."""
    key = path.absolute()
    with _registry_lock:
        lock = _path_locks.get(key)
        if lock is None:
            lock = _path_locks[key] = threading.RLock()
        return lock


def describe_validation_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "document"
    return f"{where}: {error['msg'].removeprefix('Value error, ')}"  # the model's own sentence, without pydantic's tag


SALVAGE_ROUNDS = 3  # a trimmed document may show errors its broken entries hid


class DocumentFile(Generic[D]):
    """`salvage`: a file with entries that cannot be read keeps the rest (each broken list item, or top-level
    key, dropped; `PartlyReadFileError`) instead of being read as empty; for documents whose entries stand
    alone (settings, the windows, the recent projects, the profiles, the team)."""

    def __init__(self, path: Path, kind: type[D], empty: Callable[[], D] | None = None, *,
                 salvage: bool = False) -> None:
        self.path = path
        self._kind = kind
        self._empty = empty if empty is not None else kind
        self._salvage = salvage

    def load_or_none(self) -> D | None:
        """The document, None when the file does not exist; CorruptFileError when it cannot be read (moved aside
        first: nothing is overwritten)."""
        with path_lock(self.path):
            data: Any = read_json(self.path)
            if data is None:
                return None
            try:
                return self._kind.from_json(data)
            except ValidationError as exc:
                reason = describe_validation_error(exc)
                rest = self._rest(data, exc) if self._salvage else None
                # Nothing kept (the only entry was broken) reads as a broken file: its callers know what then.
                if rest is not None and rest != self._empty() and (kept_as := set_aside(self.path)) is not None:
                    self.save(rest)
                    raise PartlyReadFileError(str(self.path), reason, kept_as, rest) from exc
                raise quarantine(self.path, reason) from exc

    def _rest(self, data: Any, error: ValidationError) -> D | None:
        for _ in range(SALVAGE_ROUNDS):
            data = without_entries(data, [entry["loc"] for entry in error.errors()])
            if data is None:
                return None
            try:
                return self._kind.from_json(data)
            except ValidationError as again:
                error = again
        return None

    def load(self) -> D:
        document = self.load_or_none()
        return document if document is not None else self._empty()

    def save(self, document: D, mode: int | None = None) -> None:
        with path_lock(self.path):
            atomic_write_json(self.path, document.to_json(), mode)

    def update(self, change: Callable[[D], D]) -> D:
        with path_lock(self.path):
            updated = change(self.load())
            self.save(updated)
            return updated


class ProjectDocumentStore(Generic[D]):
    """The document each project keeps at `.ideai/<file_name>`, found by project root; absent, it reads as empty."""

    def __init__(self, file_name: str, kind: type[D], *, salvage: bool = False) -> None:
        self._file_name = file_name
        self._kind = kind
        self._salvage = salvage

    def path(self, root: str) -> Path:
        return Path(root) / IDEAI_DIR / self._file_name

    def load(self, root: str) -> D:
        return self._file(root).load()

    def save(self, root: str, document: D) -> None:
        self._file(root).save(document)

    def update(self, root: str, change: Callable[[D], D]) -> D:
        return self._file(root).update(change)

    def _file(self, root: str) -> DocumentFile[D]:
        return DocumentFile(self.path(root), self._kind, salvage=self._salvage)
