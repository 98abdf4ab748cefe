"""Sign-in prechecks of the agent CLIs, from their own credential files and variables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from idea.application.sign_in import LoginCommand
from idea.domain.profile import Profile
from idea.infrastructure.agents.sign_in import LocalSignInChecker, cli_family
from idea.infrastructure.resources import resources_dir


def shipped(name: str) -> Profile:
    data = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    return Profile.from_json(next(p for p in data if p["name"] == name))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path


def checker(home: Path, **env: str) -> LocalSignInChecker:
    return LocalSignInChecker(environ=env, home=home)


def test_families() -> None:
    assert cli_family(shipped("Claude Code")) == "claude"
    assert cli_family(shipped("Gemini CLI")) == "gemini"
    assert cli_family(shipped("Aider")) is None
    custom = Profile.from_json({**shipped("Gemini CLI").to_json(), "command": "/opt/bin/gemini"})
    assert cli_family(custom) == "gemini"


def test_claude(home: Path) -> None:
    profile = shipped("Claude Code")
    check = checker(home).check(profile)
    assert check is not None and not check.signed_in
    assert check.login == LoginCommand((profile.command, "auth", "login"))
    assert check.refusal("Architect") == (
        "Claude Code is not signed in for agent Architect. Choose Sign in to Claude Code in the agent's menu of the "
        "Agents panel (it runs `claude auth login` in a cell), or set ANTHROPIC_API_KEY in IdeA's environment, then "
        "start the agent again."
    )
    assert checker(home, ANTHROPIC_API_KEY="k").check(profile).signed_in  # type: ignore[union-attr]
    (home / ".claude").mkdir()
    (home / ".claude" / ".credentials.json").write_text("{}")
    assert checker(home).check(profile).signed_in  # type: ignore[union-attr]


def test_claude_account_in_its_state_file(home: Path) -> None:
    (home / ".claude.json").write_text(json.dumps({"oauthAccount": {"emailAddress": "ada@example.com"}}))
    assert checker(home).check(shipped("Claude Code")).signed_in  # type: ignore[union-attr]
    (home / ".claude.json").write_text("{broken")
    assert not checker(home).check(shipped("Claude Code")).signed_in  # type: ignore[union-attr]
    # with CLAUDE_CONFIG_DIR, Claude Code keeps its state file there, not in the home folder
    (home / ".claude.json").write_text(json.dumps({"oauthAccount": {"emailAddress": "ada@example.com"}}))
    config = home / "claude-config"
    config.mkdir()
    assert not checker(home, CLAUDE_CONFIG_DIR=str(config)).check(shipped("Claude Code")).signed_in  # type: ignore[union-attr]
    (config / ".claude.json").write_text(json.dumps({"oauthAccount": {"emailAddress": "ada@example.com"}}))
    assert checker(home, CLAUDE_CONFIG_DIR=str(config)).check(shipped("Claude Code")).signed_in  # type: ignore[union-attr]


def test_codex(home: Path) -> None:
    profile = shipped("Codex")
    check = checker(home).check(profile)
    assert check is not None and not check.signed_in and "codex login" in check.what_to_do
    assert check.login == LoginCommand((profile.command, "login"), {"CODEX_HOME": str(home / ".codex")})
    elsewhere_login = checker(home, CODEX_HOME=str(home / "shared")).check(profile)
    assert elsewhere_login is not None and elsewhere_login.login is not None
    assert elsewhere_login.login.env == {"CODEX_HOME": str(home / "shared")}  # the login every Codex agent links to
    (home / ".codex").mkdir()
    (home / ".codex" / "auth.json").write_text("{}")
    assert checker(home).check(profile).signed_in  # type: ignore[union-attr]
    elsewhere = home / "codex-home"
    assert not checker(home, CODEX_HOME=str(elsewhere)).check(profile).signed_in  # type: ignore[union-attr]
    assert checker(home, OPENAI_API_KEY="k").check(profile).signed_in  # type: ignore[union-attr]


def test_gemini(home: Path) -> None:
    profile = shipped("Gemini CLI")
    check = checker(home).check(profile)
    assert check is not None and not check.signed_in and "Sign in with Google" in check.what_to_do
    assert check.login == LoginCommand((profile.command,))  # no login command: its first start asks
    assert checker(home, GEMINI_API_KEY="k").check(profile).signed_in  # type: ignore[union-attr]
    (home / ".gemini").mkdir()
    (home / ".gemini" / "oauth_creds.json").write_text("{}")
    assert checker(home).check(profile).signed_in  # type: ignore[union-attr]


def test_gemini_home_token_and_keychain(home: Path) -> None:
    profile = shipped("Gemini CLI")
    elsewhere = home / "gemini-home"
    assert not checker(home, GEMINI_CLI_HOME=str(elsewhere)).check(profile).signed_in  # type: ignore[union-attr]
    (elsewhere / ".gemini").mkdir(parents=True)
    (elsewhere / ".gemini" / "oauth_creds.json").write_text("{}")
    assert checker(home, GEMINI_CLI_HOME=str(elsewhere)).check(profile).signed_in  # type: ignore[union-attr]
    assert not checker(home).check(profile).signed_in  # type: ignore[union-attr]  # not in the user's home
    code_assist = checker(home, GOOGLE_GENAI_USE_GCA="true", GOOGLE_CLOUD_ACCESS_TOKEN="t").check(profile)
    assert code_assist is not None and code_assist.signed_in
    assert checker(home, GOOGLE_APPLICATION_CREDENTIALS="/k.json").check(profile).signed_in  # type: ignore[union-attr]
    # the system keychain: IdeA cannot tell, so it does not refuse
    assert checker(home, GEMINI_FORCE_ENCRYPTED_FILE_STORAGE="true").check(profile) is None
    (home / ".gemini").mkdir()
    (home / ".gemini" / "gemini-credentials.json").write_text("{}")
    assert checker(home, GEMINI_FORCE_ENCRYPTED_FILE_STORAGE="true").check(profile).signed_in  # type: ignore[union-attr]


def test_no_precheck_for_aider(home: Path) -> None:
    assert checker(home).check(shipped("Aider")) is None
