"""The names shown for a path's last part, whichever operating system wrote the path."""

from __future__ import annotations

import pytest

from idea.domain.path_names import last_part, program_name


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/home/me/shop", "shop"),
        ("/home/me/shop/", "shop"),
        ("C:\\Users\\me\\shop", "shop"),
        ("C:\\Users\\me\\shop\\", "shop"),
        ("Z:\\tmp\\mixed/shop", "shop"),
        ("\\\\server\\share\\shop", "shop"),
        ("shop", "shop"),
        ("/", "/"),
        ("C:\\", "C:"),
        ("", ""),
    ],
)
def test_last_part_is_the_folder_or_file_name_of_either_kind_of_path(path: str, name: str) -> None:
    assert last_part(path) == name


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/bin/bash", "bash"),
        ("/usr/local/bin/node.js", "node.js"),
        ("C:\\Windows\\System32\\cmd.exe", "cmd"),
        ("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.EXE", "powershell"),
        ("C:\\Users\\me\\AppData\\Roaming\\npm\\claude.cmd", "claude"),
        ("C:\\tools\\build.bat", "build"),
        ("C:\\tools\\.exe", ".exe"),
        ("pwsh", "pwsh"),
    ],
)
def test_program_name_drops_the_folder_and_what_windows_adds_to_a_program(path: str, name: str) -> None:
    assert program_name(path) == name
