"""Finding agent CLIs on a Windows PATH (PATHEXT, `where` order) and starting npm's `.cmd` shims through node."""

from __future__ import annotations

import ntpath

import pytest

from idea.domain.command_line import WINDOWS_SHELL, windows_shell_line
from idea.domain.mcp_wiring import claude_settings, retarget_idea_shell_command
from idea.infrastructure.windows.host import windows_shell
from idea.infrastructure.windows.program_lookup import (
    find_program,
    launch_argv,
    launch_command_line,
    npm_shim_target,
)

NPM_BIN = r"C:\Users\Jean Dupré\AppData\Roaming\npm"
# What npm's cmd-shim writes for a package's bin (npm 10).
CLAUDE_SHIM = r"""@ECHO off
GOTO start
:find_dp0
SET dp0=%~dp0
EXIT /b
:start
SETLOCAL
CALL :find_dp0

IF EXIST "%dp0%\node.exe" (
  SET "_prog=%dp0%\node.exe"
) ELSE (
  SET "_prog=node"
  SET PATHEXT=%PATHEXT:;.JS;=;%
)

endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\node_modules\@anthropic-ai\claude-code\cli.js" %*
"""


def files(*paths: str):
    existing = {path.lower() for path in paths}
    return lambda path: path.lower() in existing


def test_pathext_finds_the_cmd_shim_and_not_the_extensionless_sh_script_beside_it() -> None:
    is_file = files(ntpath.join(NPM_BIN, "claude"), ntpath.join(NPM_BIN, "claude.cmd"), ntpath.join(NPM_BIN, "claude.ps1"))

    assert find_program("claude", rf"C:\Windows\system32;{NPM_BIN}", is_file=is_file) == ntpath.join(NPM_BIN, "claude.cmd")


def test_path_order_wins_then_pathext_order() -> None:
    is_file = files(r"C:\a\codex.cmd", r"C:\b\codex.exe", r"C:\a\codex.bat")

    assert find_program("codex", r"C:\a;C:\b", is_file=is_file) == r"C:\a\codex.bat"  # .BAT before .CMD
    assert find_program("codex", r"C:\b;C:\a", is_file=is_file) == r"C:\b\codex.exe"
    assert find_program("codex", r"C:\a;C:\b", ".CMD;.EXE", is_file=is_file) == r"C:\a\codex.cmd"


def test_a_name_with_its_extension_quoted_folders_and_absolute_paths() -> None:
    is_file = files(r"C:\Program Files\nodejs\node.exe", r"D:\tools\aider.exe")

    assert find_program("node.exe", r'"C:\Program Files\nodejs";C:\x', is_file=is_file) == r"C:\Program Files\nodejs\node.exe"
    assert find_program(r"D:\tools\aider", None, is_file=is_file) == r"D:\tools\aider.exe"
    assert find_program(r"D:\tools\gemini", None, is_file=is_file) is None


def test_the_current_folder_is_never_searched() -> None:
    assert find_program("claude", "", is_file=files(r".\claude.exe", "claude.exe")) is None


def test_an_npm_shim_starts_node_with_the_package_script() -> None:
    shim = ntpath.join(NPM_BIN, "claude.cmd")
    script = ntpath.join(NPM_BIN, r"node_modules\@anthropic-ai\claude-code\cli.js")
    node = r"C:\Program Files\nodejs\node.exe"

    assert npm_shim_target(shim, CLAUDE_SHIM) == (ntpath.join(NPM_BIN, "node.exe"), script)
    argv = launch_argv(
        shim,
        ["--resume", "a b"],
        read_text=lambda _: CLAUDE_SHIM,
        is_file=files(script, node),
        path=r"C:\Program Files\nodejs",
    )
    assert argv == [node, script, "--resume", "a b"]
    assert launch_command_line(argv) == f'"{node}" "{script}" --resume "a b"'


def test_a_batch_file_that_is_not_an_npm_shim_runs_through_cmd_with_escaped_arguments() -> None:
    argv = launch_argv(
        r"C:\tools\run agent.cmd", ["x&y"], read_text=lambda _: "@echo %*\n", comspec=r"C:\Windows\System32\cmd.exe"
    )

    assert argv[:4] == [r"C:\Windows\System32\cmd.exe", "/d", "/s", "/c"]
    assert launch_command_line(argv) == r'C:\Windows\System32\cmd.exe /d /s /c "C:\tools\run agent.cmd ^"x^&y^""'


def test_an_unreadable_shim_or_a_missing_node_falls_back_to_cmd() -> None:
    def unreadable(_: str) -> str:
        raise PermissionError("locked")

    assert launch_argv(r"C:\n\claude.cmd", [], read_text=unreadable, comspec="cmd.exe")[0] == "cmd.exe"
    assert launch_argv(r"C:\n\claude.cmd", [], read_text=lambda _: CLAUDE_SHIM, is_file=files(), comspec="cmd.exe")[0] == "cmd.exe"


def test_an_exe_starts_directly() -> None:
    assert launch_argv(r"C:\bin\codex.exe", ["exec"]) == [r"C:\bin\codex.exe", "exec"]


def test_the_shell_for_shell_cells_prefers_powershell_7_then_windows_powershell_then_cmd() -> None:
    env = {"SystemRoot": r"C:\Windows", "ComSpec": r"C:\Windows\system32\cmd.exe"}
    legacy = r"C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe"

    assert windows_shell(env, lambda name: r"C:\Program Files\PowerShell\7\pwsh.exe") == r"C:\Program Files\PowerShell\7\pwsh.exe"
    assert windows_shell(env, lambda name: None, files(legacy)) == legacy
    assert windows_shell(env, lambda name: None, files()) == r"C:\Windows\system32\cmd.exe"


def test_claude_hooks_on_windows_are_written_for_cmd_and_bash_and_retargeted_in_the_same_dialect() -> None:
    python = r"C:\Users\Jean Dupré\AppData\Local\Programs\IdeA\python\python.exe"
    relay = [python, "-m", "idea", "hook", "--source", "claude", "--endpoint", r"C:\Temp\idea-mcp\p.endpoint"]

    command = claude_settings(relay, 1000, WINDOWS_SHELL)["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert command == windows_shell_line(relay) + " --event Stop"

    moved = [r"D:\Apps\IdeA\idea.exe"]
    again = retarget_idea_shell_command(command, moved, r"C:\Temp\idea-mcp\q.endpoint", WINDOWS_SHELL)
    assert again == r'"D:\Apps\IdeA\idea.exe" hook --source claude --endpoint "C:\Temp\idea-mcp\q.endpoint" --event Stop'


def test_a_relay_path_no_windows_shell_can_carry_is_refused() -> None:
    with pytest.raises(ValueError, match="percent sign"):
        claude_settings([r"C:\Users\100%\python.exe", "hook"], 1000, WINDOWS_SHELL)
