"""What the screens say about profiles: how one receives delegated work, what detection found, who uses
it, and control sequences written with escapes."""

from __future__ import annotations

from collections.abc import Iterable

from idea.application.agents.catalogue import ProjectTeam
from idea.application.agents.ports import Detection
from idea.domain.profile import Profile

MCP = "MCP"
REQUEST_FOLDER = "request folder"
UNREACHABLE = "none"


def delegation_label(profile: Profile) -> str:
    """Short form for lists: MCP, request folder, or none."""
    if profile.materializes_idea_bridge():
        return MCP
    return REQUEST_FOLDER if profile.reachable_by_delegation() else UNREACHABLE


def delegation_sentence(profile: Profile) -> str:
    """One line telling the user what delegation to this CLI looks like."""
    match delegation_label(profile):
        case "MCP":
            return "Supports MCP delegation: teammates reach it through IdeA's idea_* tools."
        case "request folder":
            return "Uses the file protocol: it receives tasks as request files in .ideai/requests/."
    return (
        "Cannot receive delegations: its MCP declaration is not one IdeA writes for this CLI family; "
        "remove the MCP settings to use the file protocol."
    )


def agents_using(projects: Iterable[ProjectTeam], profile_id: str) -> list[str]:
    """"Name (project)" of every agent of the open projects that launches with this profile."""
    return [
        f"{agent.name} ({project.name})"
        for project in projects
        for agent in project.agents.manifest().agents
        if agent.profile_id == profile_id
    ]


def describe_detection(detection: Detection) -> str:
    """"found v2.1.0 (Claude Code)", "not found" or "error: …"."""
    text = detection.describe()
    if detection.found and detection.version and detection.version[:1].isdigit():
        return f"found v{detection.version}"
    return text


_NAMED_ESCAPES = {"\r": "\\r", "\n": "\\n", "\t": "\\t", "\\": "\\\\"}
_UNESCAPES = {"r": "\r", "n": "\n", "t": "\t", "e": "\x1b", "a": "\x07", "b": "\x08", "0": "\x00", "\\": "\\"}


def escape_sequence(text: str) -> str:
    """Control characters as the user types them: "\\x1b\\r" for ESC CR."""
    shown = []
    for ch in text:
        if ch in _NAMED_ESCAPES:
            shown.append(_NAMED_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            shown.append(f"\\x{ord(ch):02x}")
        else:
            shown.append(ch)
    return "".join(shown)


def unescape_sequence(text: str) -> str:
    """The inverse of escape_sequence; also accepts \\e for ESC and \\uHHHH. ValueError on a bad escape."""
    result = []
    index = 0
    while index < len(text):
        ch = text[index]
        if ch != "\\":
            result.append(ch)
            index += 1
            continue
        if index + 1 >= len(text):
            raise ValueError("a backslash must be followed by an escape such as \\r, \\n, \\e or \\x1b")
        code = text[index + 1]
        if code in _UNESCAPES:
            result.append(_UNESCAPES[code])
            index += 2
            continue
        width = {"x": 2, "u": 4}.get(code)
        digits = text[index + 2 : index + 2 + width] if width else ""
        if width is None or len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise ValueError(f"unknown escape \\{code}: use \\r, \\n, \\t, \\e, \\xHH or \\uHHHH")
        result.append(chr(int(digits, 16)))
        index += 2 + width
    return "".join(result)
