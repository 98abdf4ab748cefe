"""What an empty cell shows: why it is empty (or what failed to start, with a way to try again), and the ways
to fill it — launch an agent, open a shell, attach a session running in the background."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMenu, QPushButton, QVBoxLayout, QWidget

from idea.domain.session import SessionInfo, SessionState

MenuFiller = Callable[[QMenu], None]


class CellPlaceholder(QFrame):
    def __init__(
        self,
        fill_launch_menu: MenuFiller,
        open_shell: Callable[[], None],
        fill_attach_menu: MenuFiller,
        try_again: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("Placeholder")
        column = QVBoxLayout(self)
        column.addStretch(1)
        self.text = QLabel("This cell is empty")
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setWordWrap(True)
        column.addWidget(self.text)
        row = QHBoxLayout()
        row.addStretch(1)
        self.try_again = QPushButton("Try again")
        self.try_again.clicked.connect(lambda _checked=False: try_again())
        self.try_again.hide()
        row.addWidget(self.try_again)
        self.launch = QPushButton("Launch agent")
        self.launch.setMenu(_filled_on_show(self.launch, fill_launch_menu))
        row.addWidget(self.launch)
        self.open_shell = QPushButton("Open shell")
        self.open_shell.clicked.connect(lambda _checked=False: open_shell())
        row.addWidget(self.open_shell)
        self.attach = QPushButton("Attach session")
        self.attach.setMenu(_filled_on_show(self.attach, fill_attach_menu))
        row.addWidget(self.attach)
        row.addStretch(1)
        column.addLayout(row)
        column.addStretch(1)

    def show_session(self, session: SessionInfo | None) -> None:
        failed = session is not None and session.state is SessionState.FAILED
        self.try_again.setVisible(failed)
        if session is not None and failed:
            self.text.setText(session.describe_end())
        elif session is not None and session.state is SessionState.STARTING:
            self.text.setText(f"Starting {session.label}…")
        else:
            self.text.setText("This cell is empty")


def _filled_on_show(button: QPushButton, fill: MenuFiller) -> QMenu:
    menu = QMenu(button)

    def refill() -> None:
        menu.clear()
        fill(menu)

    menu.aboutToShow.connect(refill)
    return menu
