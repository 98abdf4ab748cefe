"""Record an agent's run directory as trusted in the user's own CLI configuration (spec 02 §9), so an agent
started in the background by a delegation does not stop at a trust dialog nobody sees.

Only done when the user enabled `trustRunDirsAutomatically`. The user's files are changed in one key each,
atomically, after a backup copy; a file that cannot be parsed is left alone.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from idea.domain.profile import Profile
from idea.infrastructure.agents.cli_homes import claude_state_file, gemini_trusted_folders
from idea.infrastructure.agents.gemini_workspace import is_gemini_cli
from idea.infrastructure.fs import atomic_write_json

BACKUP_SUFFIX = ".idea-backup"


def trust_run_dir(profile: Profile, run_dir: str) -> str | None:
    """The folder the agent starts in, trusted for the CLI of `profile` when it asks (Claude Code, Gemini
    CLI); returns a warning or None."""
    home = Path(os.path.expanduser("~"))
    if profile.structured_adapter == "claude":
        return trust_for_claude(run_dir, claude_state_file(os.environ, home))
    if is_gemini_cli(profile.command):
        return trust_for_gemini(run_dir, gemini_trusted_folders(os.environ, home))
    return None


def trust_for_claude(run_dir: str, state_file: Path) -> str | None:
    """`projects[run_dir].hasTrustDialogAccepted = true` in Claude Code's state file (`cli_homes`); returns a
    warning or None."""

    def accept(config: dict[str, Any]) -> bool:
        projects = config.setdefault("projects", {})
        entry = projects.setdefault(run_dir, {})
        if entry.get("hasTrustDialogAccepted") is True:
            return False
        entry["hasTrustDialogAccepted"] = True
        return True

    return _update(state_file, accept)


def trust_for_gemini(run_dir: str, trusted_folders: Path) -> str | None:
    """`{run_dir: "TRUST_FOLDER"}` in Gemini CLI's trusted folders (`cli_homes.gemini_trusted_folders`);
    returns a warning or None."""

    def accept(folders: dict[str, Any]) -> bool:
        if folders.get(run_dir) == "TRUST_FOLDER":
            return False
        folders[run_dir] = "TRUST_FOLDER"
        return True

    return _update(trusted_folders, accept)


def _update(path: Path, change: Callable[[dict[str, Any]], bool]) -> str | None:
    # Not fs.read_json: a file of another program that IdeA cannot parse is never moved aside.
    try:
        document: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        document = {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{path} was not updated to trust the run directory: {exc}"
    if not isinstance(document, dict):
        return f"{path} was not updated to trust the run directory: it does not hold a JSON object"
    if not change(document):
        return None
    if path.exists():
        shutil.copy2(path, path.with_name(path.name + BACKUP_SUFFIX))
    atomic_write_json(path, document)
    return None
