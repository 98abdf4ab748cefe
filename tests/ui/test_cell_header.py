"""A cell's header calls for the person with a badge that reads in both themes, until the cell is looked at or
the agent no longer needs them."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from idea.domain.session import SessionInfo, SessionKind, SessionState
from idea.domain.workspace import ColorScheme
from idea.ui.layout.cell_header import CellHeader
from idea.ui.theme import apply_theme
from tests.ui.test_problem_banner import contrast

SESSION = SessionInfo(
    id="s1", kind=SessionKind.AGENT, state=SessionState.RUNNING, label="Reviewer", cwd="/tmp", started_at_ms=0,
    pid=42, agent_id="a1",
)  # fmt: skip


@pytest.mark.parametrize("scheme", [ColorScheme.DARK, ColorScheme.LIGHT])
def test_a_call_for_attention_shows_a_badge_that_reads_until_the_cell_is_looked_at(
    themed: QApplication, qtbot: QtBot, scheme: ColorScheme
) -> None:
    colors = apply_theme(themed, scheme)
    header = CellHeader()
    qtbot.addWidget(header)
    header.resize(600, header.height())
    header.show_session(SESSION)
    header.show()
    qtbot.waitExposed(header)
    assert not header.attention.isVisible()

    header.needs_attention("Do you trust the files in this folder?")
    assert header.attention.isVisible() and header.attention.text() == "Needs you"
    assert "Do you trust the files in this folder?" in header.attention.toolTip()
    badge = header.attention.grab().toImage()
    middle = badge.height() // 2
    edge = next(badge.pixelColor(x, middle) for x in range(badge.width()) if badge.pixelColor(x, middle).alpha())
    fill = badge.pixelColor(3, middle)
    assert fill == QColor(colors.notice)
    # It stands out of the header (its fill, or in the light theme its edge, at 3:1 at least) and reads.
    header_fill = QColor(colors.header)
    assert max(contrast(fill, header_fill), contrast(edge, header_fill)) >= 3, (fill.name(), edge.name())
    assert contrast(fill, QColor("#1a1a1a")) >= 4.5

    header.set_active(True)  # the person looks at the cell
    assert not header.attention.isVisible()
    header.set_active(False)
    header.needs_attention("waits for your permission")
    header.needs_attention(None)  # answered
    assert not header.attention.isVisible()
