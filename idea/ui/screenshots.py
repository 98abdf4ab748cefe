"""`--screenshot FILE.png`: every window on screen saved as PNG (FILE.png, FILE-2.png, ...): the main windows
in their order, then the dialogs and sheets open over them (the first-run wizard, a question box).

The target is checked before IdeA starts, so a wrong path is said at once; no folder is ever created (the
command may run as root: it must not make folders wherever it is pointed). A save that fails is reported,
never printed as saved."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImageWriter
from PySide6.QtWidgets import QApplication, QWidget

# Window types a person sees as a window of their own; popups, tool tips and splash screens are not.
_CAPTURED_TYPES = {Qt.WindowType.Window, Qt.WindowType.Dialog, Qt.WindowType.Sheet, Qt.WindowType.Tool,
                   Qt.WindowType.Drawer}


def target_problem(target: str) -> str | None:
    """Why screenshots cannot be saved as `target`; None when they can."""
    path = Path(target).expanduser().absolute()
    folder = path.parent
    if path.is_dir():
        return f"{path} is a folder; give a file name such as {path / 'idea.png'}"
    if not folder.exists():
        above = next((p for p in folder.parents if p.exists()), None)
        if above is not None and not above.is_dir():
            return f"{above} is a file, not a folder"
        return f"the folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    return None


def numbered(target: str, count: int) -> list[Path]:
    """FILE.png, FILE-2.png, FILE-3.png, ..."""
    base = Path(target).expanduser()
    return [base if n == 1 else base.with_name(f"{base.stem}-{n}{base.suffix}") for n in range(1, count + 1)]


def windows_to_capture(main_windows: Sequence[QWidget]) -> list[QWidget]:
    """The main windows in their order, then every other visible top-level window (dialogs, sheets), those
    of the first window first."""
    shown = [window for window in main_windows if window.isVisible()]
    others = [
        widget
        for widget in QApplication.topLevelWidgets()
        if widget.isVisible() and widget.isWindow() and widget.windowType() in _CAPTURED_TYPES
        and not any(widget is window for window in main_windows)
    ]

    def owner_rank(widget: QWidget) -> tuple[int, str]:
        parent = widget.parentWidget()
        owner = parent.window() if parent is not None else None
        rank = next((i for i, window in enumerate(main_windows) if window is owner), len(main_windows))
        return rank, widget.windowTitle()

    return shown + sorted(others, key=owner_rank)


@dataclass
class Saved:
    paths: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # one sentence each: which file, why


def save_windows(target: str, windows: Sequence[QWidget]) -> Saved:
    saved = Saved()
    if not windows:
        saved.failures.append("no window was on screen to capture")
        return saved
    for window, path in zip(windows, numbered(target, len(windows)), strict=True):
        writer = QImageWriter(str(path), b"png")
        if writer.write(window.grab().toImage()):
            saved.paths.append(str(path))
        else:
            saved.failures.append(f"could not save {path}: {writer.errorString()}")
    return saved
