"""The Permissions panel (spec 06 §10): project defaults and per-agent overrides, presets, the effective view
with its test box, the warnings, enforcement status per agent, and — when a running agent's permissions
change — what applies now and what at its next launch."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from idea.application.permissions.service import PermissionService, PermissionsOverview, SaveResult
from idea.application.agents.permission_team import restart_to_apply, team_overview
from idea.domain.errors import AppError
from idea.domain.permissions.model import PermissionSet
from idea.domain.permissions.summary import SAME_USER_LIMIT
from idea.domain.permissions.sandbox import EnforcementLevel
from idea.ui.core_client import CoreClient
from idea.ui.permissions.effective_view import STATUS_COLORS, EffectiveView
from idea.ui.permissions.rules_editor import RulesEditor
from idea.ui.theme import palette_colors
from idea.ui.widgets.window_size import size_within_screen

if TYPE_CHECKING:
    from idea.application.projects import ProjectRuntime

PROJECT_ITEM = "__project__"


class PermissionsDialog(QDialog):
    def __init__(
        self, client: CoreClient, service: PermissionService, runtime: ProjectRuntime, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._client = client
        self._service = service
        self._runtime = runtime
        self._overview: PermissionsOverview | None = None
        self._scope: str = PROJECT_ITEM
        self._dirty = False
        self.setWindowTitle(f"Permissions — {runtime.name}")
        size_within_screen(self, 1180, 820)
        column = QVBoxLayout(self)

        self.system = QLabel("Checking what this system can enforce…")
        self.system.setWordWrap(True)
        column.addWidget(self.system)
        self.problems = QLabel("")
        self.problems.setWordWrap(True)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems.setStyleSheet("background: rgba(217,83,79,0.12); border: 1px solid #d9534f; padding: 6px;")
        self.problems.hide()
        column.addWidget(self.problems)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        self.scopes = QListWidget()
        self.scopes.setAccessibleName("Project defaults and agents")
        self.scopes.setMinimumWidth(260)
        self.scopes.setWordWrap(True)
        self.scopes.currentItemChanged.connect(self._scope_changed)
        splitter.addWidget(self.scopes)

        editor_side = _ScrolledSide()
        editor_column = QVBoxLayout(editor_side)
        editor_column.setContentsMargins(6, 0, 0, 0)
        self.scope_title = QLabel("")
        self.scope_title.setObjectName("SectionTitle")
        editor_column.addWidget(self.scope_title)
        self.enabled = QCheckBox("")
        self.enabled.hide()  # until a scope is shown: it says what it turns on
        self.enabled.toggled.connect(self._enabled_toggled)
        editor_column.addWidget(self.enabled)
        self.editor = RulesEditor()
        self.editor.changed.connect(self._edited)
        editor_column.addWidget(self.editor, 1)
        actions = QHBoxLayout()
        self.impact = QLabel("")
        self.impact.setWordWrap(True)
        self.impact.setObjectName("ImpactMessage")
        actions.addWidget(self.impact, 1)
        self.restart = QPushButton("Restart now")
        self.restart.hide()
        self.restart.clicked.connect(self._restart)
        actions.addWidget(self.restart)
        self.revert = QPushButton("Revert")
        self.revert.clicked.connect(self._show_scope)
        actions.addWidget(self.revert)
        self.save = QPushButton("Save")
        self.save.setDefault(True)
        self.save.clicked.connect(self._save)
        actions.addWidget(self.save)
        editor_column.addLayout(actions)
        self.effective = EffectiveView()
        self.effective.hide()  # an agent's scope shows it, once loaded
        editor_column.addWidget(self.effective)
        # On a short screen the rules and the effective view scroll rather than squeeze into each other.
        editor_scroll = QScrollArea()
        editor_scroll.setWidgetResizable(True)
        editor_scroll.setFrameShape(QFrame.Shape.NoFrame)
        editor_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        editor_scroll.setWidget(editor_side)
        splitter.addWidget(editor_scroll)
        splitter.setStretchFactor(1, 1)
        column.addWidget(splitter, 1)

        bottom = QHBoxLayout()
        self.reload = QPushButton("Reload from disk")
        self.reload.setToolTip(".ideai/permissions.json is read again (after you edited it by hand).")
        self.reload.clicked.connect(self.refresh)
        bottom.addWidget(self.reload)
        bottom.addStretch(1)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        bottom.addWidget(close)
        column.addLayout(bottom)
        self._restart_agent: str | None = None
        self.refresh()

    # -- loading --

    def refresh(self) -> None:
        self._client.call(self._team_overview(), self._loaded)

    async def _team_overview(self) -> PermissionsOverview:
        runtime = self._runtime
        return await team_overview(self._service, runtime.root, runtime.agents, runtime.runner)

    def _loaded(self, overview: PermissionsOverview) -> None:
        self._overview = overview
        system = overview.system
        color = STATUS_COLORS[system.level]
        meaning = {
            EnforcementLevel.ENFORCED: "file rules are enforced by the operating system; command rules are advisory",
            EnforcementLevel.DEGRADED: "file rules are enforced only partly; command rules are advisory",
        }.get(system.level, "file and command rules are advisory only")
        self.system.setText(
            f"This system: <b style='color:{color}'>{system.label()}</b> ({system.detail}) — {meaning}.<br>"
            f"<span style='color:{palette_colors(self).muted}'>{html.escape(SAME_USER_LIMIT)}</span>"
        )
        self._show_problems(overview)
        current = self._scope
        self.scopes.blockSignals(True)
        self.scopes.clear()
        project = QListWidgetItem("Project defaults")
        project.setData(Qt.ItemDataRole.UserRole, PROJECT_ITEM)
        self.scopes.addItem(project)
        for view in overview.agents:
            policy = view.policy
            badge = "will not start" if policy.blocker else policy.status.label()
            running = " · running" if view.running else ""
            if view.restart_to_apply:
                running = " · restart to apply"
            own = "" if view.override is None else " · own rules"
            item = QListWidgetItem(f"{view.name} — {badge}{running}{own}")
            item.setData(Qt.ItemDataRole.UserRole, view.agent_id)
            item.setToolTip(f"{view.profile_name}: {policy.status.detail or policy.status.label()}")
            self.scopes.addItem(item)
        rows = [self.scopes.item(row).data(Qt.ItemDataRole.UserRole) for row in range(self.scopes.count())]
        self._scope = current if current in rows else PROJECT_ITEM
        self.scopes.setCurrentRow(rows.index(self._scope))
        self.scopes.blockSignals(False)
        self._show_scope()

    def _show_problems(self, overview: PermissionsOverview) -> None:
        reading = overview.reading
        if reading.unreadable is not None:
            self.problems.setText(
                f"<b>.ideai/permissions.json cannot be read</b>: {reading.unreadable}.<br>No agent starts until it "
                "is fixed (the file is left as it is). Fix it and press Reload, or save a new policy here (the "
                "file is then kept beside it as permissions.json.before-…)."
            )
        elif reading.problems:
            lines = "".join(
                f"<li><code>{problem.location}</code>: {problem.message}"
                f"{' — <b>blocks ' + self._who(problem.blocks) + '</b>' if problem.blocks else ''}</li>"
                for problem in reading.problems
            )
            self.problems.setText(
                "<b>.ideai/permissions.json has problems.</b> The valid part is used; an agent a problem could "
                f"loosen does not start. The file is not changed until you save here.<ul>{lines}</ul>"
            )
        self.problems.setVisible(reading.has_problems)

    def _who(self, blocks: str) -> str:
        if blocks == "*":
            return "every agent"
        view = self._overview.agent(blocks) if self._overview else None
        return view.name if view else f"agent {blocks}"

    # -- the selected scope --

    def _scope_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is None:
            return
        if self._dirty and not self._confirm_discard():
            return
        self._scope = current.data(Qt.ItemDataRole.UserRole)
        self.impact.setText("")
        self.restart.hide()
        self._show_scope()

    def _confirm_discard(self) -> bool:
        answer = QMessageBox.question(self, "Unsaved permissions", "Discard the changes you have not saved?")
        return answer == QMessageBox.StandardButton.Yes

    def _show_scope(self) -> None:
        overview = self._overview
        if overview is None:
            return
        document = overview.reading.document
        if self._scope == PROJECT_ITEM:
            permissions = document.project_defaults
            self.scope_title.setText("<h3>Project defaults</h3>")
            self.enabled.setText("Set a project policy (off: IdeA writes no permission settings; each CLI asks as usual)")
            self.effective.show_agent(None, overview.root)
            self.effective.hide()
        else:
            view = overview.agent(self._scope)
            if view is None:
                self._scope = PROJECT_ITEM
                self._show_scope()
                return
            permissions = view.override
            self.scope_title.setText(f"<h3>{view.name}</h3>")
            self.enabled.setText(f"Give {view.name} its own rules (added to the project defaults; deny wins)")
            self.effective.show_agent(view, overview.root)
            self.effective.show()
        self.enabled.blockSignals(True)
        self.enabled.setChecked(permissions is not None)
        self.enabled.blockSignals(False)
        self.enabled.show()
        self.editor.set_permissions(permissions)
        self.editor.setEnabled(permissions is not None)
        self._dirty = False
        self._update_buttons()

    def _enabled_toggled(self, on: bool) -> None:
        self.editor.setEnabled(on)
        self._edited()

    def _edited(self) -> None:
        self._dirty = True
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.save.setEnabled(self._dirty and not (self.enabled.isChecked() and self.editor.problems()))
        self.revert.setEnabled(self._dirty)

    # -- saving --

    def _save(self) -> None:
        overview = self._overview
        if overview is None:
            return
        permissions: PermissionSet | None = self.editor.permissions() if self.enabled.isChecked() else None
        if overview.reading.has_problems and not self._confirm_overwrite():
            return
        before = {view.agent_id: view for view in overview.agents}
        if self._scope == PROJECT_ITEM:
            saving = self._service.update_project_defaults(overview.root, permissions)
        else:
            saving = self._service.update_agent_permissions(overview.root, self._scope, permissions)

        async def save_and_reload() -> tuple[SaveResult, PermissionsOverview]:
            result = await saving
            return result, await self._team_overview()

        def saved(outcome: tuple[SaveResult, PermissionsOverview]) -> None:
            result, after = outcome
            self._dirty = False
            self._loaded(after)
            self._report_impact(before, after, result)

        self._client.call(save_and_reload(), saved, self._failed)

    def _confirm_overwrite(self) -> bool:
        answer = QMessageBox.question(
            self,
            "Replace permissions.json",
            "permissions.json has problems. Saving writes the policy as shown here: the entries IdeA could not "
            "read are left out. Your file is kept beside it as permissions.json.before-…\n\nSave?",
        )
        return answer == QMessageBox.StandardButton.Yes

    def _report_impact(self, before: dict, after: PermissionsOverview, result: SaveResult) -> None:  # type: ignore[type-arg]
        messages = []
        restartable = []
        for view in after.agents:
            previous = before.get(view.agent_id)
            if previous is None:
                continue
            impact = self._service.change_impact(previous.policy, view.policy, view.running)
            if impact is not None and view.running:
                messages.append(f"<b>{view.name}</b> is running. {impact.message(view.name)}".replace("\n", "<br>"))
                restartable.append(view)
        if result.kept_previous_as:
            messages.append(f"Your previous file was kept as {result.kept_previous_as}.")
        self.impact.setText("<br>".join(messages) or "Saved. The new rules apply at each agent's next launch.")
        self._restart_agent = restartable[0].agent_id if len(restartable) == 1 else None
        self.restart.setText(f"Restart {restartable[0].name} now" if len(restartable) == 1 else "Restart now")
        self.restart.setVisible(len(restartable) == 1)

    def _restart(self) -> None:
        if self._restart_agent is None:
            return
        self.restart.setEnabled(False)

        def done(_result: object) -> None:
            self.restart.setEnabled(True)
            self.restart.hide()
            self.impact.setText("Restarted under the new policy.")
            self.refresh()

        self._client.call(restart_to_apply(self._runtime.placement, self._restart_agent), done, self._failed)

    def _failed(self, error: BaseException) -> None:
        self.restart.setEnabled(True)
        message = error.message if isinstance(error, AppError) else str(error)
        QMessageBox.warning(self, "Permissions", message)


def open_permissions(client: CoreClient, service: PermissionService, runtime: ProjectRuntime, parent: QWidget) -> None:
    """Agents ▸ Permissions…: one window per call, deleted when closed."""
    dialog = PermissionsDialog(client, service, runtime, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()


class _ScrolledSide(QWidget):
    """The editor side inside its scroll area: it scrolls only below its minimum height. (With word-wrapped
    labels its layout has a height for width, the preferred one, which the scroll area would take as the least
    height, and scroll even on a tall screen.)"""

    def heightForWidth(self, _width: int) -> int:
        return self.minimumSizeHint().height()
