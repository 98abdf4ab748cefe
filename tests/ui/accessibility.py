"""What a screen reader would announce for a window's controls: each one a person can reach must have a name.

Qt names a control from its accessible name, its own text (a button's, a check box's) or the label whose
buddy it is; a tooltip is only its description, so an icon-only button or a text area under a plain label is
read out as "button" or "text", and a ✕ as "multiplication x". Headers of tables and lists, and the line edit inside a spin box, are parts of
a named control, not controls of their own; so are scroll bars.
"""

from __future__ import annotations

from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
        QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QTextEdit,
    QWidget,
)

CONTROLS = (
    QAbstractButton,
    QAbstractItemView,
        QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QTextEdit,
)


def accessible_name(widget: QWidget) -> str:
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name).strip() if interface is not None else ""


def has_name(widget: QWidget) -> bool:
    """A combo box is "named" by its current value on Linux, which says nothing of what it chooses: it needs a
    label (its buddy) or a name of its own. Any other control needs a name with a letter or digit in it."""
    if isinstance(widget, QComboBox):
        interface = QAccessible.queryAccessibleInterface(widget)
        labelled = interface is not None and bool(interface.relations(QAccessible.RelationFlag.Label))
        return labelled or bool(widget.accessibleName())
    return any(char.isalnum() for char in accessible_name(widget))  # none, or a glyph such as ✕


def unnamed_controls(root: QWidget) -> list[str]:
    """The visible controls under `root` (itself included) that have no accessible name, described for a
    failure message: class, object name, tooltip and the class of the widget they sit in."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not isinstance(widget, CONTROLS) or isinstance(widget, QHeaderView) or not widget.isVisible():
            continue
        if isinstance(widget, QLineEdit) and isinstance(widget.parent(), (QAbstractSpinBox, QComboBox)):
            continue  # the editor inside a spin box or an editable combo box: the box has the name
        if not has_name(widget):
            found.append(
                f"{type(widget).__name__} {widget.objectName()!r} tip={widget.toolTip()[:40]!r} "
                f"in {type(widget.parentWidget()).__name__}"
            )
    return found
