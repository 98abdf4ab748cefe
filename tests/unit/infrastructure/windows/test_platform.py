"""The composition root's choice of adapters by operating system."""

from __future__ import annotations

from idea.domain.command_line import POSIX_SHELL, WINDOWS_SHELL
from idea.infrastructure.host import LocalHost
from idea.infrastructure.platform import platform_adapters
from idea.infrastructure.windows.host import WindowsHost
from tests.fakes_gateway import PROJECT_ID


def test_windows_gets_loopback_tcp_cmd_and_bash_quoting_and_the_pathext_host() -> None:
    chosen = platform_adapters("win32")

    assert chosen.name == "windows"
    assert chosen.endpoint_for(PROJECT_ID).endswith(".endpoint")
    assert chosen.shell is WINDOWS_SHELL
    assert isinstance(chosen.make_host(), WindowsHost)


def test_linux_and_macos_keep_the_unix_socket_sh_quoting_and_their_host() -> None:
    for name in ("linux", "darwin"):
        chosen = platform_adapters(name)
        assert chosen.name == "posix"
        assert chosen.endpoint_for(PROJECT_ID).endswith(".sock")
        assert chosen.shell is POSIX_SHELL
        assert isinstance(chosen.make_host(), LocalHost)


def test_the_setup_layout_is_recognised_and_subcommands_run_on_the_console_interpreter() -> None:
    from idea.infrastructure.windows.installation import console_interpreter, setup_root, venv_script

    root = r"C:\Users\Jean Dupré\AppData\Local\Programs\IdeA"
    exists = {rf"{root}\IdeA.exe", r"C:\venv\Scripts\idea.exe"}.__contains__

    assert setup_root(rf"{root}\python\pythonw.exe", exists) == root
    assert setup_root(r"C:\Python313\python.exe", exists) is None
    assert console_interpreter(rf"{root}\python\pythonw.exe") == rf"{root}\python\python.exe"
    assert console_interpreter(rf"{root}\python\python.exe") == rf"{root}\python\python.exe"
    assert venv_script(r"C:\venv\Scripts\python.exe", exists) == r"C:\venv\Scripts\idea.exe"
