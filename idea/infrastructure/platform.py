"""Which adapters this operating system gets; the composition root (`idea/bootstrap.py`) asks here once.

POSIX (Linux, macOS): the project's MCP endpoint is a Unix socket, hook command lines are quoted for
`sh`, the host reads the login shell from the user database. Windows: loopback TCP with an endpoint file
(`mcp/transport.py` says why not a named pipe), hook command lines that cmd.exe and Git Bash read alike
(and PowerShell's for Gemini CLI), a host that looks CLIs up with PATHEXT and starts npm's `.cmd` shims
through node. Imports are lazy: a POSIX adapter module may import what Windows lacks (`pwd`, `fcntl`) and
the other way round.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from idea.application.ports import Host
from idea.domain.command_line import POSIX_SHELL, POWERSHELL, WINDOWS_SHELL, ShellDialect


@dataclass(frozen=True)
class PlatformAdapters:
    name: str  # "posix" or "windows"
    endpoint_for: Callable[[str], str]  # project id -> the endpoint the bridge and the relay are given
    shell: ShellDialect  # how hook command lines are written for the CLIs' shell
    make_host: Callable[[], Host]
    gemini_shell: ShellDialect = POSIX_SHELL  # Gemini CLI runs hooks through bash, PowerShell on Windows


def platform_adapters(platform: str = sys.platform) -> PlatformAdapters:
    if platform == "win32":
        return PlatformAdapters("windows", _loopback_endpoint, WINDOWS_SHELL, _windows_host, POWERSHELL)
    return PlatformAdapters("posix", _unix_endpoint, POSIX_SHELL, _posix_host)


def local_host() -> Host:
    return platform_adapters().make_host()


def _unix_endpoint(project_id: str) -> str:
    from idea.infrastructure.mcp.endpoint import mcp_endpoint

    return mcp_endpoint(project_id)


def _loopback_endpoint(project_id: str) -> str:
    from idea.infrastructure.mcp.transport import mcp_loopback_endpoint

    return mcp_loopback_endpoint(project_id)


def _posix_host() -> Host:
    from idea.infrastructure.host import LocalHost

    return LocalHost()


def _windows_host() -> Host:
    from idea.infrastructure.installation import is_frozen
    from idea.infrastructure.windows.host import WindowsHost

    return WindowsHost(is_frozen)
