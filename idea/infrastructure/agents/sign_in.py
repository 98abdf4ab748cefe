"""`LocalSignInChecker`: whether an agent CLI has credentials, from the files and variables it reads itself
(verify per supported version). A CLI is recognised by its command's name; others get no precheck.

- Claude Code: `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `CLAUDE_CODE_OAUTH_TOKEN`, Bedrock or Vertex
  switches, `<config>/.credentials.json`, or an `oauthAccount` in its state file (where the macOS keychain keeps
  the secret itself); both places as `cli_homes` says.
- Codex: the shared login of the user's Codex home, or `OPENAI_API_KEY` / `CODEX_API_KEY` (spec 02 §13.3).
- Gemini CLI: `GEMINI_API_KEY`, `GOOGLE_API_KEY`, Vertex AI, `GOOGLE_APPLICATION_CREDENTIALS`, a Code Assist
  access token, or its Google sign-in in `oauth_creds.json` of its folder (`cli_homes`). With
  `GEMINI_FORCE_ENCRYPTED_FILE_STORAGE=true` the sign-in may sit in the system keychain, where IdeA cannot
  look: no precheck then, unless the encrypted file is there.

Each check also says how the person signs in from a cell: `claude auth login` (it prints the sign-in address
and waits for the code), `codex login` with the user's Codex home, and `gemini` itself (Gemini CLI has no
login command: its first start asks how to authenticate).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from idea.application.sign_in import LoginCommand, SignInCheck
from idea.domain.profile import Profile
from idea.infrastructure.agents.cli_homes import claude_config_dir, claude_state_file, gemini_dir
from idea.infrastructure.agents.codex_auth import codex_credentials_available, user_codex_home

CLAUDE_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
)
GEMINI_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS")

CLAUDE_WHAT_TO_DO = (
    "choose Sign in to Claude Code in the agent's menu of the Agents panel (it runs `claude auth login` in a "
    "cell), or set ANTHROPIC_API_KEY in IdeA's environment, then start the agent again"
)
CODEX_WHAT_TO_DO = (
    "choose Sign in to Codex in the agent's menu of the Agents panel (it runs `codex login` in a cell), or set "
    "OPENAI_API_KEY in IdeA's environment, then start the agent again; every Codex agent shares that login"
)
GEMINI_WHAT_TO_DO = (
    "choose Sign in to Gemini CLI in the agent's menu of the Agents panel (it starts `gemini` in a cell: answer "
    "its questions, choose \"Sign in with Google\", then /quit), or set GEMINI_API_KEY in IdeA's environment, "
    "then start the agent again"
)


def cli_family(profile: Profile) -> str | None:
    """ "claude", "codex", "gemini" or None, from the program the profile runs (a wrapper script or another
    program dressed as one of them gets no precheck: better no check than a wrong refusal)."""
    name = os.path.basename(profile.command.replace("\\", "/")).lower()
    for family in ("claude", "codex", "gemini"):
        if name in (family, f"{family}.exe", f"{family}.cmd"):
            return family
    return None


class LocalSignInChecker:
    def __init__(self, environ: Mapping[str, str] | None = None, home: Path | None = None) -> None:
        self._environ = environ
        self._home = home

    def check(self, profile: Profile) -> SignInCheck | None:
        env = os.environ if self._environ is None else self._environ
        home = self._home if self._home is not None else Path.home()
        family = cli_family(profile)
        if family == "claude":
            login = LoginCommand((profile.command, "auth", "login"))
            return _result("Claude Code", _claude_signed_in(env, home), CLAUDE_WHAT_TO_DO, login)
        if family == "codex":
            codex_home = user_codex_home(env) if self._home is None else Path(env.get("CODEX_HOME") or home / ".codex")
            login = LoginCommand((profile.command, "login"), {"CODEX_HOME": str(codex_home)})
            return _result("Codex", codex_credentials_available(codex_home, env), CODEX_WHAT_TO_DO, login)
        if family == "gemini":
            signed_in = _gemini_signed_in(env, home)
            if signed_in is None:
                return None
            return _result("Gemini CLI", signed_in, GEMINI_WHAT_TO_DO, LoginCommand((profile.command,)))
        return None


def _result(cli: str, signed_in: bool, what_to_do: str, login: LoginCommand | None = None) -> SignInCheck:
    return SignInCheck(cli, signed_in, "" if signed_in else what_to_do, login)


def _claude_signed_in(env: Mapping[str, str], home: Path) -> bool:
    if any(env.get(name) for name in CLAUDE_ENV):
        return True
    if (claude_config_dir(env, home) / ".credentials.json").is_file():
        return True
    try:
        state = json.loads(claude_state_file(env, home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(state, dict) and isinstance(state.get("oauthAccount"), dict)


def _gemini_signed_in(env: Mapping[str, str], home: Path) -> bool | None:
    """None: its sign-in may be in the system keychain, which IdeA does not read."""
    if any(env.get(name) for name in GEMINI_ENV):
        return True
    if env.get("GOOGLE_GENAI_USE_GCA") and env.get("GOOGLE_CLOUD_ACCESS_TOKEN"):
        return True
    folder = gemini_dir(env, home)
    if (folder / "oauth_creds.json").is_file() or (folder / "gemini-credentials.json").is_file():
        return True
    return None if env.get("GEMINI_FORCE_ENCRYPTED_FILE_STORAGE") == "true" else False
