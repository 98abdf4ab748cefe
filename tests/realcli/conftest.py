"""Fixtures for the real agent CLIs (npm packages) run through the GUI.

`require_cli` finds a CLI on PATH, skipping the test when it is absent, or failing it when
IDEA_REQUIRE_REAL_CLIS=1 (CI installs the CLIs and must not pass without running them). `cli_home` gives every
test a HOME of its own (with CODEX_HOME inside it and no provider credentials) and, at the end, ends any
process still carrying that HOME, whatever the test did.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from idea.domain.workspace import NewCellContent
from tests.realcli.support import end_processes, processes_with_home
from tests.ui.conftest import gui_factory, quiet_home  # noqa: F401 - fixtures reused as they are
from tests.ui.gui_support import Gui

REQUIRE_VARIABLE = "IDEA_REQUIRE_REAL_CLIS"
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
}
# Credentials and settings of the machine's user that would change what a CLI shows on start.
CREDENTIAL_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
    "CODEX_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GEMINI_CLI_HOME",
)
# A CI runner sets these; a person's desktop does not. Ink-based CLIs (Gemini) stop drawing
# interactive screens when they see them, so the tests run the CLIs as on a desktop.
CI_VARIABLES = ("CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID", "GITHUB_ACTIONS")


@pytest.fixture
def require_cli(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], str]:
    """`require_cli("gemini")`: the absolute path of the CLI on PATH; absent, the test is skipped, or fails
    under IDEA_REQUIRE_REAL_CLIS=1."""

    def find(name: str) -> str:
        found = shutil.which(name)
        if found is not None:
            return os.path.abspath(found)
        package = PACKAGES.get(name, name)
        reason = (
            f"the {name} CLI is not on PATH (npm install --prefix DIR {package}, then put DIR/node_modules/.bin "
            "on PATH)"
        )
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{reason}; {REQUIRE_VARIABLE}=1 requires it", pytrace=False)
        pytest.skip(reason)

    return find


@pytest.fixture
def cli_home(quiet_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:  # noqa: F811
    """The test's HOME, as the CLIs will see it; every process left with it is ended afterwards."""
    codex_home = quiet_home / ".codex"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    for variable, folder in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        (quiet_home / folder).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(variable, str(quiet_home / folder))
    for variable in (*CREDENTIAL_VARIABLES, *CI_VARIABLES):
        monkeypatch.delenv(variable, raising=False)
    try:
        yield quiet_home
    finally:
        end_processes(processes_with_home(quiet_home))


@pytest.fixture
def agent_gui(cli_home: Path, gui_factory: Callable[[], Gui]) -> Gui:  # noqa: F811
    """The GUI on the test's HOME; new cells start empty, so an agent can be launched in the first one.

    Requested after `cli_home`, it is closed before the leftover processes are looked for.
    """
    gui = gui_factory()
    gui.session.app.preferences.update_settings(new_cell_content=NewCellContent.EMPTY)
    return gui


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    folder = tmp_path / "screenshots"
    folder.mkdir()
    return folder
