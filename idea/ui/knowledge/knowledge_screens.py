"""The knowledge screens every window opens from its Knowledge menu: the work panel dock, and one window per
project for its Memory, Skills and Project context (proposals with their diff). Built once by the window
manager; project events reach the open screens through `on_event` (from the event relay)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QDockWidget, QMainWindow, QMenu, QVBoxLayout, QWidget

from idea.application.projects import ProjectRuntime
from idea.domain.events import ProjectClosed
from idea.ui.knowledge.common import Caller
from idea.ui.knowledge.context_view import ContextView
from idea.ui.knowledge.memory_view import MemoryView
from idea.ui.knowledge.skills_view import SkillsView
from idea.ui.knowledge.work_dock import WorkDock
from idea.ui.knowledge.work_gestures import WorkPanelHost
from idea.ui.widgets.window_size import size_within_screen

MEMORY, SKILLS, CONTEXT = "Memory", "Skills", "Project context"


class KnowledgeView(Protocol):
    def reload(self) -> None: ...

    def on_event(self, event: object) -> None: ...


class KnowledgeWindow(QDialog):
    """A project's Memory, Skills or Project context, beside its windows (not modal)."""

    def __init__(self, runtime: ProjectRuntime, kind: str, view: QWidget, parent: QWidget) -> None:
        super().__init__(parent)
        self.project_id = runtime.id
        self.kind = kind
        self.view = view
        self.setWindowTitle(f"{kind} — {runtime.name}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(view)
        size_within_screen(self, *{MEMORY: (980, 640), SKILLS: (980, 640), CONTEXT: (900, 720)}[kind])


class KnowledgeScreens:
    def __init__(self, client: Caller) -> None:
        self._client = client
        self._open: dict[tuple[str, str], KnowledgeWindow] = {}

    def work_dock(self, host: WorkPanelHost, window: QMainWindow, beside: QDockWidget) -> WorkDock:
        """The work panel in a dock, a tab beside `beside` (the Agents dock) so that the terminals keep their
        width; Knowledge ▸ Work panel shows it (in front) or hides it."""
        dock = WorkDock(self._client, host, window)
        window.tabifyDockWidget(beside, dock)
        dock.toggleViewAction().triggered.connect(lambda checked: dock.raise_() if checked else None)
        return dock

    def open_memory(self, runtime: ProjectRuntime, parent: QWidget) -> KnowledgeWindow:
        return self._open_window(runtime, MEMORY, parent, lambda: MemoryView(self._client, runtime.knowledge.memory))

    def open_skills(self, runtime: ProjectRuntime, parent: QWidget) -> KnowledgeWindow:
        return self._open_window(
            runtime, SKILLS, parent, lambda: SkillsView(self._client, runtime.knowledge.skills, runtime.agents.manifest)
        )

    def open_context(self, runtime: ProjectRuntime, parent: QWidget) -> KnowledgeWindow:
        return self._open_window(runtime, CONTEXT, parent, lambda: ContextView(self._client, runtime.knowledge.context))

    def build_menu(
        self, menu: QMenu, window: QWidget, dock: WorkDock, current: Callable[[], ProjectRuntime | None]
    ) -> None:
        """The window's Knowledge menu: the work panel, and the current project's memory, skills and
        shared context."""
        screens: list[tuple[str, str, Callable[[ProjectRuntime, QWidget], KnowledgeWindow]]] = [
            ("Memory…", "The project's durable notes: read, edit, delete", self.open_memory),
            ("Skills…", "Reusable procedures, and which agent gets which", self.open_skills),
            ("Project context…", "What every agent is told about the project; proposals to change it",
             self.open_context),
        ]
        opens: list[QAction] = []
        for text, tip, open_screen in screens:
            action = menu.addAction(text)
            action.setToolTip(tip)
            action.triggered.connect(
                lambda _checked=False, open_screen=open_screen: (runtime := current()) and open_screen(runtime, window)
            )
            opens.append(action)
        menu.addSeparator()
        work = dock.toggleViewAction()
        work.setText("Work panel")
        menu.addAction(work)
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(lambda: [action.setEnabled(current() is not None) for action in opens])

    def windows(self) -> list[KnowledgeWindow]:
        return list(self._open.values())

    def on_event(self, event: object) -> None:
        project_id = getattr(event, "project_id", None)
        for (owner, _kind), window in list(self._open.items()):
            if owner != project_id:
                continue
            if isinstance(event, ProjectClosed):
                window.close()
            else:
                view: KnowledgeView = window.view  # type: ignore[assignment]
                view.on_event(event)

    def _open_window(
        self, runtime: ProjectRuntime, kind: str, parent: QWidget, build: Callable[[], QWidget]
    ) -> KnowledgeWindow:
        key = (runtime.id, kind)
        window = self._open.get(key)
        if window is None:
            window = KnowledgeWindow(runtime, kind, build(), parent)
            window.destroyed.connect(lambda _object=None, key=key: self._open.pop(key, None))
            self._open[key] = window
            view: KnowledgeView = window.view  # type: ignore[assignment]
            view.reload()
        window.show()
        window.raise_()
        window.activateWindow()
        return window
