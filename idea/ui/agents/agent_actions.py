"""The Agents panel's actions: one QAction per gesture (also in the window's Agents menu), the panel's
toolbar, its "more" and context menus, and which actions the selected agent allows."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QSizePolicy, QToolBar, QToolButton, QWidget

from idea.application.agents.agent_rows import AgentRow
from idea.application.agents.profiles import ProfileCatalogue
from idea.ui import icons
from idea.ui.agents.run_gestures import RunGestures
from idea.ui.agents.team_gestures import TeamGestures
from idea.ui.agents.team_model import TeamModel
from idea.ui.agents.worktree_gestures import WorktreeGestures


class AgentActions:
    def __init__(
        self,
        panel: QWidget,
        model: TeamModel,
        selected: Callable[[], AgentRow | None],
        run: RunGestures,
        team: TeamGestures,
        profiles: ProfileCatalogue,
        worktrees: WorktreeGestures,
    ) -> None:
        self._panel = panel
        self._worktrees = worktrees
        self._model = model
        self._selected = selected
        self._run = run
        self._team = team
        self._profiles = profiles
        self._iconed: list[tuple[QAction | QToolButton, str]] = []
        self._build_run_actions()
        self._build_team_actions()
        self.change_profile_menu = QMenu("Change profile", panel)
        self.change_profile_menu.aboutToShow.connect(self.fill_profile_menu)
        self.more_menu = QMenu(panel)
        self.more_menu.aboutToShow.connect(lambda: self.fill_menu(self.more_menu))

    def _action(self, text: str, slot: Callable[[], object], icon: str | None = None, shortcut: str | None = None,
                tip: str | None = None) -> QAction:
        created = QAction(text, self._panel)
        if icon:
            self._iconed.append((created, icon))
        if shortcut:
            created.setShortcut(QKeySequence(shortcut))
            # Only while the panel has the focus: the terminals keep every key they need.
            created.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self._panel.addAction(created)
        created.setToolTip(tip or text.rstrip("…"))
        created.triggered.connect(lambda _checked=False: slot())
        return created

    def _build_run_actions(self) -> None:
        run, action = self._run, self._action
        self.launch_here_action = action(
            "Launch here", run.launch_here, tip="Launch in the active cell (an idle shell there gives way)"
        )
        self.launch_split_action = action(
            "Launch in new split", run.launch_in_new_split, tip="Split the active cell and launch there"
        )
        self.launch_background_action = action(
            "Launch in background", run.launch_in_background, tip="Launch without showing it in a cell"
        )
        self.stop_action = action("Stop", run.stop, "stop", tip="Stop the agent's process")
        self.sign_in_action = action(
            "Sign in…", run.sign_in,
            tip="Run its CLI's sign-in in a cell beside it (Codex: codex login, shared by every Codex agent)",
        )
        self.restart_action = action(
            "Restart to apply", run.restart_to_apply, "restart",
            tip="Its context changed since it started: stop it and start it again where it runs, with its "
                "current persona, skills, project context and profile",
        )
        self.attach_action = action(
            "Attach to active cell", run.attach_to_active_cell, "attach",
            tip="Show this background agent in the active cell",
        )
        self.background_action = action(
            "Send to background", run.send_to_background, "background", tip="Free its cell; it keeps running"
        )
        self.focus_action = action("Focus", run.focus, "focus", tip="Go to the agent's cell")
        self.conversation_action = action(
            "Open conversation", run.open_conversation,
            tip="Read your conversation with the agent: every task and reply, newest last",
        )
        self.send_task_action = action(
            "Send task…", run.send_task, "send",
            tip="Send a task to the agent: typed into its terminal after its queue (a stopped agent is started)",
        )
        self.interrupt_action = action(
            "Interrupt", run.interrupt, "interrupt",
            tip="Press Esc in the agent's terminal to stop its current turn (its queue stays)",
        )
        self.cancel_resume_action = action(
            "Cancel resume", run.cancel_resume,
            tip="Do not resume this agent automatically when its usage limit lifts",
        )
        self.resume_now_action = action(
            "Resume now", run.resume_now, tip="Give the agent its resume prompt now, without waiting for the reset",
        )

    def _build_team_actions(self) -> None:
        team, action = self._team, self._action
        self.new_agent_action = action("New agent…", team.new_agent, "new-agent", tip="Create an agent")
        self.persona_action = action("Edit persona…", team.edit_persona, "persona", tip="Edit the agent's role")
        self.rename_action = action("Rename…", team.rename, shortcut="F2")
        self.save_template_action = action("Save as template…", team.save_as_template)
        self.update_template_action = action("Update from template…", team.update_from_template)
        self.orchestrator_action = action("Set as orchestrator", team.set_as_orchestrator)
        self.run_dir_action = action("Open run dir", team.open_run_dir, tip="Open the agent's private run directory")
        self.worktree_action = action(
            "Run in its own worktree", self._worktrees.toggle,
            tip="Work on its own branch (idea/<name>) in its own folder beside the repository",
        )
        self.worktree_action.setCheckable(True)
        self.delete_action = action("Delete…", team.delete, shortcut="Delete")

    def toolbar(self, activate_selected: Callable[[], None]) -> QToolBar:
        bar = QToolBar()
        bar.setIconSize(QSize(16, 16))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        bar.addAction(self.new_agent_action)
        bar.addSeparator()
        launch_menu = QMenu(self._panel)
        launch_menu.addActions([self.launch_here_action, self.launch_split_action, self.launch_background_action])
        self.launch_button = QToolButton()
        self._iconed.append((self.launch_button, "launch"))
        self.launch_button.setToolTip("Show or launch the selected agent (like a double-click)")
        self.launch_button.setAccessibleName("Show or launch the selected agent")
        self.launch_button.setMenu(launch_menu)
        self.launch_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.launch_button.clicked.connect(activate_selected)
        bar.addWidget(self.launch_button)
        for shown in (self.stop_action, self.send_task_action, self.focus_action, self.attach_action,
                      self.background_action, self.persona_action):
            bar.addAction(shown)
        more = QToolButton()
        self._iconed.append((more, "more"))
        more.setToolTip("More actions")
        more.setAccessibleName("More actions")
        more.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        more.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0; }")
        more.setMenu(self.more_menu)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        bar.addWidget(more)
        self.apply_icons()
        return bar

    def apply_icons(self) -> None:
        """Icons are drawn in the palette's text colour: again when the theme changes."""
        for holder, name in self._iconed:
            holder.setIcon(self._icon(name))

    def fill_menu(self, menu: QMenu) -> None:
        self.update()
        row = self._selected()
        menu.clear()
        menu.addActions([self.focus_action, self.conversation_action])
        menu.addActions([self.launch_here_action, self.launch_split_action, self.launch_background_action])
        menu.addAction(self.stop_action)
        if row is not None and row.context_text:
            menu.addAction(self.restart_action)
        if row is not None and row.can_sign_in:
            menu.addAction(self.sign_in_action)
        menu.addSeparator()
        menu.addActions([self.send_task_action, self.interrupt_action])
        limit = row.activity.limit if row is not None else None
        if limit is not None:
            menu.addActions([self.cancel_resume_action, self.resume_now_action])
        menu.addSeparator()
        menu.addActions([self.attach_action, self.background_action])
        menu.addSeparator()
        menu.addAction(self.persona_action)
        menu.addMenu(self.change_profile_menu)
        menu.addAction(self.rename_action)
        menu.addAction(self.worktree_action)
        menu.addSeparator()
        menu.addActions([self.save_template_action, self.update_template_action])
        menu.addAction(self.orchestrator_action)
        menu.addAction(self.run_dir_action)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.addSeparator()
        menu.addAction(self.new_agent_action)

    def fill_profile_menu(self) -> None:
        row = self._selected()
        fill_profile_choices(self.change_profile_menu, self._profiles, row.profile_id if row else None,
                             self._team.change_profile)

    def update(self) -> None:
        """Enable what the selected agent, the project and the window's active cell allow."""
        row, model = self._selected(), self._model
        selected = row is not None
        live = row is not None and row.is_live
        target = model.active_cell()
        cell_usable = target is not None and not model.cell_hosts_other_agent(target, row)
        self.new_agent_action.setEnabled(model.runtime is not None)
        self.launch_here_action.setEnabled(selected and not live and cell_usable)
        self.launch_split_action.setEnabled(selected and not live and model.split_target() is not None)
        self.launch_background_action.setEnabled(selected and not live)
        self.launch_button.setEnabled(selected)
        self.stop_action.setEnabled(live)
        self.restart_action.setEnabled(row is not None and bool(row.context_text))
        self.sign_in_action.setEnabled(row is not None and row.can_sign_in)
        if row is not None and row.sign_in is not None:
            self.sign_in_action.setText(f"Sign in to {row.sign_in.cli}…")
        self.restart_action.setToolTip(row.context_change_text if row is not None and row.context_text
                                       else "Restart the agent so that it reads its changed context")
        self.attach_action.setEnabled(row is not None and row.in_background and cell_usable)
        self.background_action.setEnabled(row is not None and row.in_cell)
        self.focus_action.setEnabled(row is not None and row.in_cell)
        self.conversation_action.setEnabled(selected)
        self.send_task_action.setEnabled(row is not None and not row.profile_missing)
        self.interrupt_action.setEnabled(live)
        limit = row.activity.limit if row is not None else None
        self.cancel_resume_action.setEnabled(limit is not None and limit.fire_at_ms is not None)
        self.resume_now_action.setEnabled(limit is not None)
        for each in (self.persona_action, self.rename_action, self.save_template_action):
            each.setEnabled(selected)
        self.change_profile_menu.setEnabled(selected)
        self.update_template_action.setEnabled(row is not None and row.has_template_update)
        self.orchestrator_action.setEnabled(row is not None and not row.is_orchestrator)
        self.run_dir_action.setEnabled(row is not None and os.path.isdir(model.run_dir(row.agent_id)))
        self._update_worktree_action(row)
        self.delete_action.setEnabled(selected and not live)
        self.delete_action.setToolTip("Delete the agent" if not live else "Stop the agent before deleting it")

    def _update_worktree_action(self, row: AgentRow | None) -> None:
        runtime = self._model.runtime
        worktree = self._worktrees.worktree_of(runtime, row)
        self.worktree_action.setChecked(worktree is not None)
        self.worktree_action.setEnabled(row is not None and runtime is not None and runtime.worktrees.available)
        if worktree is not None:
            self.worktree_action.setToolTip(f"Works on {worktree.branch} in {worktree.path}; uncheck to work in "
                                            "the main tree (the worktree is removed, the branch stays)")
        else:
            self.worktree_action.setToolTip("Work on its own branch (idea/<name>) in its own folder beside the "
                                            "repository; IdeA's shared files stay in the main project")

    def _icon(self, name: str) -> QIcon:
        return icons.in_palette(name, self._panel.palette())


def fill_profile_choices(
    menu: QMenu, profiles: ProfileCatalogue, current: str | None, choose: Callable[[str], None]
) -> None:
    """"Change profile ▸": every profile, the agent's own checked; `choose` gets the chosen profile's id."""
    menu.clear()
    group = QActionGroup(menu)
    for profile in profiles.profiles():
        choice = menu.addAction(profile.name)
        choice.setCheckable(True)
        choice.setChecked(profile.id == current)
        group.addAction(choice)
        choice.triggered.connect(lambda _checked=False, p=profile.id: choose(p))
    if menu.isEmpty():
        menu.addAction("No profile set up").setEnabled(False)
