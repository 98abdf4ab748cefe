"""What the context menu of a cell offers on the agent it shows (spec 01 §8; its usage limit, spec 05 §10):
interrupt, stop, restart, send to the background, change its profile, open its conversation or its run
directory, copy its id, and for an agent held by a usage limit cancel or hasten its resume.

Every item but Restart (the cell's own gesture, passed in) and Copy agent id is the Agents panel's gesture on
that agent, named by its id instead of selected in the panel's list: the same use case, the same question
and the same status line, so a cell and the panel do the same thing."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu

from idea.application.agents.agent_rows import AgentRow
from idea.application.agents.profiles import ProfileCatalogue
from idea.domain.ids import AgentId
from idea.ui.agents.agent_actions import fill_profile_choices
from idea.ui.agents.run_gestures import RunGestures
from idea.ui.agents.team_gestures import TeamGestures
from idea.ui.agents.team_model import TeamModel
from idea.ui.icons import icon


class AgentCellMenu:
    def __init__(
        self, model: TeamModel, row: Callable[[AgentId], AgentRow | None], run: RunGestures, team: TeamGestures,
        profiles: ProfileCatalogue, status: Callable[[str], None],
    ) -> None:
        self._model = model
        self._row = row  # the panel's row: what the core's latest events said
        self._run = run
        self._team = team
        self._profiles = profiles
        self._status = status

    def fill_agent_menu(self, menu: QMenu, agent_id: AgentId, restart: Callable[[], None]) -> None:
        """The items on `agent_id`, which the cell whose menu this is shows; `restart` restarts that cell.
        Nothing is added for an agent the panel does not list (another project's)."""
        row = self._row(agent_id)
        if row is None:
            return
        add, run, name = menu.addAction, self._run, row.name
        add(f"Interrupt {name} (sends Esc)", lambda: run.interrupt(agent_id)).setEnabled(row.is_live)
        limit = row.activity.limit
        if limit is not None:
            cancel = add("Cancel resume", lambda: run.cancel_resume(agent_id))
            cancel.setEnabled(limit.fire_at_ms is not None)
            add("Resume now", lambda: run.resume_now(agent_id))
        add(f"Stop {name}", lambda: run.stop(agent_id)).setEnabled(row.is_live)
        add(icon("restart"), f"Restart {name}", restart)
        add("Send to background", lambda: run.send_to_background(agent_id)).setEnabled(row.in_cell)
        profiles = menu.addMenu("Change profile")
        fill_profile_choices(profiles, self._profiles, row.profile_id,
                             lambda profile_id: self._team.change_profile(profile_id, agent_id))
        menu.addSeparator()
        add("Open conversation", lambda: run.open_conversation(agent_id))
        run_dir = add("Open run dir", lambda: self._team.open_run_dir(agent_id))
        run_dir.setEnabled(os.path.isdir(self._model.run_dir(agent_id)))
        add("Copy agent id", lambda: self._copy_id(agent_id, name))

    def _copy_id(self, agent_id: AgentId, name: str) -> None:
        QGuiApplication.clipboard().setText(agent_id)
        self._status(f"{name}'s agent id copied: {agent_id}")
