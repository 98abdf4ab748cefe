"""What the Git panel's actions use of the panel: the project's git, the widget their dialogs open from, and
how they report back (the panel builds one and gives it to its actions, which do not import the panel)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QWidget

from idea.domain.git.diff import DiffSpec
from idea.ui.git.git_client import GitClient


@dataclass(frozen=True)
class PanelContext:
    git: Callable[[], GitClient | None]  # the current project's git; None without a project
    widget: QWidget  # parent of dialogs
    show_message: Callable[[str], None]  # a success, in the panel and the status bar
    show_error: Callable[[str], None]  # a failure, in the panel and the status bar
    refresh: Callable[[], None]
    open_diff: Callable[[DiffSpec], object]
