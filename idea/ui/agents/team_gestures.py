"""The Agents panel's gestures on the team itself: create an agent, edit its persona, change its profile,
rename it, save it as a template or update it from one, make it the orchestrator, open its run directory,
delete it. Each is one use case of the team catalogue (a profile change of a running agent, of the
placement service; creating or deleting an agent that has its own worktree, of `runtime.worktrees`)."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices

from idea.application.agents.profiles import ProfileCatalogue
from idea.application.agents.template_editing import template_names
from idea.application.agents.templates import TemplateCatalogue
from idea.application.projects import ProjectRuntime
from idea.domain.ids import AgentId
from idea.ui.agents.gestures import GestureContext
from idea.ui.agents.name_field import RenameAgentDialog
from idea.ui.agents.new_agent_dialog import NewAgentDialog
from idea.ui.agents.persona_editor import PersonaEditor
from idea.ui.agents.worktree_gestures import WorktreeGestures
from idea.ui.templates.save_template_dialog import SaveTemplateDialog
from idea.ui.templates.template_update_dialog import TemplateUpdateDialog
from idea.ui.widgets.messages import ask, show_error


class TeamGestures:
    def __init__(
        self,
        context: GestureContext,
        profiles: ProfileCatalogue,
        templates: TemplateCatalogue,
        created: Callable[[AgentId], None],
        worktrees: WorktreeGestures,
    ) -> None:
        self._ctx = context
        self._worktrees = worktrees
        self._profiles = profiles
        self._templates = templates
        self._created = created  # select the new agent in the list
        self.persona_editors: dict[AgentId, PersonaEditor] = {}

    def new_agent(self) -> NewAgentDialog | None:
        runtime = self._ctx.model.runtime
        if runtime is None:
            return None
        dialog = NewAgentDialog(self._ctx.client, runtime, self._profiles, self._templates, self._ctx.widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.created.connect(lambda entry: self._announce_created(entry.agent_id, entry.name))
        dialog.worktreeMade.connect(lambda outcome: self._worktrees.show_outcome(runtime, outcome))
        dialog.open()
        return dialog

    def edit_persona(self) -> None:
        selection = self._ctx.selection()
        if selection is None:
            return
        row, runtime = selection
        open_editor = self.persona_editors.get(row.agent_id)
        if open_editor is not None:
            open_editor.raise_()
            open_editor.activateWindow()
            return
        self._ctx.run(
            f"Cannot open {row.name}'s persona",
            runtime.agents.read_persona(row.agent_id),
            lambda body: self._open_persona_editor(runtime, row.agent_id, body),
        )

    def close_persona_editors(self) -> None:
        for editor in list(self.persona_editors.values()):
            editor.close()

    def change_profile(self, profile_id: str, agent_id: AgentId | None = None) -> None:
        selection = self._ctx.selection(agent_id)
        if selection is None or profile_id == selection[0].profile_id:
            return
        row, runtime = selection
        new_name = self._profiles.profile(profile_id).name

        def change() -> None:
            self._ctx.run(f"Cannot change {row.name}'s profile",
                          runtime.placement.change_profile(row.agent_id, profile_id),
                          self._ctx.done(f"{row.name} now uses {new_name}"))

        if row.is_live:
            ask(self._ctx.widget, "Change profile", f"{row.name} is running.", "Restart with " + new_name, change,
                informative=f"It will be stopped and started again with {new_name} in the same place; "
                "its conversations carry over.")
        else:
            change()

    def rename(self) -> RenameAgentDialog | None:
        selection = self._ctx.selection()
        if selection is None:
            return None
        row, runtime = selection
        dialog = RenameAgentDialog(self._ctx.client, runtime, row.agent_id, self._ctx.widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def save_as_template(self) -> None:
        selection = self._ctx.selection()
        if selection is None:
            return
        row, runtime = selection

        def open_dialog(names: list[str]) -> None:
            dialog = SaveTemplateDialog(self._ctx.client, runtime, self._templates, row.agent_id, names,
                                        self._ctx.widget)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.accepted.connect(lambda: self._ctx.status(f"Template {dialog.name.text()} saved"))
            dialog.open()

        self._ctx.run("Cannot read the templates", template_names(self._templates), open_dialog)

    def update_from_template(self) -> TemplateUpdateDialog | None:
        selection = self._ctx.selection()
        if selection is None or not selection[0].has_template_update:
            return None
        row, runtime = selection
        agent_id, name, run = row.agent_id, row.name, self._ctx.run

        def load_diff(show: Callable[[str, str], None]) -> None:
            run("Cannot compare with the template", runtime.agents.template_comparison(agent_id),
                lambda pair: show(*pair))

        def take() -> None:
            run(f"Cannot update {name}", runtime.agents.pull_template(agent_id),
                self._ctx.done(f"{name}'s persona now follows its template"))

        def keep() -> None:
            run(f"Cannot keep {name}'s persona", runtime.agents.keep_persona(agent_id),
                self._ctx.done(f"{name} keeps its own persona"))

        dialog = TemplateUpdateDialog(name, row.template, load_diff, take, keep, self._ctx.widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def set_as_orchestrator(self) -> None:
        selection = self._ctx.selection()
        if selection is None:
            return
        row, runtime = selection
        self._ctx.run("Cannot change the orchestrator", runtime.agents.set_orchestrator(row.agent_id),
                      self._ctx.done(f"{row.name} is now the orchestrator"))

    def open_run_dir(self, agent_id: AgentId | None = None) -> None:
        row = self._ctx.model.row(agent_id or self._ctx.selected_agent())
        if row is None:
            return
        path = self._ctx.model.run_dir(row.agent_id)
        if not os.path.isdir(path):
            show_error(self._ctx.widget, "Open run dir",
                       f"{row.name} has no run directory yet: it is created at the first launch.")
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(path))

    def delete(self) -> None:
        selection = self._ctx.selection()
        if selection is None:
            return
        row, runtime = selection
        if row.is_live:
            show_error(self._ctx.widget, "Delete agent", f"{row.name} is running; stop it before deleting it.")
            return
        worktree = self._worktrees.worktree_of(runtime, row)
        if worktree is not None:
            self._worktrees.delete(row, runtime, worktree)
            return

        def deleted(kept: str | None) -> None:
            where = f" (persona kept as .ideai/{kept})" if kept else ""
            self._ctx.status(f"Agent {row.name} deleted{where}")

        ask(
            self._ctx.widget,
            "Delete agent",
            f"Delete the agent “{row.name}”?",
            "Delete",
            lambda: self._ctx.run(f"Cannot delete {row.name}", runtime.agents.delete(row.agent_id), deleted),
            informative="Its persona is kept in .ideai/agents/.deleted/ and can be restored; "
            "its conversations, handoffs and memory stay.",
            destructive=True,
        )

    def _announce_created(self, agent_id: AgentId, name: str) -> None:
        self._created(agent_id)
        self._ctx.status(f"Agent {name} created")

    def _open_persona_editor(self, runtime: ProjectRuntime, agent_id: AgentId, body: str) -> None:
        if runtime is not self._ctx.model.runtime or agent_id in self.persona_editors:
            return
        row = self._ctx.model.row(agent_id)
        editor = PersonaEditor(self._ctx.client, runtime, agent_id, body, running=row is not None and row.is_live,
                               parent=self._ctx.widget)
        editor.setWindowFlag(Qt.WindowType.Window)
        editor.saved.connect(self._ctx.done("Persona saved"))
        editor.destroyed.connect(lambda _obj=None, a=agent_id: self.persona_editors.pop(a, None))
        self.persona_editors[agent_id] = editor
        editor.show()
