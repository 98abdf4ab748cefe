"""Trusting run directories in the user's own Claude and Gemini configuration, and reading Gemini's."""

from __future__ import annotations

import json
from pathlib import Path

from idea.infrastructure.agents.cli_homes import (
    claude_config_dir,
    claude_state_file,
    gemini_dir,
    gemini_trusted_folders,
)
from idea.infrastructure.agents.cli_trust import trust_for_claude, trust_for_gemini
from idea.infrastructure.agents.gemini_workspace import run_dir_trust

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
    assert trust_for_gemini(RUN_DIR, tmp_path / ".gemini" / "trustedFolders.json") is None
    folders = tmp_path / ".gemini" / "trustedFolders.json"
    assert json.loads(folders.read_text()) == {RUN_DIR: "TRUST_FOLDER"}
    before = folders.stat().st_mtime_ns
    assert trust_for_gemini(RUN_DIR, tmp_path / ".gemini" / "trustedFolders.json") is None
    assert folders.stat().st_mtime_ns == before  # nothing to change, nothing written


def test_where_each_cli_keeps_its_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert claude_config_dir({}, home) == home / ".claude"
    assert claude_state_file({}, home) == home / ".claude.json"
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": "/cfg"}, home) == Path("/cfg")
    assert claude_state_file({"CLAUDE_CONFIG_DIR": "/cfg"}, home) == Path("/cfg/.claude.json")  # checked with 2.1
    assert gemini_dir({}, home) == home / ".gemini"
    assert gemini_dir({"GEMINI_CLI_HOME": "/g"}, home) == Path("/g/.gemini")
    assert gemini_trusted_folders({"GEMINI_CLI_HOME": "/g"}, home) == Path("/g/.gemini/trustedFolders.json")
    assert gemini_trusted_folders({"GEMINI_CLI_TRUSTED_FOLDERS_PATH": "/t.json"}, home) == Path("/t.json")


def gemini_trust(home: Path, folder: Path, rules: dict[str, str] | str | None = None, **environ: str) -> bool | None:
    if rules is not None:
        path = home / ".gemini" / "trustedFolders.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rules if isinstance(rules, str) else json.dumps(rules), encoding="utf-8")
    return run_dir_trust(str(folder), environ, home)


def test_gemini_trust_of_a_run_dir_is_read_as_gemini_cli_decides_it(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    run_dir = project / ".ideai" / "run" / "a1"
    run_dir.mkdir(parents=True)
    home = tmp_path / "home"
    assert gemini_trust(home, run_dir) is None  # never asked: it will ask
    assert gemini_trust(home, run_dir, {str(run_dir): "TRUST_FOLDER"}) is True
    assert gemini_trust(home, run_dir, {str(project): "TRUST_FOLDER"}) is True  # a folder holding it
    assert gemini_trust(home, run_dir, {str(run_dir / "x"): "TRUST_PARENT"}) is True  # the rule's parent
    assert gemini_trust(home, run_dir, {str(run_dir): "DO_NOT_TRUST"}) is False  # settled too: it will not ask
    assert gemini_trust(home, run_dir, {str(project): "TRUST_FOLDER", str(run_dir): "DO_NOT_TRUST"}) is False
    assert gemini_trust(home, run_dir, {str(project): "DO_NOT_TRUST", str(run_dir): "TRUST_FOLDER"}) is True
    assert gemini_trust(home, run_dir, {str(project / ".ideai" / "run" / "a"): "TRUST_FOLDER"}) is None
    link = tmp_path / "link"
    link.symlink_to(project, target_is_directory=True)
    assert gemini_trust(home, run_dir, {str(link): "TRUST_FOLDER"}) is True  # both sides resolved


def test_gemini_trust_settled_by_its_variables_and_settings(tmp_path: Path) -> None:
    home, run_dir = tmp_path / "home", tmp_path / "run"
    run_dir.mkdir()
    assert gemini_trust(home, run_dir, GEMINI_CLI_TRUST_WORKSPACE="true") is True
    assert gemini_trust(home, run_dir, GEMINI_CLI_TRUST_WORKSPACE="false") is False
    assert gemini_trust(home, run_dir, GEMINI_RESTRICTED_MODE="true") is False
    elsewhere = tmp_path / "folders.json"
    elsewhere.write_text(json.dumps({str(run_dir): "TRUST_FOLDER"}), encoding="utf-8")
    assert gemini_trust(home, run_dir, GEMINI_CLI_TRUSTED_FOLDERS_PATH=str(elsewhere)) is True
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}), encoding="utf-8")
    assert gemini_trust(home, run_dir) is True  # folder trust turned off: nothing is asked


def test_gemini_files_read_with_doubt_count_as_unsettled(tmp_path: Path) -> None:
    home, run_dir = tmp_path / "home", tmp_path / "run"
    run_dir.mkdir()
    assert gemini_trust(home, run_dir, "{not json") is None
    assert gemini_trust(home, run_dir, {str(run_dir): "TRUST_EVERYTHING"}) is None  # Gemini refuses the file
    assert gemini_trust(home, run_dir, "[]") is None
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(run_dir): "TRUST_FOLDER"}))
    (home / ".gemini" / "settings.json").write_text('// a comment Gemini allows\n{"security": {}}')
    assert gemini_trust(home, run_dir) is True  # its settings are taken as leaving folder trust on
    (home / ".gemini" / "trustedFolders.json").write_text("{}")
    assert gemini_trust(home, run_dir) is None
