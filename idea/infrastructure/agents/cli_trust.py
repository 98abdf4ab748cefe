"""Record an agent's run directory as trusted in the user's own CLI configuration (spec 02 §9), so an agent
started in the background by a delegation does not stop at a trust dialog nobody sees.

Only done when the user enabled `trustRunDirsAutomatically`. The user's files are changed in one key each,
atomically, after a backup copy; a file that cannot be parsed is left alone.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from idea.infrastructure.fs import atomic_write_json

GEMINI_TRUSTED_FOLDERS = "trustedFolders.json"
BACKUP_SUFFIX = ".idea-backup"


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


def trust_for_gemini(run_dir: str, gemini_dir: Path) -> str | None:
    """`{run_dir: "TRUST_FOLDER"}` in `trustedFolders.json` of Gemini CLI's folder (`cli_homes`); returns a
    warning or None."""

    def accept(folders: dict[str, Any]) -> bool:
        if folders.get(run_dir) == "TRUST_FOLDER":
            return False
        folders[run_dir] = "TRUST_FOLDER"
        return True

    return _update(gemini_dir / GEMINI_TRUSTED_FOLDERS, accept)


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
