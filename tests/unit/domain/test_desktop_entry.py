"""The applications-menu entry: Exec quoting per the Desktop Entry Specification, IdeA's markers."""

from __future__ import annotations

import pytest

from idea.domain.desktop_entry import managed_target, menu_entry, quote_exec_argument

SHIPPED = """[Desktop Entry]
Type=Application
Name=IdeA
Exec=idea %F
TryExec=idea
Icon=io.github.idea

[Desktop Action new-window]
Name=New window
Exec=idea --new-window
"""


@pytest.mark.parametrize(
    ("argument", "written"),
    [
        ("/home/ada/Apps/IdeA.AppImage", "/home/ada/Apps/IdeA.AppImage"),
        ("/home/ada/My Apps/IdeA.AppImage", '"/home/ada/My Apps/IdeA.AppImage"'),
        ("/home/ada/$HOME/idea", '"/home/ada/\\\\$HOME/idea"'),
        ('/opt/a"b/idea', '"/opt/a\\\\"b/idea"'),
        ("/opt/back\\slash/idea", '"/opt/back\\\\\\\\slash/idea"'),
        ("/opt/100%/idea", "/opt/100%%/idea"),
        ("/opt/100% done/idea", '"/opt/100%% done/idea"'),
    ],
)
def test_exec_arguments_are_quoted_as_the_specification_says(argument: str, written: str) -> None:
    assert quote_exec_argument(argument) == written


def test_the_entry_starts_the_given_executable_and_keeps_everything_else() -> None:
    entry = menu_entry(SHIPPED, "/home/ada/My Apps/IdeA.AppImage")

    assert entry == (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=IdeA\n"
        'Exec="/home/ada/My Apps/IdeA.AppImage" %F\n'
        "TryExec=/home/ada/My Apps/IdeA.AppImage\n"
        "Icon=io.github.idea\n"
        "X-IdeA-Managed=true\n"
        "X-IdeA-Executable=/home/ada/My Apps/IdeA.AppImage\n"
        "\n"
        "[Desktop Action new-window]\n"
        "Name=New window\n"
        "Exec=idea --new-window\n"
    )


@pytest.mark.parametrize("path", ["/a/IdeA.AppImage", "/h/My Apps/x", "/h/back\\slash", "/h/tab\there", "/h/100%"])
def test_the_managed_target_reads_back_exactly(path: str) -> None:
    assert managed_target(menu_entry(SHIPPED, path)) == path


def test_an_entry_idea_did_not_write_has_no_target() -> None:
    assert managed_target(SHIPPED) is None
    assert managed_target("[Desktop Entry]\nX-IdeA-Executable=/x\n") is None
    assert managed_target("[Other]\nX-IdeA-Managed=true\nX-IdeA-Executable=/x\n") is None
