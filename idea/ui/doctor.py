"""`idea doctor`: what IdeA finds on this machine, as a developer would want to read it, and what stops the
GUI from starting, with the fix to apply. Exits 1 when something is missing.

Qt is never imported here: the platform is asked in a child process, because Qt aborts the process that
cannot open its platform plugin.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from idea import DISTRIBUTION, __version__
from idea.domain.errors import AppError
from idea.domain.profile import REFERENCE_INSTALL_COMMANDS, REFERENCE_PROFILE_SLUGS
from idea.domain.wording import counted
from idea.infrastructure.cli_probe import probe
from idea.infrastructure.installation import Installation, Kind, detect
from idea.infrastructure.paths import logs_dir, user_data_dir
from idea.infrastructure.platform import local_host
from idea.infrastructure.resources import missing_resources, resources_dir

AGENT_CLIS = REFERENCE_PROFILE_SLUGS
TERMINAL_WIDGET = "pyside6-qtermwidget"
PROBE_QT_PLATFORM = "--probe-qt-platform"
_PLATFORM_TIMEOUT_S = 20


@dataclass(frozen=True)
class Row:
    name: str
    value: str
    fix: str | None = None  # set when this stops IdeA: what to do about it


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _pinned_requirement(name: str) -> str:
    """`pyside6-qtermwidget==X` as IdeA's metadata requires it."""
    try:
        requirements = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        requirements = []
    for requirement in requirements:
        if requirement.lower().replace("_", "-").startswith(name):
            return requirement.split(";")[0].strip()
    return name


def _reinstall_hint(installation: Installation) -> str:
    if installation.kind is Kind.WINDOWS:
        return "this copy of IdeA is incomplete: run IdeA's setup.exe again (your settings and data are kept)"
    if installation.kind in (Kind.APPIMAGE, Kind.FROZEN):
        return "this copy of IdeA is incomplete: download it again (AppImage, .deb or .tar.gz) and replace it"
    if "/pipx/venvs/" in sys.prefix:
        return f"pipx reinstall {DISTRIBUTION}"
    return f"{sys.executable} -m pip install --force-reinstall <the wheel or folder you installed IdeA from>"


def _self_command() -> list[str]:
    """This very executable (not the AppImage: its mount lives as long as this process)."""
    return [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "idea"]


