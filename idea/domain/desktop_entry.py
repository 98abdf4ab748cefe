"""The applications-menu entry of an installed IdeA: the shipped `.desktop` file pointed at one executable.

Quoting follows the Desktop Entry Specification (1.5, "The Exec key"): an argument with a reserved character
is double-quoted, `"`, `` ` ``, `$` and `\\` inside the quotes are escaped with a backslash, `%` is doubled
for field codes, and the whole value is then escaped as a string (`\\` becomes `\\\\`).
"""

from __future__ import annotations

MANAGED_KEY = "X-IdeA-Managed"  # marks the entries IdeA wrote, so it never edits or removes anyone else's
TARGET_KEY = "X-IdeA-Executable"  # the executable the entry starts, unescaped, to notice when it moved
_RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")
_ESCAPED_IN_QUOTES = frozenset('"`$\\')


def quote_exec_argument(argument: str) -> str:
    """One argument of an `Exec` value, as it is written in the file."""
    if argument and not (_RESERVED & set(argument)):
        quoted = argument
    else:
        quoted = '"' + "".join("\\" + ch if ch in _ESCAPED_IN_QUOTES else ch for ch in argument) + '"'
    return _escape_string(quoted.replace("%", "%%"))


def _escape_string(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def menu_entry(shipped: str, executable: str) -> str:
    """The shipped entry with `Exec` and `TryExec` pointed at `executable`, and IdeA's markers added."""
    out: list[str] = []
    in_main_group = False
    for line in shipped.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            if in_main_group:
                _insert_before_blank_tail(out, _markers(executable))
            in_main_group = stripped == "[Desktop Entry]"
        elif in_main_group and _key(stripped) in ("Exec", "TryExec", MANAGED_KEY, TARGET_KEY):
            key = _key(stripped)
            if key == "Exec":
                out.append(f"Exec={quote_exec_argument(executable)} %F")
            elif key == "TryExec":
                out.append(f"TryExec={_escape_string(executable)}")
            continue
        out.append(line)
    if in_main_group:
        _insert_before_blank_tail(out, _markers(executable))
    return "\n".join(out) + "\n"


def _insert_before_blank_tail(lines: list[str], added: list[str]) -> None:
    at = len(lines)
    while at > 0 and not lines[at - 1].strip():
        at -= 1
    lines[at:at] = added


def _markers(executable: str) -> list[str]:
    return [f"{MANAGED_KEY}=true", f"{TARGET_KEY}={_escape_string(executable)}"]


def managed_target(entry: str) -> str | None:
    """The executable an entry IdeA wrote starts; None for an entry IdeA did not write."""
    values: dict[str, str] = {}
    in_main_group = False
    for line in entry.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_main_group = stripped == "[Desktop Entry]"
        elif in_main_group and "=" in stripped:
            key, value = stripped.split("=", 1)
            values[key.strip()] = value.strip()
    if values.get(MANAGED_KEY) != "true" or TARGET_KEY not in values:
        return None
    return _unescape_string(values[TARGET_KEY])


def _unescape_string(value: str) -> str:
    out, index = [], 0
    replacements = {"\\": "\\", "n": "\n", "t": "\t", "s": " ", "r": "\r"}
    while index < len(value):
        ch = value[index]
        if ch == "\\" and index + 1 < len(value) and value[index + 1] in replacements:
            out.append(replacements[value[index + 1]])
            index += 2
        else:
            out.append(ch)
            index += 1
    return "".join(out)


def _key(line: str) -> str:
    return line.split("=", 1)[0].strip() if "=" in line else ""
