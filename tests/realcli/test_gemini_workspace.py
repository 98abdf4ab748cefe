"""Gemini CLI started as IdeA starts an agent reaches the project with its own file tools.

Its file tools refuse any path outside its workspace, which is its working directory, the agent's run dir:
without the project added (`--include-directories`) a Gemini agent could edit nothing of the project and
could not write its file-protocol requests (`.ideai/requests/<agentId>/in/`). A stand-in for the Gemini API
has "the model" write a request there with the CLI's `write_file`.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from idea.infrastructure.fs import atomic_write_json
from tests.fakes_gateway import MAIN
from tests.realcli.fake_model import FakeGeminiApi, ModelAnswer
from tests.realcli.run_dirs import prepared_run_dir, reference_profile

pytestmark = pytest.mark.realcli

DIRECTIVE = "Ask IdeA for the list of agents."


@pytest.fixture
def gemini_api() -> Iterator[FakeGeminiApi]:
    api = FakeGeminiApi()
    api.serve()
    yield api
    api.close()


def test_gemini_writes_a_file_protocol_request_into_the_project_with_its_own_file_tool(
    tmp_path: Path, cli_home: Path, require_cli: Callable[[str], str], gemini_api: FakeGeminiApi
) -> None:
    gemini = require_cli("gemini")
    prepared = prepared_run_dir(tmp_path, reference_profile("Gemini CLI"))
    request = tmp_path / "shop" / ".ideai" / "requests" / MAIN / "in" / f"{uuid.uuid4()}.json"
    content = json.dumps({"type": "agent.list"})
    write = ("write_file", {"file_path": str(request), "content": content})
    gemini_api.answer = ModelAnswer(directive=DIRECTIVE, tool=write)
    atomic_write_json(cli_home / ".gemini" / "settings.json", FakeGeminiApi.gemini_settings)
    env = {**os.environ, "GEMINI_API_KEY": "not-a-key", "GOOGLE_GEMINI_BASE_URL": gemini_api.origin}
    # Non-interactive, with edits approved: what is checked is where its tools may write, not who approves.
    command = [gemini, *prepared.extra_args, "--approval-mode", "auto_edit", "-p", DIRECTIVE]
    finished = subprocess.run(
        command, cwd=prepared.cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert gemini_api.tool_outputs, (finished.returncode, finished.stdout[-2000:], finished.stderr[-2000:])
    assert "workspace" not in " ".join(gemini_api.tool_outputs), gemini_api.tool_outputs
    assert request.read_text(encoding="utf-8") == content
