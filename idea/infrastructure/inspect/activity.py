"""The activity token of an agent (spec 05 §4): the cumulative size of its CLI's transcript files plus the
hook events IdeA received for it. It only grows while the agent works; it is None when IdeA has no source
for that agent (no proof of life either way). Cheap: directory listings and `os.stat`, never reading files.

- Claude: the directory of the `transcript_path` its hooks reported, else
  `~/.claude/projects/<encode_cwd(runDir)>/` (original failure #11: an `encode_cwd` that kept the dot of
  `.ideai` never found the folder, so no end of turn was ever seen).
- Codex: `<runDir>/.codex/sessions/**/*.jsonl` (its CODEX_HOME is the run dir's `.codex`).
- Another CLI whose hooks report a `transcript_path` (Gemini CLI: its chat, `~/.gemini/tmp/<…>/chats/`): the
  directory of that file, once reported.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from idea.domain.errors import AppError
from idea.domain.project import IDEAI_DIR

TRANSCRIPT_SUFFIX = ".jsonl"
CODEX_HOME_DIR = ".codex"  # an agent's CODEX_HOME, in its run dir


def encode_cwd(path: str) -> str:
    """Claude's project folder name for a working directory: every character that is not an ASCII letter
    or digit becomes `-` (`/p/.ideai/run/x` -> `-p--ideai-run-x`)."""
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in path)


def agent_run_dir(project_root: str, agent_id: str) -> str:
    return os.path.join(project_root, IDEAI_DIR, "run", agent_id)


class TranscriptActivityProbe:
    def __init__(self, project_root: str, kind_of: Callable[[str], str | None], home: str | None = None) -> None:
        """`kind_of(agent_id)`: "claude", "codex" or None, the CLI family of the agent's profile."""
        self._project_root = project_root
        self._kind_of = kind_of
        self._home = home if home is not None else os.path.expanduser("~")
        self._hook_events: dict[str, int] = {}
        self._transcript_dirs: dict[str, str] = {}

    def note_hook_event(self, agent_id: str, transcript_path: str | None) -> None:
        self._hook_events[agent_id] = self._hook_events.get(agent_id, 0) + 1
        if transcript_path:
            self._transcript_dirs[agent_id] = os.path.dirname(transcript_path)

    def token(self, agent_id: str) -> int | None:
        transcripts = self._transcript_bytes(agent_id)
        hooks = self._hook_events.get(agent_id)
        if transcripts is None and hooks is None:
            return None
        return (transcripts or 0) + (hooks or 0)

    def _transcript_bytes(self, agent_id: str) -> int | None:
        folders = self._transcript_folders(agent_id)
        sizes = [size for folder in folders if (size := _jsonl_bytes(folder)) is not None]
        return sum(sizes) if sizes else None

    def _transcript_folders(self, agent_id: str) -> list[str]:
        try:
            kind = self._kind_of(agent_id)
        except AppError:  # an agent removed from the team, a broken profile: no source
            return []
        run_dir = agent_run_dir(self._project_root, agent_id)
        if kind == "codex":
            return [os.path.join(run_dir, CODEX_HOME_DIR, "sessions")]
        reported = self._transcript_dirs.get(agent_id)
        if reported:
            return [reported]
        if kind != "claude":
            return []
        projects = os.path.join(self._home, ".claude", "projects")
        candidates = {encode_cwd(run_dir), encode_cwd(os.path.realpath(run_dir))}
        return [os.path.join(projects, name) for name in sorted(candidates)]


def _jsonl_bytes(folder: str) -> int | None:
    """Total size of the `*.jsonl` files under `folder` (sub-agents write in sub-folders); None if absent."""
    if not os.path.isdir(folder):
        return None
    total = 0
    for directory, _, files in os.walk(folder):
        for name in files:
            if name.endswith(TRANSCRIPT_SUFFIX):
                try:
                    total += os.stat(os.path.join(directory, name)).st_size
                except OSError:  # rotated away between the listing and the stat
                    continue
    return total
