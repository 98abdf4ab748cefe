"""What the screens say about profiles: how one receives delegated work, what detection found, who uses
it."""

from __future__ import annotations

from collections.abc import Iterable

from idea.application.agents.catalogue import ProjectTeam
from idea.application.agents.ports import Detection
from idea.domain.profile import REFERENCE_INSTALL_COMMANDS, Profile, reference_profile_id

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


_INSTALL_COMMANDS_BY_ID = {reference_profile_id(slug): command for slug, command in REFERENCE_INSTALL_COMMANDS.items()}


def install_hint(profile: Profile, detection: Detection) -> str | None:
    """How to install a reference CLI that detection did not find on PATH; None when it was found, when it
    failed otherwise, or for a custom profile."""
    command = _INSTALL_COMMANDS_BY_ID.get(profile.id)
    if command is None or detection.path is not None:
        return None
    return f"To install it: {command}"


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
