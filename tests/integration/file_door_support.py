"""What the tests of the request-folder door share: the folders as an agent and a test see them, and a
door on a real watched folder with a scriptable core behind it. Test modules import the fixtures."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from idea.infrastructure.fileproto.watcher import RequestFolderDoor
from tests.contract.terminal_contract import wait_until
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import ARCHITECT, MAIN, FakeGateway


class Folders:
    """The project's request folders, as an agent and as a test see them."""

    def __init__(self, root: Path) -> None:
        self.requests = root / ".ideai" / "requests"

    def inbox(self, agent: str) -> Path:
        return self.requests / agent / "in"

    def outbox(self, agent: str) -> Path:
        return self.requests / agent / "out"

    def submit(self, request_id: str, body: dict[str, Any] | bytes, agent: str = MAIN) -> Path:
        """As the convention tells agents: write `<id>.json.tmp`, then rename it to `<id>.json`."""
        inbox = self.inbox(agent)
        inbox.mkdir(parents=True, exist_ok=True)
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        temporary = inbox / f"{request_id}.json.tmp"
        temporary.write_bytes(data)
        return temporary.replace(inbox / f"{request_id}.json")

    async def response(self, request_id: str, agent: str = MAIN) -> dict[str, Any]:
        path = self.outbox(agent) / f"{request_id}.json"
        await wait_until(path.exists, 5, what=f"the response {path}")
        return json.loads(path.read_text(encoding="utf-8"))

    async def deleted(self, request_id: str, agent: str = MAIN) -> None:
        """The door deletes an answered request right after writing its response."""
        path = self.inbox(agent) / f"{request_id}.json"
        await wait_until(lambda: not path.exists(), 5, what=f"the answered request {path} deleted")


@pytest.fixture
def folders(tmp_path: Path) -> Folders:
    folders = Folders(tmp_path)
    for agent in (MAIN, ARCHITECT):
        folders.inbox(agent).mkdir(parents=True)
        folders.outbox(agent).mkdir(parents=True)
    return folders


@pytest.fixture
def gateway() -> FakeGateway:
    return FakeGateway()


@pytest.fixture
def diagnostics() -> RecordingDiagnostics:
    return RecordingDiagnostics()


@pytest.fixture
async def door(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> AsyncIterator[RequestFolderDoor]:
    door = RequestFolderDoor(tmp_path, gateway, asyncio.get_running_loop(), diagnostics)
    await door.start()
    yield door
    await door.close()
