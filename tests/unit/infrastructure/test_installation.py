"""Spec 02 §12 / 07 §6.3: what IdeA writes to start itself again names the executable the user has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from idea.domain.spawn_env import LIVE_APPDIR_ENV
from idea.infrastructure.installation import Installation, Kind, detect, idea_command, name_live_appdir

APPIMAGE = "/home/ada/Apps/IdeA-0.1.0-x86_64.AppImage"


def console_script(bin_dir: Path, interpreter: str, name: str = "idea") -> Path:
    """The script pip writes: a `#!` line, or for an interpreter path with a space its shell launcher."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / name
    first = f"#!/bin/sh\n'''exec' \"{interpreter}\" \"$0\" \"$@\"\n' '''\n" if " " in interpreter else f"#!{interpreter}\n"
    script.write_text(f"{first}import sys\nfrom idea.__main__ import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return script


def test_inside_its_appimage_idea_names_the_appimage_file_not_the_mount(tmp_path: Path) -> None:
    mount = tmp_path / ".mount_IdeAxyz"
    exe = mount / "usr" / "lib" / "idea" / "idea"
    env = {"APPIMAGE": APPIMAGE, "APPDIR": str(mount)}

    assert detect(env, executable=str(exe), frozen=True) == Installation(
        Kind.APPIMAGE, (APPIMAGE,), APPIMAGE, str(mount)
    )


def test_from_its_appimage_idea_names_its_appdir_for_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mount = tmp_path / ".mount_IdeAxyz"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(mount / "usr" / "lib" / "idea" / "idea"))
    env = {"APPIMAGE": APPIMAGE, "APPDIR": str(mount), LIVE_APPDIR_ENV: "/tmp/.mount_OtherIdeA"}
    name_live_appdir(env)
    assert env[LIVE_APPDIR_ENV] == str(mount)  # its own, not one it inherited


def test_outside_an_appimage_the_live_appdir_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", False, raising=False)
    env = {"APPIMAGE": "/opt/Other.AppImage", "APPDIR": "/tmp/x"}
    name_live_appdir(env)
    assert LIVE_APPDIR_ENV not in env
    inherited = {LIVE_APPDIR_ENV: "/tmp/.mount_IdeA"}
    name_live_appdir(inherited)
    assert inherited == {LIVE_APPDIR_ENV: "/tmp/.mount_IdeA"}


def test_an_appimage_variable_inherited_from_another_app_does_not_count(tmp_path: Path) -> None:
    env = {"APPIMAGE": "/opt/Other.AppImage", "APPDIR": "/tmp/.mount_Other"}
    exe = "/opt/idea/idea"

    assert detect(env, executable=exe, frozen=True) == Installation(Kind.FROZEN, (exe,))
    python = str(tmp_path / "venv" / "bin" / "python")
    script = console_script(tmp_path / "venv" / "bin", python)
    assert detect(env, executable=python, frozen=False).command == (str(script),)


def test_a_one_dir_install_names_its_frozen_executable() -> None:
    assert detect({}, executable="/opt/idea/idea", frozen=True) == Installation(Kind.FROZEN, ("/opt/idea/idea",))


def test_a_venv_or_pipx_install_names_its_console_script(tmp_path: Path) -> None:
    python = str(tmp_path / "pipx" / "venvs" / "idea-ide" / "bin" / "python")
    script = console_script(Path(python).parent, python)

    assert detect({}, executable=python, frozen=False) == Installation(Kind.VENV, (str(script),))


def test_a_venv_in_a_folder_with_a_space_is_recognised_by_pips_shell_launcher(tmp_path: Path) -> None:
    python = str(tmp_path / "Mes outils" / "venv" / "bin" / "python3")
    script = console_script(Path(python).parent, python)
    assert script.read_text().startswith("#!/bin/sh\n")

    assert detect({}, executable=python, frozen=False) == Installation(Kind.VENV, (str(script),))


def test_another_programs_idea_script_beside_the_interpreter_is_not_ours(tmp_path: Path) -> None:
    # /usr/bin/idea of the .deb (a shell wrapper) beside /usr/bin/python3 running a checkout.
    python = str(tmp_path / "usr" / "bin" / "python3")
    console_script(Path(python).parent, "/bin/sh")

    assert detect({}, executable=python, frozen=False) == Installation(Kind.CHECKOUT, (python, "-m", "idea"))


def test_a_script_that_cannot_be_executed_is_not_used(tmp_path: Path) -> None:
    python = str(tmp_path / "venv" / "bin" / "python")
    console_script(Path(python).parent, python).chmod(0o644)

    assert detect({}, executable=python, frozen=False).kind is Kind.CHECKOUT


def test_without_an_interpreter_path_the_command_on_path_is_the_last_resort() -> None:
    assert detect({}, executable="", frozen=False).command == ("idea",)


def test_this_test_run_names_the_venvs_console_script_which_really_starts_idea() -> None:
    command = idea_command({})
    if command[0] != str(Path(sys.executable).parent / "idea"):
        pytest.skip("IdeA is not installed in this interpreter's environment")
    done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "APPIMAGE": APPIMAGE})
    assert done.returncode == 0 and done.stdout.startswith("IdeA ")
