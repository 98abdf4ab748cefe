"""Where the agent CLIs keep their user files, as they decide it themselves (checked against the CLIs: see
docs/agent-clis.md). IdeA's agents inherit IdeA's environment, so IdeA's variables are theirs.

- Claude Code: its configuration folder is `$CLAUDE_CONFIG_DIR`, else `~/.claude`; its state file (trusted
  folders, the signed-in account) is `.claude.json` in `$CLAUDE_CONFIG_DIR` when set, else in the home folder.
- Gemini CLI: `.gemini` in `$GEMINI_CLI_HOME` when set, else in the home folder, with the user's
  `settings.json`; its trusted folders are `$GEMINI_CLI_TRUSTED_FOLDERS_PATH` when set, else
  `trustedFolders.json` there.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

CLAUDE_STATE_FILE = ".claude.json"
GEMINI_TRUSTED_FOLDERS = "trustedFolders.json"
GEMINI_USER_SETTINGS = "settings.json"


def claude_config_dir(environ: Mapping[str, str], home: Path) -> Path:
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else home / ".claude"


def claude_state_file(environ: Mapping[str, str], home: Path) -> Path:
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return (Path(configured) if configured else home) / CLAUDE_STATE_FILE


def gemini_dir(environ: Mapping[str, str], home: Path) -> Path:
    configured = environ.get("GEMINI_CLI_HOME")
    return (Path(configured) if configured else home) / ".gemini"


def gemini_trusted_folders(environ: Mapping[str, str], home: Path) -> Path:
    configured = environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(configured) if configured else gemini_dir(environ, home) / GEMINI_TRUSTED_FOLDERS


def gemini_user_settings(environ: Mapping[str, str], home: Path) -> Path:
    return gemini_dir(environ, home) / GEMINI_USER_SETTINGS
