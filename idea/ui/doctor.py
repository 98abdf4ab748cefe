"""`idea doctor`: what IdeA finds on this machine, as a developer would want to read it."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from idea import __version__
from idea.infrastructure.cli_probe import probe
from idea.infrastructure.host import LocalHost
from idea.infrastructure.paths import logs_dir, user_data_dir

AGENT_CLIS = ("claude", "codex", "gemini", "aider")
_PLATFORM_PROBE = (
    "import sys;from PySide6.QtGui import QGuiApplication;"
    "app=QGuiApplication(sys.argv[:1]);print(app.platformName())"
)


def _package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _qt_platform() -> str:
    """Asked in a child process: Qt aborts the process that cannot open its platform plugin."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PLATFORM_PROBE], capture_output=True, text=True, timeout=20
        )
    except subprocess.TimeoutExpired:
        return "no answer within 20 s"
    if done.returncode == 0:
        return done.stdout.strip()
    reason = next(
        (line for line in done.stderr.splitlines() if "could not" in line.lower() or "cannot" in line.lower()),
        done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit code {done.returncode}",
    )
    return f"unavailable ({reason.strip()})"


def _terminal_backend() -> str:
    try:
        import pyside6_qtermwidget  # noqa: F401
    except ImportError as exc:
        return f"QTermWidget unavailable ({exc})"
    return f"QTermWidget (pyside6-qtermwidget {_package_version('pyside6-qtermwidget')})"


def report() -> list[tuple[str, str]]:
    host = LocalHost()
    with ThreadPoolExecutor(max_workers=len(AGENT_CLIS) + 1) as pool:
        platform_future = pool.submit(_qt_platform)
        cli_futures = {cli: pool.submit(probe, f"{cli} --version") for cli in AGENT_CLIS}
        rows = [
            ("IdeA", f"{__version__} ({sys.executable})"),
            ("Python", f"{platform.python_version()} on {platform.system()} {platform.machine()}"),
            ("Qt", f"PySide6 {_package_version('PySide6-Essentials')}"),
            ("Qt platform", platform_future.result()),
            ("Display", os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY") or "none"),
            ("Terminal backend", _terminal_backend()),
            ("Headless terminals", f"ptyprocess {_package_version('ptyprocess')}"),
            ("Git", f"pygit2 {_package_version('pygit2')} (libgit2 bundled)"),
            ("User data", f"{user_data_dir()}{'  (IDEA_DATA_DIR)' if os.environ.get('IDEA_DATA_DIR') else ''}"),
            ("Diagnostics log", str(logs_dir() / "idea.log")),
            ("Login shell", host.login_shell()),
            ("Shells", ", ".join(_shells()) or "none listed in /etc/shells"),
        ]
        for cli, future in cli_futures.items():
            result = future.result()
            if result.path is None:
                rows.append((cli, "not found on PATH"))
            elif result.error:
                rows.append((cli, f"{result.path} (error: {result.error})"))
            else:
                rows.append((cli, f"{result.version}  ({result.path})"))
    return rows


def _shells() -> list[str]:
    try:
        lines = Path("/etc/shells").read_text().splitlines()
    except OSError:
        return []
    return [line for line in lines if line.startswith("/") and os.access(line, os.X_OK)]


def run_doctor(args: list[str]) -> int:
    if args:
        print("usage: idea doctor", file=sys.stderr)
        return 2
    rows = report()
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    return 0
