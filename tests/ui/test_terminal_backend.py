"""Which terminal cells the GUI uses (IDEA_TERMINAL, the platform)."""

from __future__ import annotations

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.ui.terminal.backend import NATIVE, QTERMWIDGET, backend_or_default, chosen_backend


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({}, "linux", QTERMWIDGET),
        ({"IDEA_TERMINAL": "native"}, "linux", NATIVE),
        ({"IDEA_TERMINAL": " Native "}, "linux", NATIVE),
        ({"IDEA_TERMINAL": "qtermwidget"}, "linux", QTERMWIDGET),
        ({}, "darwin", QTERMWIDGET),
        ({}, "win32", NATIVE),
        ({"IDEA_TERMINAL": "qtermwidget"}, "win32", NATIVE),  # QTermWidget does not exist on Windows
    ],
)
def test_backend(environ: dict[str, str], platform: str, expected: str) -> None:
    assert chosen_backend(environ, platform) == expected


def test_an_unknown_backend_is_refused_with_the_choices() -> None:
    with pytest.raises(AppError) as raised:
        chosen_backend({"IDEA_TERMINAL": "xtermjs"}, "linux")
    assert raised.value.code is ErrorCode.INVALID
    assert "native" in raised.value.message and "qtermwidget" in raised.value.message


def test_the_app_falls_back_to_the_default_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert backend_or_default({"IDEA_TERMINAL": "xtermjs"}, "linux") == QTERMWIDGET
    assert "IDEA_TERMINAL='xtermjs' is not a terminal backend" in capsys.readouterr().err
