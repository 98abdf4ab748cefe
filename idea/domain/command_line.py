"""Command lines for the shells that run IdeA's hook relay, and for Windows programs (pure functions).

A CLI runs a hook command through a shell. On Linux and macOS that is `sh -c`: `posix_shell_line`. On
Windows, Claude Code runs hook commands through Git Bash when it finds it and through `cmd.exe` otherwise
(older versions always through `cmd.exe`), so `windows_shell_line` writes a line that means the same to
both: every word that needs it in double quotes, which both shells strip, and any character that the two
read differently inside double quotes refused with a clear error (`%` expands in cmd.exe, `$` and `` ` ``
in bash, a doubled backslash collapses in bash, a backslash before the closing quote escapes it for the
program's own argument parser).

Gemini CLI runs its hook commands through `bash -c` on Linux and macOS (`posix_shell_line` again) and through
PowerShell on Windows: `powershell_line`, the call operator and every word in single quotes.

`windows_argument` / `windows_command_line` are the Microsoft C runtime's quoting, what a program started
with CreateProcess parses back (subprocess.list2cmdline's rules, written out so the domain stays pure).
`cmd_c_line` quotes a command for `cmd.exe /d /s /c "…"`, which a batch file (`.cmd`) needs: each argument
quoted for the C runtime, then every cmd.exe metacharacter escaped with `^`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_SAFE_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=@+")
_DIFFERENT_IN_CMD_AND_BASH = {
    '"': "a double quote",
    "%": "a percent sign (cmd.exe expands %NAME%)",
    "$": "a dollar sign (bash expands $NAME)",
    "`": "a backquote (bash runs `…`)",
}
_CMD_METACHARACTERS = frozenset('()%!^"<>&|')


class UnquotableArgument(ValueError):
    """An argument that no Windows hook command line can carry unchanged through both cmd.exe and bash."""


def posix_shell_line(argv: Sequence[str]) -> str:
    return shlex.join(argv)


def windows_shell_line(argv: Sequence[str]) -> str:
    return " ".join(_shell_word(argument) for argument in argv)


def windows_shell_split(line: str) -> list[str]:
    """The words of a line `windows_shell_line` wrote (bare words, or double-quoted ones without escapes).
    ValueError for an unbalanced quote."""
    words: list[str] = []
    current: list[str] = []
    quoted = in_word = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
            in_word = True
        elif ch in " \t" and not quoted:
            if in_word:
                words.append("".join(current))
            current, in_word = [], False
        else:
            current.append(ch)
            in_word = True
    if quoted:
        raise ValueError("unbalanced double quote")
    if in_word:
        words.append("".join(current))
    return words


@dataclass(frozen=True)
class ShellDialect:
    """How hook command lines are written and read back on this platform."""

    join: Callable[[Sequence[str]], str]
    split: Callable[[str], list[str]]


def powershell_line(argv: Sequence[str]) -> str:
    """`& 'program' 'arg' …`: inside single quotes PowerShell expands nothing and reads `''` as one quote.
    Refused: what Windows PowerShell passes on to a program other than as written (an empty argument is
    dropped, a double quote mangled, a trailing backslash escapes the quotes it adds around a word with a
    space) and control characters."""
    return "& " + " ".join(_powershell_word(argument) for argument in argv)


def powershell_split(line: str) -> list[str]:
    """The words of a line `powershell_line` wrote, with bare words after it (`--event Stop`). ValueError for
    another line or an unbalanced quote."""
    if not line.startswith("& "):
        raise ValueError("not a call-operator line")
    words: list[str] = []
    index, length = 2, len(line)
    while index < length:
        if line[index] == " ":
            index += 1
        elif line[index] == "'":
            word: list[str] = []
            index += 1
            while True:
                end = line.find("'", index)
                if end < 0:
                    raise ValueError("unbalanced single quote")
                word.append(line[index:end])
                if line.startswith("''", end):
                    word.append("'")
                    index = end + 2
                    continue
                index = end + 1
                break
            words.append("".join(word))
        else:
            end = line.find(" ", index)
            end = length if end < 0 else end
            words.append(line[index:end])
            index = end
    return words


POSIX_SHELL = ShellDialect(join=posix_shell_line, split=shlex.split)
WINDOWS_SHELL = ShellDialect(join=windows_shell_line, split=windows_shell_split)
POWERSHELL = ShellDialect(join=powershell_line, split=powershell_split)


def _powershell_word(argument: str) -> str:
    if not argument:
        raise UnquotableArgument("an empty argument (Windows PowerShell drops it)")
    if '"' in argument:
        raise UnquotableArgument(f"{argument!r} contains a double quote (Windows PowerShell passes it on mangled)")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in argument):
        raise UnquotableArgument(f"{argument!r} contains a control character")
    if argument.endswith("\\"):
        raise UnquotableArgument(f"{argument!r} ends with a backslash (it would escape the closing quote)")
    return "'" + argument.replace("'", "''") + "'"


def _shell_word(argument: str) -> str:
    if argument and all(ch in _SAFE_BARE or ord(ch) > 0x7F for ch in argument):
        return argument
    for ch in argument:
        if ch in _DIFFERENT_IN_CMD_AND_BASH:
            raise UnquotableArgument(f"{argument!r} contains {_DIFFERENT_IN_CMD_AND_BASH[ch]}")
        if ord(ch) < 0x20 or ord(ch) == 0x7F:
            raise UnquotableArgument(f"{argument!r} contains a control character")
    if "\\\\" in argument:
        raise UnquotableArgument(f"{argument!r} contains a doubled backslash (bash would halve it)")
    if argument.endswith("\\"):
        raise UnquotableArgument(f"{argument!r} ends with a backslash (it would escape the closing quote)")
    return f'"{argument}"'


def windows_argument(argument: str) -> str:
    """One argument quoted for the C runtime's parser (CommandLineToArgvW rules), as list2cmdline does:
    quotes around an argument with a space or tab (or an empty one); backslashes doubled only before a
    double quote, which is escaped."""
    needs_quotes = not argument or " " in argument or "\t" in argument
    out = ['"'] if needs_quotes else []
    backslashes = 0
    for ch in argument:
        if ch == "\\":
            backslashes += 1
            continue
        if ch == '"':
            out.append("\\" * (backslashes * 2 + 1) + '"')
        else:
            out.append("\\" * backslashes + ch)
        backslashes = 0
    if needs_quotes:
        out.append("\\" * (backslashes * 2) + '"')
    else:
        out.append("\\" * backslashes)
    return "".join(out)


def windows_command_line(argv: Sequence[str]) -> str:
    return " ".join(windows_argument(argument) for argument in argv)


def _cmd_escaped(text: str) -> str:
    return "".join("^" + ch if ch in _CMD_METACHARACTERS else ch for ch in text)


def cmd_c_line(argv: Sequence[str]) -> str:
    """The string after `cmd.exe /d /s /c`: the whole command in quotes that /s strips, every argument
    quoted for the C runtime (always, so an empty one survives) and every metacharacter escaped, so
    `&`, `|`, `%PATH%` or `^` in an argument reach the batch file as written."""
    words = [_cmd_escaped(argv[0])] + [_cmd_escaped(_always_quoted(argument)) for argument in argv[1:]]
    return '"' + " ".join(words) + '"'


def _always_quoted(argument: str) -> str:
    quoted = windows_argument(argument)
    return quoted if quoted.startswith('"') else f'"{quoted}"'
