"""The agent screens every window opens from its Agents menu and dock: the Agents panel, the first-run
wizard, Agents ▸ Profiles, Agents ▸ Templates, Agents ▸ Permissions and the run-folder trust setting.
Built once by the window manager with what they need of the application."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.templates import TemplateCatalogue
from idea.application.permissions.service import PermissionService
from idea.application.projects import ProjectRuntime
from idea.ui.agents.agents_panel import AgentsPanel
from idea.ui.agents.team_model import AgentsPanelHost
from idea.ui.core_client import CoreClient
from idea.ui.permissions.panel import open_permissions
from idea.ui.profiles.first_run_wizard import FirstRunWizard
from idea.ui.profiles.profile_editor import ProfileEditor
from idea.ui.templates.template_manager import TemplateManager


class AgentScreens:
    def __init__(
        self,
        client: CoreClient,
        profiles: ProfileCatalogue,
        templates: TemplateCatalogue,
        permissions: PermissionService,
        open_runtimes: Callable[[], Iterable[ProjectRuntime]],
        profiles_changed: Callable[[], None],
    ) -> None:
        self._client = client
        self._profiles = profiles
        self._templates = templates
        self._permissions = permissions
        self._open_runtimes = open_runtimes
        self._profiles_changed = profiles_changed  # the open panels read profiles and templates again

    def agents_panel(self, host: AgentsPanelHost, parent: QWidget) -> AgentsPanel:
        return AgentsPanel(self._client, self._profiles, self._templates, host, parent)

    def open_setup_wizard(self, parent: QWidget) -> None:
        wizard = FirstRunWizard(self._client, self._profiles, self._open_runtimes, parent)
        wizard.finished.connect(lambda _result: self._profiles_changed())
        wizard.open()

    def open_profile_editor(
        self, parent: QWidget, current_project: Callable[[], ProjectRuntime | None] = lambda: None
    ) -> None:
        """`current_project()`: the window's project, where a profile's Test runs."""
        editor = ProfileEditor(self._client, self._profiles, self._open_runtimes, parent, current_project)
        editor.finished.connect(lambda _result: self._profiles_changed())
        editor.open()

    def open_template_manager(self, parent: QWidget) -> None:
        dialog = TemplateManager(self._client, self._templates, self._open_runtimes, parent, profiles=self._profiles)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.templatesChanged.connect(self._profiles_changed)
        dialog.open()

    def open_permissions(self, runtime: ProjectRuntime, parent: QWidget) -> None:
        open_permissions(self._client, self._permissions, runtime, parent)
