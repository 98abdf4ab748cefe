"""Spec 01 §11: a program IdeA starts outside a terminal (a CLI's version probe) gets the user's environment
back, not the packaged app's libraries and launcher variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from idea.infrastructure import cli_probe

PACKAGED_ENVIRONMENT = {
    "LD_LIBRARY_PATH": "/tmp/.mount_IdeA/usr/lib/idea/_internal",
    "LD_LIBRARY_PATH_ORIG": "/home/ada/lib",
    "APPDIR": "/tmp/.mount_IdeA",
    "APPIMAGE": "/home/ada/IdeA.AppImage",
    "_PYI_ARCHIVE_FILE": "/tmp/.mount_IdeA/usr/lib/idea/idea",
    "QT_PLUGIN_PATH": "/tmp/.mount_IdeA/usr/lib/idea/_internal/PySide6/Qt/plugins",
}


@pytest.fixture
def reporter(tmp_path: Path) -> Path:
    script = tmp_path / "bin" / "mycli"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\n"
        'echo "ld=${LD_LIBRARY_PATH-unset} orig=${LD_LIBRARY_PATH_ORIG-unset} appdir=${APPDIR-unset} '
        'appimage=${APPIMAGE-unset} pyi=${_PYI_ARCHIVE_FILE-unset} qt=${QT_PLUGIN_PATH-unset} home=$HOME"\n'
    )
    script.chmod(0o755)
    return script


def test_a_probe_from_the_packaged_app_sees_the_users_environment(
    reporter: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_probe, "is_frozen", lambda: True)
    env = {"PATH": f"{reporter.parent}:/usr/bin:/bin", "HOME": "/home/ada", **PACKAGED_ENVIRONMENT}

    detection = cli_probe.probe("mycli --version", env)

    assert detection.version == (
        "ld=/home/ada/lib orig=unset appdir=unset appimage=unset pyi=unset qt=unset home=/home/ada"
    )


def test_a_developers_own_library_path_is_kept_outside_a_packaged_app(
    reporter: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_probe, "is_frozen", lambda: False)
    env = {"PATH": f"{reporter.parent}:/usr/bin:/bin", "HOME": "/home/ada", "LD_LIBRARY_PATH": "/opt/dev/lib"}

    assert cli_probe.probe("mycli", env).version.startswith("ld=/opt/dev/lib orig=unset")
