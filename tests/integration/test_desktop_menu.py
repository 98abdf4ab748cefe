"""Help ▸ Add IdeA to the applications menu: the entry and icons under the user's XDG data dir, pointing at
the AppImage file, removable, and following the file when it moves."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from idea.domain.desktop_entry import quote_exec_argument
from idea.infrastructure.desktop_menu import DesktopMenu, MenuState
from idea.infrastructure.installation import Installation, Kind
from idea.infrastructure.resources import ICON_SIZES, resources_dir

ENTRY = Path("applications") / "io.github.idea.desktop"


def appimage(path: Path) -> Installation:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF")
    return Installation(Kind.APPIMAGE, (str(path),), str(path))


def menu(installation: Installation, home: Path, system: Path | None = None) -> DesktopMenu:
    return DesktopMenu(installation, home, [system] if system else [], resources_dir())


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".local" / "share"


def test_adding_writes_the_entry_and_every_icon_size_pointing_at_the_appimage(tmp_path: Path, home: Path) -> None:
    image = tmp_path / "My Apps" / "IdeA-0.1.0-x86_64.AppImage"
    model = menu(appimage(image), home)
    assert model.availability().possible and model.state() is MenuState.ABSENT

    written = model.add()

    entry = (home / ENTRY).read_text(encoding="utf-8")
    assert f'Exec="{image}" %F' in entry and f"TryExec={image}" in entry and "Icon=io.github.idea" in entry
    assert written[-1] == home / ENTRY
    for size in ICON_SIZES:
        icon = home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "io.github.idea.png"
        assert icon.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert stat.S_IMODE(icon.stat().st_mode) == 0o644
    assert (home / "icons" / "hicolor" / "scalable" / "apps" / "io.github.idea.svg").is_file()
    assert model.state() is MenuState.CURRENT
    if shutil.which("desktop-file-validate"):
        done = subprocess.run(["desktop-file-validate", str(home / ENTRY)], capture_output=True, text=True)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout


def test_removing_takes_out_the_entry_and_its_icons(tmp_path: Path, home: Path) -> None:
    model = menu(appimage(tmp_path / "IdeA.AppImage"), home)
    written = model.add()

    assert sorted(model.remove()) == sorted(written)
    assert not any(path.exists() for path in written)
    assert model.state() is MenuState.ABSENT and model.remove() == []


def test_an_entry_of_another_installation_is_never_touched(tmp_path: Path, home: Path) -> None:
    (home / "applications").mkdir(parents=True)
    (home / ENTRY).write_text("[Desktop Entry]\nType=Application\nName=IdeA\nExec=/usr/local/bin/idea\n")
    model = menu(appimage(tmp_path / "IdeA.AppImage"), home)

    assert model.state() is MenuState.FOREIGN
    with pytest.raises(FileExistsError):
        model.add()
    assert model.remove() == [] and model.refresh_if_moved() == []
    assert "Exec=/usr/local/bin/idea" in (home / ENTRY).read_text()


def test_the_entry_follows_a_moved_appimage_at_start(tmp_path: Path, home: Path) -> None:
    old = tmp_path / "Downloads" / "IdeA-0.1.0-x86_64.AppImage"
    menu(appimage(old), home).add()
    new = tmp_path / "Apps" / "IdeA-0.2.0-x86_64.AppImage"
    new.parent.mkdir()
    old.rename(new)
    moved = menu(Installation(Kind.APPIMAGE, (str(new),), str(new)), home)
    assert moved.state() is MenuState.ELSEWHERE

    assert moved.refresh_if_moved()[-1] == home / ENTRY
    assert f"Exec={quote_exec_argument(str(new))} %F" in (home / ENTRY).read_text() and moved.state() is MenuState.CURRENT


def test_an_entry_naming_another_copy_that_still_exists_is_left_as_chosen(tmp_path: Path, home: Path) -> None:
    chosen = tmp_path / "IdeA-stable.AppImage"
    menu(appimage(chosen), home).add()
    other = menu(appimage(tmp_path / "IdeA-nightly.AppImage"), home)

    assert other.state() is MenuState.ELSEWHERE and other.refresh_if_moved() == []
    assert f"Exec={quote_exec_argument(str(chosen))} %F" in (home / ENTRY).read_text()


def test_a_read_only_data_dir_fails_with_an_os_error_and_no_entry(tmp_path: Path, home: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes through read-only modes")
    home.mkdir(parents=True)
    home.chmod(0o555)
    try:
        with pytest.raises(OSError):
            menu(appimage(tmp_path / "IdeA.AppImage"), home).add()
        assert not (home / ENTRY).exists()
    finally:
        home.chmod(0o755)


def test_a_data_dir_that_cannot_hold_files_fails_before_the_entry_is_written(tmp_path: Path, home: Path) -> None:
    # Works as root too: a file where the icons folder should be.
    home.mkdir(parents=True)
    (home / "icons").write_text("not a folder")
    with pytest.raises(OSError):
        menu(appimage(tmp_path / "IdeA.AppImage"), home).add()
    assert not (home / ENTRY).exists()


@pytest.mark.parametrize(
    ("installation", "possible", "reason"),
    [
        (Installation(Kind.CHECKOUT, ("/usr/bin/python3", "-m", "idea")), False, "source checkout"),
        (Installation(Kind.VENV, ("/home/ada/.local/bin/idea",)), True, ""),
        (Installation(Kind.FROZEN, ("/home/ada/idea-0.1.0/idea",)), True, ""),
        (Installation(Kind.FROZEN, ("/opt/idea/idea",)), False, "already lists IdeA"),
    ],
)
def test_who_may_add_an_entry(tmp_path: Path, installation: Installation, possible: bool, reason: str) -> None:
    system = tmp_path / "usr" / "share"
    (system / "applications").mkdir(parents=True)
    (system / ENTRY).write_text("[Desktop Entry]\nExec=idea %F\n")

    availability = menu(installation, tmp_path / "home", system).availability()

    assert availability.possible is possible and reason in availability.reason


def test_the_users_xdg_data_home_is_used_and_an_appimage_search_path_is_not(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_DATA_DIRS": "/tmp/.mount_IdeA/usr/share:/usr/share",
        "XDG_DATA_DIRS_ORIG": "/usr/share",
    }
    model = DesktopMenu.for_this_user(resources_dir(), env)
    assert model.entry_path == tmp_path / "data" / ENTRY

    relative = DesktopMenu.for_this_user(resources_dir(), {"HOME": str(tmp_path), "XDG_DATA_HOME": "rel"})
    assert relative.entry_path.parent.parent.name == "share"
