"""The Agents panel's "Needs you" section: every agent waiting for the person — a dialog on its screen, a
permission, a sign-in — with where it runs and a button to show it; and, for an agent IdeA thinks is at a
usage limit without knowing when it resets, the human net (spec 05 §10): a time to resume it at, "Not a
limit — dismiss", "Interrupt agent" (and "Keep waiting" for a stall). Non-modal: several agents never stack
dialogs. Hidden when nothing needs the person."""

from __future__ import annotations

from PySide6.QtCore import QDateTime, Qt, Signal
from PySide6.QtWidgets import (
    QDateTimeEdit,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from idea.application.agents.agent_rows import AgentRow
from idea.application.agents.net_toasts import INTERRUPT, human_net_text, net_answers, net_prefill, net_shown
from idea.domain.ids import AgentId


class _Entry(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(8, 6, 8, 6)
        self.column.setSpacing(4)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.column.addWidget(self.label)
        self.buttons = QHBoxLayout()
        self.buttons.addStretch(1)
        self.column.addLayout(self.buttons)

    def button(self, text: str) -> QPushButton:
        button = QPushButton(text)
        button.setAutoDefault(False)
        self.buttons.addWidget(button)
        return button


class NeedsYouSection(QWidget):
    showRequested = Signal(str)  # agent id: show it (focus its cell, or attach it when in the background)
    resumeAtRequested = Signal(str, object)  # agent id, epoch ms
    dismissRequested = Signal(str)  # "Not a limit — dismiss" / "Keep waiting"
    interruptRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("NeedsYou")
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(6, 6, 6, 6)
        self._column.setSpacing(6)
        title = QLabel("<b>Needs you</b>")
        self._column.addWidget(title)
        self._entries: dict[tuple[str, AgentId], _Entry] = {}
        self._times: dict[AgentId, QDateTimeEdit] = {}
        self.setVisible(False)

    def entry_texts(self) -> list[str]:
        return [entry.label.text() for entry in self._entries.values()]

    def show_rows(self, rows: list[AgentRow], now_ms: int) -> None:
        wanted: dict[tuple[str, AgentId], AgentRow] = {}
        for row in rows:
            if row.attention_text:
                wanted[("attention", row.agent_id)] = row
            if net_shown(row):
                wanted[("net", row.agent_id)] = row
        for key in [k for k in self._entries if k not in wanted]:
            entry = self._entries.pop(key)
            if key[0] == "net":
                self._times.pop(key[1], None)
            entry.deleteLater()
        for key, row in wanted.items():
            entry = self._entries.get(key)
            if entry is None:
                entry = self._attention_entry(row) if key[0] == "attention" else self._net_entry(row, now_ms)
                self._entries[key] = entry
                self._column.addWidget(entry)
            if key[0] == "attention":
                hidden = not row.activity.attention_visible or row.in_background
                where = "in the background" if hidden else "in its cell"
                message = row.activity.attention_message
                said = f" — “{message}”" if message else ""
                entry.label.setText(f"{row.name} {row.attention_phrase} ({where}){said}")
        self.setVisible(bool(self._entries))

    def _attention_entry(self, row: AgentRow) -> _Entry:
        entry = _Entry(self)
        show = entry.button("Show")
        show.setToolTip("Go to its cell (a background agent is shown in a cell)")
        show.clicked.connect(lambda: self.showRequested.emit(row.agent_id))
        return entry

    def _net_entry(self, row: AgentRow, now_ms: int) -> _Entry:
        net = row.activity.human_net
        assert net is not None
        entry = _Entry(self)
        entry.label.setText(human_net_text(row.name, net.reason, net.detail))
        time_edit = QDateTimeEdit()
        time_edit.setCalendarPopup(True)
        time_edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        time_edit.setDateTime(QDateTime.fromMSecsSinceEpoch(net_prefill(net, now_ms)))
        entry.column.insertWidget(1, time_edit)
        self._times[row.agent_id] = time_edit
        agent = row.agent_id
        resume = entry.button("Resume at this time")
        resume.clicked.connect(lambda: self.resumeAtRequested.emit(agent, time_edit.dateTime().toMSecsSinceEpoch()))
        for answer in net_answers(net.reason):
            signal = self.interruptRequested if answer == INTERRUPT else self.dismissRequested
            entry.button(answer).clicked.connect(lambda _checked=False, s=signal: s.emit(agent))
        entry.setProperty("net", True)
        entry.layout().setAlignment(Qt.AlignmentFlag.AlignTop)
        return entry
