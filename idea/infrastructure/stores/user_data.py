"""settings.json, projects.json and workspace.json in the user-data directory."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from idea.domain.documents import CamelDocument
from idea.domain.project import ProjectRegistry
from idea.domain.workspace import Settings, Workspace
from idea.infrastructure.fs import atomic_write_json, quarantine, read_json

D = TypeVar("D", bound=CamelDocument)


class JsonUserDataStore:
    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._lock = threading.Lock()

    def load_settings(self) -> Settings:
        return self._load("settings.json", Settings)

    def save_settings(self, settings: Settings) -> None:
        self._save("settings.json", settings)

    def load_projects(self) -> ProjectRegistry:
        return self._load("projects.json", ProjectRegistry)

    def save_projects(self, registry: ProjectRegistry) -> None:
        self._save("projects.json", registry)

    def load_workspace(self) -> Workspace:
        return self._load("workspace.json", Workspace)

    def save_workspace(self, workspace: Workspace) -> None:
        self._save("workspace.json", workspace)

    def _load(self, name: str, kind: type[D]) -> D:
        path = self._directory / name
        with self._lock:
            data = read_json(path)
            if data is None:
                return kind()
            try:
                return kind.from_json(data)
            except ValidationError as exc:
                raise quarantine(path, _first_error(exc)) from exc

    def _save(self, name: str, document: CamelDocument) -> None:
        with self._lock:
            atomic_write_json(self._directory / name, document.to_json())


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "document"
    return f"{where}: {error['msg']}"