def _qt_platform(installation: Installation, platform: str = sys.platform) -> Row:
    try:
        done = subprocess.run(
            [*_self_command(), "doctor", PROBE_QT_PLATFORM],
            capture_output=True,
            text=True,
            timeout=_PLATFORM_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return Row("Qt platform", f"no answer within {_PLATFORM_TIMEOUT_S} s")
    if done.returncode == 0:
        return Row("Qt platform", done.stdout.strip())
    lines = done.stderr.strip().splitlines()
    reason = next(
        (line for line in lines if "could not" in line.lower() or "cannot" in line.lower()),
        lines[-1] if lines else f"exit code {done.returncode}",
    ).strip()
    value = f"unavailable ({reason})"
    if platform == "win32":  # no display to lack, no system libraries to install: Qt's own files are missing
        return Row("Qt platform", value, fix="Qt's windows platform plugin (PySide6\\plugins\\platforms\\"
                   f"qwindows.dll) did not load: {_reinstall_hint(installation)}")
    if not (os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY") or os.environ.get("QT_QPA_PLATFORM")):
        # No display at all (ssh, a container): not a broken install.
        return Row("Qt platform", f"{value}; no display: run IdeA in a desktop session or with "
                                  "QT_QPA_PLATFORM=offscreen")
    return Row("Qt platform", value, fix="install the system libraries Qt needs (README, \"What the machine "
               "needs\"); the line above names the first one missing")


def _terminal_backend(installation: Installation, platform: str = sys.platform) -> Row:
    from idea.ui.terminal.backend import NATIVE, chosen_backend

    try:
        backend = chosen_backend(os.environ, platform)
    except AppError as exc:
        return Row("Terminal backend", exc.message)
    if backend == NATIVE:
        return _native_backend(installation, platform)
    try:
        import pyside6_qtermwidget  # noqa: F401
    except ImportError as exc:
        if installation.kind in (Kind.APPIMAGE, Kind.FROZEN):
            fix = _reinstall_hint(installation)
        elif "/pipx/venvs/" in sys.prefix:
            fix = f"pipx inject {DISTRIBUTION} '{_pinned_requirement(TERMINAL_WIDGET)}'"
        else:
            fix = f"{sys.executable} -m pip install '{_pinned_requirement(TERMINAL_WIDGET)}'"
        return Row("Terminal backend", f"QTermWidget unavailable ({exc})",
                   fix=f"IdeA cannot draw terminal cells without it: {fix}")
    return Row("Terminal backend", f"QTermWidget ({TERMINAL_WIDGET} {_package_version(TERMINAL_WIDGET)})")


def _resources(installation: Installation) -> Row:
    try:
        directory = resources_dir()
        missing = missing_resources(directory)
    except RuntimeError as exc:
        return Row("Resources", str(exc), fix=_reinstall_hint(installation))
    if not missing:
        return Row("Resources", str(directory))
    shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
    return Row("Resources", f"{directory}: missing {shown}",
               fix=f"IdeA's shipped files are incomplete: {_reinstall_hint(installation)}")


def _native_backend(installation: Installation, platform: str = sys.platform) -> Row:
    """The native view (evp), over ConPTY (pywinpty) on Windows, where it is the only terminal IdeA has."""
    needed = ("evp", "winpty") if platform == "win32" else ("evp",)
    try:
        for module in needed:
            importlib.import_module(module)
    except ImportError as exc:
        if platform == "win32":
            fix = f"IdeA cannot draw terminal cells without it: {_reinstall_hint(installation)}"
        else:
            fix = ("IdeA's own terminal view needs Python 3.13 or newer with the evp package; unset "
                   "IDEA_TERMINAL to use QTermWidget")
        return Row("Terminal backend", f"native view unavailable ({exc})", fix=fix)
    pty = "ConPTY (pywinpty " + _package_version("pywinpty") + ")" if platform == "win32" else "POSIX PTY"
    return Row("Terminal backend", f"native view (libghostty-vt through evp {_package_version('evp')}) over {pty}")


def report() -> list[Row]:
    host = local_host()
    installation = detect()
    with ThreadPoolExecutor(max_workers=len(AGENT_CLIS) + 1) as pool:
        platform_future = pool.submit(_qt_platform, installation)
        cli_futures = {cli: pool.submit(probe, f"{cli} --version") for cli in AGENT_CLIS}
        rows = [
            Row("IdeA", f"{__version__} ({sys.executable})"),
            Row("Installed as", f"{installation.kind.value}, started again as {' '.join(installation.command)}"),
            Row("Python", f"{platform.python_version()} on {platform.system()} {platform.machine()}"),
            Row("Qt", f"PySide6 {_package_version('PySide6-Essentials')}"),
            platform_future.result(),
            *_display_rows(),
            _terminal_backend(installation),
            _resources(installation),
            Row("Git", f"pygit2 {_package_version('pygit2')} (libgit2 bundled)"),
            Row("User data", f"{user_data_dir()}{'  (IDEA_DATA_DIR)' if os.environ.get('IDEA_DATA_DIR') else ''}"),
            Row("Diagnostics log", str(logs_dir() / "idea.log")),
            Row("Login shell", host.login_shell()),
            Row("Shells", ", ".join(_shells()) or "none found"),
        ]
        for cli, future in cli_futures.items():
            result = future.result()
            if result.path is None:
                rows.append(Row(cli, f"not found on PATH (to install it: {REFERENCE_INSTALL_COMMANDS[cli]})"))
            elif result.error:
                rows.append(Row(cli, f"{result.path} (error: {result.error})"))
            else:
                rows.append(Row(cli, f"{result.version}  ({result.path})"))
    return rows


def about_rows() -> list[tuple[str, str]]:
    """The report as a bug report gives it: each row's name and value, with its fix when it has one."""
    return [(row.name, f"{row.value} (to fix: {row.fix})" if row.fix else row.value) for row in report()]


def _display_rows(platform: str = sys.platform) -> list[Row]:
    """The X11/Wayland display and the headless terminals (ptyprocess): POSIX only. Windows has its desktop,
    and its terminals are the native cell's ConPTY ones, reported above."""
    if platform == "win32":
        return []
    return [
        Row("Display", os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY") or "none"),
        Row("Headless terminals", f"ptyprocess {_package_version('ptyprocess')}"),
    ]


def _shells() -> list[str]:
    if sys.platform == "win32":
        from idea.infrastructure.windows.host import available_shells

        return available_shells(os.environ, lambda name: local_host().which(name, os.environ.get("PATH")))
    try:
        lines = Path("/etc/shells").read_text().splitlines()
    except OSError:
        return []
    return [line for line in lines if line.startswith("/") and os.access(line, os.X_OK)]


def _probe_qt_platform() -> int:
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication(sys.argv[:1])
    print(app.platformName())
    return 0


DOCTOR_HELP = (
    "What IdeA finds on this machine (Python, Qt, the terminal widget, git, shells, agent CLIs, where its "
    "settings and log are) and, when something it needs is missing, what to do about it. Exits 1 then."
)


def run_doctor(args: list[str]) -> int:
    if args == [PROBE_QT_PLATFORM]:
        return _probe_qt_platform()
    if args in (["-h"], ["--help"]):
        print(f"usage: idea doctor\n\n{textwrap.fill(DOCTOR_HELP, 79)}")
        return 0
    if args:
        print(f"usage: idea doctor\nidea doctor: unexpected {' '.join(args)}", file=sys.stderr)
        return 2
    rows = report()
    width = max(len(row.name) for row in rows)
    for row in rows:
        print(f"{row.name.ljust(width)}  {row.value}")
    problems = [row for row in rows if row.fix]
    if not problems:
        return 0
    print(f"\nIdeA cannot start: {counted(len(problems), 'problem')}.")
    for row in problems:
        print(f"- {row.name}: {row.fix}")
    return 1
