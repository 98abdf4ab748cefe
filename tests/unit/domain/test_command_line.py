"""Hook command lines for the CLIs' shells, and Windows command-line quoting."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idea.domain.command_line import (
    UnquotableArgument,
    cmd_c_line,
    powershell_line,
    powershell_split,
    windows_argument,
    windows_command_line,
    windows_shell_line,
    windows_shell_split,
)

PYTHON = r"C:\Users\Jean Dupré\AppData\Local\Programs\IdeA\python\python.exe"
ENDPOINT = r"C:\Users\Jean Dupré\AppData\Local\Temp\idea-mcp\0f3c2a9e6b1d4c1e9d0a2f6f1f7b8c11.endpoint"


def test_a_windows_hook_line_quotes_paths_with_spaces_and_leaves_plain_words_bare() -> None:
    line = windows_shell_line([PYTHON, "-m", "idea", "hook", "--endpoint", ENDPOINT, "--event", "Stop"])

    assert line == f'"{PYTHON}" -m idea hook --endpoint "{ENDPOINT}" --event Stop'
    assert windows_shell_split(line) == [PYTHON, "-m", "idea", "hook", "--endpoint", ENDPOINT, "--event", "Stop"]


def test_git_bash_reads_the_windows_hook_line_back_into_the_same_words() -> None:
    """Claude Code runs hook lines through Git Bash when it finds it: a real bash parses the line here."""
    words = [PYTHON, "-m", "idea", "--endpoint", ENDPOINT, "a&b|c<d>e^f(g)!", "ünï cødé", ""]
    line = windows_shell_line(words)
    printer = f"{sys.executable} -c 'import sys; print(chr(0).join(sys.argv[1:]))'"
    done = subprocess.run(["bash", "-c", printer + " " + line], capture_output=True, text=True, check=True)
    assert done.stdout.removesuffix("\n").split("\x00") == words


@pytest.mark.parametrize(
    ("argument", "reason"),
    [
        ('say "hi"', "double quote"),
        (r"C:\Users\100%\x", "percent sign"),
        (r"C:\Users\$HOME\x", "dollar sign"),
        ("a`b`", "backquote"),
        (r"\\server\share\idea.exe", "doubled backslash"),
        ("C:\\dir\\", "ends with a backslash"),
        ("line\nbreak", "control character"),
    ],
)
def test_what_cmd_and_bash_read_differently_is_refused_with_the_reason(argument: str, reason: str) -> None:
    with pytest.raises(UnquotableArgument, match=reason):
        windows_shell_line(["idea", argument])


def test_an_empty_argument_survives() -> None:
    assert windows_shell_line(["idea", ""]) == 'idea ""'
    assert windows_shell_split('idea ""') == ["idea", ""]


@pytest.mark.parametrize(
    ("argument", "quoted"),
    [
        ("plain", "plain"),
        ("", '""'),
        ("two words", '"two words"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("C:\\dir\\", "C:\\dir\\"),
        ("C:\\my dir\\", '"C:\\my dir\\\\"'),
        ('a\\"b', 'a\\\\\\"b'),
    ],
)
def test_c_runtime_quoting_matches_the_rules_of_commandlinetoargvw(argument: str, quoted: str) -> None:
    assert windows_argument(argument) == quoted


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))))
def test_c_runtime_quoting_agrees_with_the_standard_library(argv: list[str]) -> None:
    assert windows_command_line(argv) == subprocess.list2cmdline(argv)


def test_a_batch_file_command_escapes_every_cmd_metacharacter() -> None:
    line = cmd_c_line([r"C:\tools\my tool.cmd", "a&b", "%PATH%", "", 'q"t'])

    assert line == '"C:\\tools\\my tool.cmd ^"a^&b^" ^"^%PATH^%^" ^"^" ^"q\\^"t^""'
    # Outside the outer quotes that /s strips, no metacharacter is left unescaped.
    inner = line[1:-1]
    for index, ch in enumerate(inner):
        if ch in '&|<>()%!^"' and ch != "^":
            assert inner[index - 1] == "^", (index, inner)


def test_a_powershell_hook_line_calls_the_program_with_every_word_single_quoted() -> None:
    """Gemini CLI runs hook lines through PowerShell on Windows; only `'` is special in single quotes."""
    words = [PYTHON, "-I", "-c", "import sys;sys.path[:0]=[sys.argv.pop(1)]", r"C:\Program Files\IdeA's\hooks"]
    line = powershell_line(words) + " --event Stop"

    assert line.startswith(f"& '{PYTHON}' '-I' '-c' 'import sys;sys.path[:0]=[sys.argv.pop(1)]' ")
    assert r"'C:\Program Files\IdeA''s\hooks'" in line
    assert powershell_split(line) == [*words, "--event", "Stop"]


@pytest.mark.parametrize(
    ("argument", "reason"),
    [("", "empty argument"), ('say "hi"', "double quote"), ("C:\\dir\\", "ends with a backslash"), ("a\nb", "control")],
)
def test_what_windows_powershell_passes_on_mangled_is_refused(argument: str, reason: str) -> None:
    with pytest.raises(UnquotableArgument, match=reason):
        powershell_line(["idea", argument])


@pytest.mark.parametrize("line", ["idea hook", "& 'unbalanced"])
def test_a_line_powershell_line_did_not_write_is_not_read(line: str) -> None:
    with pytest.raises(ValueError):
        powershell_split(line)
