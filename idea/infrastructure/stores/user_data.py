"""settings.json, projects.json and workspace.json in the user-data directory."""

from __future__ import annotations

from pathlib import Path

from idea.domain.project import ProjectRegistry
from idea.domain.workspace import Settings, Workspace
from idea.infrastructure.stores.document_file import DocumentFile


class JsonUserDataStore:
    def __init__(self, directory: Path) -> None:
        self._settings = DocumentFile(directory / "settings.json", Settings, salvage=True)
        self._projects = DocumentFile(directory / "projects.json", ProjectRegistry, salvage=True)
        self._workspace = DocumentFile(directory / "workspace.json", Workspace, salvage=True)

    def load_settings(self) -> Settings:
        return self._settings.load()

    def save_settings(self, settings: Settings) -> None:
        self._settings.save(settings)

    def load_projects(self) -> ProjectRegistry:
        return self._projects.load()

    def save_projects(self, registry: ProjectRegistry) -> None:
        self._projects.save(registry)

    def load_workspace(self) -> Workspace:
        return self._workspace.load()

    def save_workspace(self, workspace: Workspace) -> None:
        self._workspace.save(workspace)
