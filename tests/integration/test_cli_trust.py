"""Trusting run directories in the user's own Claude and Gemini configuration."""

from __future__ import annotations

import json
from pathlib import Path

from idea.infrastructure.agents.cli_homes import claude_config_dir, claude_state_file, gemini_dir
from idea.infrastructure.agents.cli_trust import trust_for_claude, trust_for_gemini

RUN_DIR = "/work/demo/.ideai/run/00000000-0000-4000-8000-000000000001"


def test_claude_gets_the_run_dir_trusted_and_keeps_everything_else(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    original = {"numStartups": 7, "projects": {"/elsewhere": {"allowedTools": ["Bash"]}}}
    config.write_text(json.dumps(original))

    assert trust_for_claude(RUN_DIR, config) is None

    written = json.loads(config.read_text())
    assert written["numStartups"] == 7
    assert written["projects"]["/elsewhere"] == {"allowedTools": ["Bash"]}
    assert written["projects"][RUN_DIR] == {"hasTrustDialogAccepted": True}
    assert json.loads((tmp_path / ".claude.json.idea-backup").read_text()) == original


def test_an_unreadable_claude_config_is_left_alone(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    config.write_text("{not json")
    warning = trust_for_claude(RUN_DIR, config)
    assert warning is not None and ".claude.json was not updated" in warning
    assert config.read_text() == "{not json"
    assert list(tmp_path.iterdir()) == [config]


def test_gemini_trusted_folders_gain_the_run_dir(tmp_path: Path) -> None:
    assert trust_for_gemini(RUN_DIR, tmp_path / ".gemini") is None
    folders = tmp_path / ".gemini" / "trustedFolders.json"
    assert json.loads(folders.read_text()) == {RUN_DIR: "TRUST_FOLDER"}
    before = folders.stat().st_mtime_ns
    assert trust_for_gemini(RUN_DIR, tmp_path / ".gemini") is None
    assert folders.stat().st_mtime_ns == before  # nothing to change, nothing written


def test_where_each_cli_keeps_its_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert claude_config_dir({}, home) == home / ".claude"
    assert claude_state_file({}, home) == home / ".claude.json"
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": "/cfg"}, home) == Path("/cfg")
    assert claude_state_file({"CLAUDE_CONFIG_DIR": "/cfg"}, home) == Path("/cfg/.claude.json")  # checked with 2.1
    assert gemini_dir({}, home) == home / ".gemini"
    assert gemini_dir({"GEMINI_CLI_HOME": "/g"}, home) == Path("/g/.gemini")
