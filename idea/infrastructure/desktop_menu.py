"""IdeA in the user's applications menu without a helper app: a `.desktop` entry and the icons under the
user's XDG data dir (`~/.local/share/applications`, `~/.local/share/icons/hicolor`), pointing at the
executable the user has (the AppImage file, an unpacked `.tar.gz`, a pipx or venv console script).

The entry is IdeA's only when it carries IdeA's marker: an entry of the same name written by someone else
is never changed or removed. At start, an entry whose executable is gone (the AppImage was moved or
replaced under another name) is pointed at the running one.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from idea.domain.desktop_entry import managed_target, menu_entry
from idea.domain.spawn_env import user_environment
from idea.infrastructure.fs import atomic_write_bytes, atomic_write_text
from idea.infrastructure.installation import Installation, Kind, detect, is_frozen
from idea.infrastructure.resources import DESKTOP_FILE, DESKTOP_ID, ICON_SIZES, SCALABLE_ICON, hicolor_icon

PUBLIC_FILE_MODE = 0o644
DEB_PREFIX = "/opt/idea/"


class MenuState(enum.Enum):
    ABSENT = "absent"
    CURRENT = "current"  # IdeA's entry, starting this executable
    ELSEWHERE = "elsewhere"  # IdeA's entry, starting another executable
    FOREIGN = "foreign"  # an entry of the same name IdeA did not write


@dataclass(frozen=True)
class Availability:
    possible: bool
    reason: str = ""  # why not, in words a user can act on


class DesktopMenu:
    def __init__(
        self,
        installation: Installation,
        data_home: Path,
        system_data_dirs: Sequence[Path],
        resources: Path,
    ) -> None:
        self._installation = installation
        self._data_home = data_home
        self._system_data_dirs = tuple(system_data_dirs)
        self._resources = resources

    @classmethod
    def for_this_user(cls, resources: Path, environ: Mapping[str, str] | None = None) -> DesktopMenu:
        # The user's own XDG variables: an AppRun may have pointed XDG_DATA_DIRS into the image.
        env = user_environment(os.environ if environ is None else environ, frozen=is_frozen())
        data_home = env.get("XDG_DATA_HOME", "")
        home = Path(data_home) if os.path.isabs(data_home) else Path(os.path.expanduser("~")) / ".local" / "share"
        system = [Path(p) for p in (env.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share").split(":") if p]
        return cls(detect(environ), home, system, resources)

    @property
    def entry_path(self) -> Path:
        return self._data_home / "applications" / f"{DESKTOP_ID}.desktop"

    def icon_paths(self) -> list[Path]:
        icons = self._data_home / "icons"
        return [icons / hicolor_icon(size).removeprefix("icons/") for size in ICON_SIZES] + [
            icons / "hicolor" / "scalable" / "apps" / f"{DESKTOP_ID}.svg"
        ]

    def executable(self) -> str:
        return self._installation.command[0]

    def availability(self) -> Availability:
        kind = self._installation.kind
        if kind is Kind.CHECKOUT:
            return Availability(False, "IdeA runs from a source checkout here (python -m idea): install it as an "
                                       "AppImage, a .deb or with pipx to add it to the applications menu.")
        if kind is Kind.FROZEN and self.executable().startswith(DEB_PREFIX) and self._system_entry() is not None:
            return Availability(False, f"The IdeA package already lists IdeA in the applications menu "
                                       f"({self._system_entry()}).")
        return Availability(True)

    def state(self) -> MenuState:
        try:
            text = self.entry_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return MenuState.ABSENT
        except (OSError, UnicodeDecodeError):
            return MenuState.FOREIGN
        target = managed_target(text)
        if target is None:
            return MenuState.FOREIGN
        return MenuState.CURRENT if target == self.executable() else MenuState.ELSEWHERE

    def add(self) -> list[Path]:
        """Write the icons, then the entry (so a menu never shows an entry without its icon). Raises OSError
        (a read-only home, a full disk) with nothing half-written in the menu."""
        if self.state() is MenuState.FOREIGN:
            raise FileExistsError(f"{self.entry_path} belongs to another installation; IdeA leaves it alone")
        written = []
        sources = [self._resources / hicolor_icon(size) for size in ICON_SIZES] + [self._resources / SCALABLE_ICON]
        for source, target in zip(sources, self.icon_paths(), strict=True):
            atomic_write_bytes(target, source.read_bytes(), PUBLIC_FILE_MODE)
            written.append(target)
        shipped = (self._resources / DESKTOP_FILE).read_text(encoding="utf-8")
        atomic_write_text(self.entry_path, menu_entry(shipped, self.executable()), PUBLIC_FILE_MODE)
        written.append(self.entry_path)
        return written

    def remove(self) -> list[Path]:
        """Remove IdeA's entry and its icons; an entry IdeA did not write stays."""
        if self.state() in (MenuState.ABSENT, MenuState.FOREIGN):
            return []
        removed = []
        for path in [self.entry_path, *self.icon_paths()]:
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            removed.append(path)
        return removed

    def refresh_if_moved(self) -> list[Path]:
        """At start: IdeA's entry whose executable no longer exists starts this one from now on. An entry
        pointing at another copy that still exists is left as the user chose it."""
        if self.state() is not MenuState.ELSEWHERE or not self.availability().possible:
            return []
        target = managed_target(self.entry_path.read_text(encoding="utf-8"))
        if target is not None and os.path.exists(target):
            return []
        return self.add()

    def _system_entry(self) -> Path | None:
        for directory in self._system_data_dirs:
            candidate = directory / "applications" / f"{DESKTOP_ID}.desktop"
            if candidate.is_file():
                return candidate
        return None
