"""The user's settings and the arrangement of windows and tabs, persisted in the user-data directory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from idea.application.ports import Diagnostics, EventPublisher, UserDataStore
from idea.domain.errors import CorruptFileError, PartlyReadFileError
from idea.domain.events import ProjectProblem
from idea.domain.workspace import Settings, Workspace

T = TypeVar("T")


class Preferences:
    def __init__(self, store: UserDataStore, events: EventPublisher, diagnostics: Diagnostics) -> None:
        self._store = store
        self._events = events
        self._diagnostics = diagnostics
        self.problems: list[str] = []  # told at start-up, before anyone listens to the events
        self._settings = self._load(store.load_settings, Settings)

    @property
    def settings(self) -> Settings:
        return self._settings

    def update_settings(self, **changes: Any) -> Settings:
        self._settings = self._settings.model_copy(update=changes)
        self._save(self._store.save_settings, self._settings)
        return self._settings

    def load_workspace(self) -> Workspace:
        return self._load(self._store.load_workspace, Workspace)

    def save_workspace(self, workspace: Workspace) -> None:
        self._save(self._store.save_workspace, workspace)

    def _load(self, load: Callable[[], T], default: Callable[[], T]) -> T:
        try:
            return load()
        except PartlyReadFileError as exc:
            self._tell(f"{exc.message}. The rest was read; what could not be read takes its default.")
            return exc.document  # type: ignore[no-any-return]
        except CorruptFileError as exc:
            self._tell(f"{exc.message}. Defaults are used instead.")
            return default()

    def _tell(self, message: str) -> None:
        self._diagnostics.beacon(f"[settings] {message}")
        self.problems.append(message)
        self._events.publish(ProjectProblem(None, message))

    def _save(self, save: Callable[[T], None], document: T) -> None:
        try:
            save(document)
        except OSError as exc:
            self._diagnostics.beacon(f"[settings] not saved: {exc}")
