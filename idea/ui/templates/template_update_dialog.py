"""Update from template (Agents panel): bringing an agent up to date with its template, with the choice the
person must make when the persona was edited locally."""

from __future__ import annotations

import difflib
import html
from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from idea.application.agents.templates import TemplateLink, TemplateStatus
from idea.ui.theme import monospace_font, palette_colors
from idea.ui.widgets.labels import HintLabel


class TemplateUpdateDialog(QDialog):
    """Update from the template. With local edits the user chooses: take the template, keep the persona
    (the new version is then considered seen), or look at the differences first."""

    def __init__(
        self,
        agent_name: str,
        status: TemplateStatus,
        load_diff: Callable[[Callable[[str, str], None]], None],
        on_take: Callable[[], None],
        on_keep: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        template = status.template
        assert template is not None
        self._load_diff = load_diff
        self.setWindowTitle(f"Update {agent_name} from its template")
        self.setMinimumWidth(520)
        local_edits = status.link is TemplateLink.LOCAL_EDITS
        if local_edits:
            text = (
                f"<b>{html.escape(template.name)}</b> has a new version (v{template.version}), but "
                f"{html.escape(agent_name)}'s persona was edited since its last update."
            )
        else:
            text = (
                f"<b>{html.escape(template.name)}</b> has a new version (v{template.version}). "
                f"Replace {html.escape(agent_name)}'s persona with it?"
            )
        message = QLabel(text)
        message.setWordWrap(True)
        self.diff = QTextBrowser()
        self.diff.setAccessibleName("Changes")
        self.diff.setFont(monospace_font())
        self.diff.setMinimumHeight(320)
        self.diff.hide()
        self.buttons = QDialogButtonBox()
        self.take_button = self.buttons.addButton(
            "Take template" if local_edits else "Update", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.keep_button: QPushButton | None = None
        if local_edits:
            self.keep_button = self.buttons.addButton("Keep mine", QDialogButtonBox.ButtonRole.RejectRole)
            self.keep_button.setToolTip("Keep this persona and stop offering this version of the template")
            self.keep_button.clicked.connect(lambda: self._finish(on_keep))
        self.diff_button = self.buttons.addButton("Show diff", QDialogButtonBox.ButtonRole.ActionRole)
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        cancel.clicked.connect(self.reject)
        self.take_button.clicked.connect(lambda: self._finish(on_take))
        self.diff_button.clicked.connect(self.show_diff)
        # Nothing is overwritten by a stray Enter when the persona holds local edits.
        (cancel if local_edits else self.take_button).setDefault(True)
        column = QVBoxLayout(self)
        column.addWidget(message)
        if local_edits:
            column.addWidget(HintLabel("Taking the template replaces your edits; keeping yours skips this version."))
        column.addWidget(self.diff, 1)
        column.addWidget(self.buttons)

    def _finish(self, action: Callable[[], None]) -> None:
        action()
        self.accept()

    def show_diff(self) -> None:
        self.diff_button.setEnabled(False)
        self.diff.setPlainText("Loading…")
        self.diff.show()
        self.resize(max(self.width(), 820), max(self.height(), 560))
        self._load_diff(self._render_diff)

    def _render_diff(self, persona: str, template_body: str) -> None:
        c = palette_colors(self)
        lines = list(
            difflib.unified_diff(
                persona.splitlines(), template_body.splitlines(), "your persona", "template", lineterm=""
            )
        )
        if not lines:
            self.diff.setPlainText("No difference.")
            return
        rendered = []
        for line in lines:
            color = c.text
            if line.startswith(("+++", "---")):
                color = c.muted
            elif line.startswith("+"):
                color = c.ok
            elif line.startswith("-"):
                color = c.error
            elif line.startswith("@@"):
                color = c.accent
            rendered.append(f'<span style="color:{color}">{html.escape(line)}</span>')
        self.diff.setHtml(f'<pre style="margin:0">{chr(10).join(rendered)}</pre>')
