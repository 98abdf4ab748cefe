"""The AppRun template: it starts the frozen IdeA with the user's arguments, and refuses a C library the
payload cannot run on (glibc older than 2.34, or musl) with a clear message before anything starts."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.packaging.appimage_support import make_desktop_appdir

EXIT_LIBC = 78


def fake_tools(folder: Path, getconf: str | None, ldd: str | None = None) -> Path:
    """A folder with stand-ins for getconf and ldd that print the given text (None: they fail silently)."""
    folder.mkdir()
    for name, text in (("getconf", getconf), ("ldd", ldd)):
        body = f"#!/bin/sh\nprintf '%s\\n' '{text}'\n" if text is not None else "#!/bin/sh\nexit 1\n"
        (folder / name).write_text(body)
        (folder / name).chmod(0o755)
    return folder


def run_apprun(
    appdir: Path, *args: str, path_first: Path | None = None, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"APPDIR", "APPIMAGE", "IDEA_LIVE_APPDIR"}}
    env.update(extra or {})
    if path_first is not None:
        env["PATH"] = f"{path_first}:{env['PATH']}"
    return subprocess.run(
        [str(appdir / "AppRun"), *args], env=env, capture_output=True, text=True, timeout=20, check=False
    )


@pytest.fixture
def appdir(tmp_path: Path) -> Path:
    return make_desktop_appdir(tmp_path)


def test_starts_the_payload_with_the_arguments_from_an_extracted_tree(appdir: Path) -> None:
    result = run_apprun(appdir, "--version", "a b")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == ["ARG=--version", "ARG=a b"]


@pytest.mark.parametrize("version", ["2.34", "2.36", "2.100", "3.0"])
def test_a_recent_enough_glibc_passes(appdir: Path, tmp_path: Path, version: str) -> None:
    result = run_apprun(appdir, "x", path_first=fake_tools(tmp_path / "bin", f"glibc {version}"))
    assert result.returncode == 0, result.stderr
    assert "ARG=x" in result.stdout


@pytest.mark.parametrize("version", ["2.33", "2.31", "2.9", "1.99"])
def test_an_old_glibc_is_refused_before_the_payload_starts(appdir: Path, tmp_path: Path, version: str) -> None:
    result = run_apprun(appdir, "x", path_first=fake_tools(tmp_path / "bin", f"glibc {version}"))
    assert result.returncode == EXIT_LIBC
    assert result.stdout == ""
    assert f"IdeA needs the GNU C library (glibc) 2.34 or newer; this system has glibc {version}." in result.stderr
    assert "Ubuntu 22.04" in result.stderr


def test_started_from_the_appdir_of_the_running_idea_the_check_is_not_made_again(appdir: Path, tmp_path: Path) -> None:
    # A hook relay or bridge that agents start from the mount IdeA runs from: IdeA passed the check there.
    old = fake_tools(tmp_path / "bin", "glibc 2.31")
    here = str(appdir.resolve())
    trusted = run_apprun(appdir, "hook", path_first=old, extra={"APPDIR": here, "IDEA_LIVE_APPDIR": here})
    assert trusted.returncode == 0 and "ARG=hook" in trusted.stdout, trusted.stderr
    # Any other folder named there changes nothing.
    elsewhere = run_apprun(appdir, "hook", path_first=old, extra={"APPDIR": here, "IDEA_LIVE_APPDIR": str(tmp_path)})
    assert elsewhere.returncode == EXIT_LIBC


def test_glibc_read_from_ldd_when_getconf_is_missing(appdir: Path, tmp_path: Path) -> None:
    tools = fake_tools(tmp_path / "bin", None, "ldd (GNU libc) 2.28")
    result = run_apprun(appdir, path_first=tools)
    assert result.returncode == EXIT_LIBC
    assert "this system has glibc 2.28" in result.stderr


def test_musl_is_refused(appdir: Path, tmp_path: Path) -> None:
    result = run_apprun(appdir, path_first=fake_tools(tmp_path / "bin", None, "musl libc (x86_64)"))
    assert result.returncode == EXIT_LIBC
    assert "this one uses musl" in result.stderr


def test_an_unknown_c_library_is_given_a_try(appdir: Path, tmp_path: Path) -> None:
    result = run_apprun(appdir, "y", path_first=fake_tools(tmp_path / "bin", None, None))
    assert result.returncode == 0, result.stderr
    assert "ARG=y" in result.stdout


def test_this_machine_passes_the_check(appdir: Path) -> None:
    result = run_apprun(appdir)
    assert result.returncode == 0, result.stderr


def test_a_missing_payload_is_reported(appdir: Path) -> None:
    (appdir / "usr/lib/idea/idea").unlink()
    result = run_apprun(appdir)
    assert result.returncode == 127
    assert "usr/lib/idea/idea is missing" in result.stderr
