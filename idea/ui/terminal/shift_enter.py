"""Shift+Enter in an agent's cell types its profile's `newlineSequence` (spec 01 §13.9): a new line in the
CLI's prompt instead of a submit. Both terminal views ask the same question."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent


def shift_enter_mapped(sequence: str | None, event: QKeyEvent) -> bool:
    """Shift+Enter (nothing else held) in a terminal whose program wants its own sequence for it."""
    modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    return (
        bool(sequence)
        and event.key() in (Qt.Key.Key_Return.value, Qt.Key.Key_Enter.value)
        and modifiers == Qt.KeyboardModifier.ShiftModifier
    )
