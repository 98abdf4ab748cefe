"""What the user arranged: windows and their tabs (workspace.json) and preferences (settings.json)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from idea.domain.documents import CamelDocument
from idea.domain.ids import ProjectId
from idea.domain.spawn_env import DEFAULT_ENV_DENYLIST


class WindowState(CamelDocument):
    id: str
    geometry: str | None = None  # base64 of QWidget.saveGeometry()
    state: str | None = None  # base64 of QMainWindow.saveState()
    tabs: tuple[ProjectId, ...] = Field(default_factory=tuple)
    active_tab: ProjectId | None = None


class Workspace(CamelDocument):
    version: int = 1
    windows: tuple[WindowState, ...] = Field(default_factory=tuple)


class ColorScheme(StrEnum):
    DARK = "dark"
    LIGHT = "light"


class NewCellContent(StrEnum):
    SHELL = "shell"  # a new cell starts the user's login shell in the project root
    EMPTY = "empty"  # a new cell waits for the user to choose what runs in it


class TerminalFontSetting(CamelDocument):
    family: str | None = None  # None: the system's fixed-width font
    point_size: int = 11


class Settings(CamelDocument):
    version: int = 1
    first_run_completed: bool = False
    terminal_font: TerminalFontSetting = Field(default_factory=TerminalFontSetting)
    color_scheme: ColorScheme = ColorScheme.DARK
    new_cell_content: NewCellContent = NewCellContent.SHELL
    scrollback_lines: int = 10000
    trust_run_dirs_automatically: bool = False
    diagnostics_verbose: bool = False
    # Desktop notifications shown while IdeA's window is not active, per kind (spec 05 §10): "attention",
    # "usageLimit", "humanNet".
    desktop_notifications: tuple[str, ...] = ("attention", "usageLimit", "humanNet")
    # The variables terminals and agents do not inherit from IdeA's environment (spec 01 §11); absent, the
    # default list. Listing them replaces that list (a name left out is passed on); IdeA's packaging
    # variables are removed whatever it says.
    env_deny_list: tuple[str, ...] | None = None
    locale: str | None = None

    def env_denied(self) -> tuple[str, ...]:
        return DEFAULT_ENV_DENYLIST if self.env_deny_list is None else self.env_deny_list
