"""The folders Gemini CLI's own file tools may reach besides its working directory, the agent's run dir.

Gemini CLI refuses any path outside its workspace ("Path not in workspace"), which is its working directory
unless `--include-directories` adds folders: without them a Gemini agent can neither edit the project it
works on with its file tools nor write its file-protocol requests (`.ideai/requests/<agentId>/in/`). Claude
Code and Codex get the project root from the permission projector (`additionalDirectories`, `--add-dir`).

When the trust of the run dir is not settled before Gemini starts (`run_dir_trust`: neither trusted in its
`trustedFolders.json`, by the person or by IdeA when run folders are trusted automatically, nor explicitly
untrusted, nor folder trust turned off), its first screen asks "Do you trust the files in this folder?",
and on "trust" Gemini restarts itself with the same arguments — after it has added the folders, which starts
its session: a session id IdeA assigned (`--session-id`) would then be refused as existing ("Session ID …
already exists"). Such a start gets no assigned id (`session_assignable`); Gemini picks its own, which its
`SessionStart` hook tells IdeA — or, for a profile without those hooks, it keeps its id and goes without the
folders until its next start. Any doubt reading Gemini's files counts as unsettled.

An added folder whose own trust is not settled brings Gemini's second question ("Do you trust the following
folders being added to this workspace?"), which the reference profile watches for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from idea.domain.path_names import program_name
from idea.infrastructure.agents.cli_homes import gemini_trusted_folders, gemini_user_settings

GEMINI_INCLUDE_FLAG = "--include-directories"
# Gemini CLI 0.61 (`checkPathTrust`): variables that settle every folder's trust.
_TRUST_VARIABLE = "GEMINI_CLI_TRUST_WORKSPACE"
_RESTRICTED_VARIABLE = "GEMINI_RESTRICTED_MODE"
_TRUSTING = ("TRUST_FOLDER", "TRUST_PARENT")
_LEVELS = (*_TRUSTING, "DO_NOT_TRUST")


def is_gemini_cli(command: str) -> bool:
    return program_name(command).lower() == "gemini"


@dataclass(frozen=True)
class WorkspaceArgs:
    args: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # for the diagnostics log
    session_assignable: bool = True  # False: Gemini will ask whether to trust its run dir, then restart


def gemini_workspace(run_dir: str, work_root: str, request_dir: str | None, *, session_told: bool) -> WorkspaceArgs:
    """`--include-directories` for the agent's project root (or worktree) and, when it lies elsewhere, the
    folder of its file-protocol requests; whether a session id may be assigned to this start. `session_told`:
    its hooks tell IdeA the session it takes, or it is given none anyway; if not, a start Gemini will restart
    goes without the folders and keeps its assigned id (the next start has them)."""
    settled = run_dir_trust(run_dir, os.environ, Path(os.path.expanduser("~"))) is not None
    if not settled and not session_told:
        later = f"Gemini CLI will ask whether to trust {run_dir}; its file tools reach the project from its next start"
        return WorkspaceArgs((), (later,))
    notes = [] if settled else [
        f"Gemini CLI will ask whether to trust {run_dir} and restart: it picks its session id, its hooks tell it"
    ]
    folders = [work_root]
    if request_dir is not None and not PurePath(request_dir).is_relative_to(work_root):
        folders.append(request_dir)
    args: list[str] = []
    for folder in folders:
        if "," in folder:  # Gemini splits each value on commas
            notes.append(
                f"Gemini CLI cannot be given {folder} (its path holds a comma): its file tools will not reach it"
            )
        else:
            args += [GEMINI_INCLUDE_FLAG, folder]
    return WorkspaceArgs(tuple(args), tuple(notes), session_assignable=settled)


def run_dir_trust(folder: str, environ: Mapping[str, str], home: Path) -> bool | None:
    """Whether Gemini CLI will take `folder` as trusted (True), untrusted (False) or ask (None), as its
    `checkPathTrust` decides: the variables, then the user's `security.folderTrust.enabled` (on unless set
    off), then the longest rule of `trustedFolders.json` whose folder holds `folder` (`TRUST_PARENT`: the
    rule's parent folder)."""
    if environ.get(_RESTRICTED_VARIABLE) == "true" or environ.get(_TRUST_VARIABLE) == "false":
        return False
    if environ.get(_TRUST_VARIABLE) == "true":
        return True
    # Settings it reads and IdeA cannot (comments) count as trust left on: that only ever makes IdeA expect a
    # question Gemini will not ask.
    settings = _json_object(gemini_user_settings(environ, home), missing={}) or {}
    security = settings.get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return True
    rules = _json_object(gemini_trusted_folders(environ, home), missing={})
    if rules is None:
        return None
    location = _comparable(folder)
    longest, level = -1, None
    for rule, rule_level in rules.items():
        if rule_level not in _LEVELS:
            return None  # Gemini refuses such a file: what it will do is not known
        holder = os.path.dirname(rule) if rule_level == "TRUST_PARENT" else rule
        if _holds(_comparable(holder), location) and len(rule) > longest:
            longest, level = len(rule), rule_level
    if level is None:
        return None
    return level in _TRUSTING


def _json_object(path: Path, *, missing: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON object in `path`; `missing` when there is no file; None when it cannot be read as one."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return missing
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def _comparable(path: str) -> str:
    real = os.path.realpath(path)
    return os.path.normcase(real)


def _holds(folder: str, location: str) -> bool:
    return location == folder or location.startswith(folder.rstrip(os.sep) + os.sep)
