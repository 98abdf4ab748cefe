"""The folders Gemini CLI's own file tools may reach besides its working directory, the agent's run dir.

Gemini CLI refuses any path outside its workspace ("Path not in workspace"), which is its working directory
unless `--include-directories` adds folders: without them a Gemini agent could neither edit the project it
works on nor write its file-protocol requests (`.ideai/requests/<agentId>/in/`). Claude Code and Codex get
the project root from the permission projector (`additionalDirectories`, `--add-dir`), or ask before
reaching outside.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from idea.domain.path_names import program_name

GEMINI_INCLUDE_FLAG = "--include-directories"


def is_gemini_cli(command: str) -> bool:
    return program_name(command).lower() == "gemini"


@dataclass(frozen=True)
class WorkspaceArgs:
    args: tuple[str, ...]
    left_out: tuple[str, ...] = ()  # folders that could not be given (Gemini splits each value on commas)


def gemini_workspace_args(work_root: str, request_dir: str | None) -> WorkspaceArgs:
    """`--include-directories` for the agent's project root (or worktree) and, when it lies elsewhere, the
    folder of its file-protocol requests."""
    folders = [work_root]
    if request_dir is not None and not PurePath(request_dir).is_relative_to(work_root):
        folders.append(request_dir)
    args: list[str] = []
    for folder in folders:
        if "," not in folder:
            args += [GEMINI_INCLUDE_FLAG, folder]
    return WorkspaceArgs(tuple(args), tuple(folder for folder in folders if "," in folder))
