"""A real core loop and client for the knowledge views, and files of a project to show."""

from __future__ import annotations

from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pytestqt.qtbot import QtBot

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from idea.infrastructure.core_loop import CoreLoop
from idea.ui.core_client import CoreClient
from idea.ui.gui_thread import GuiThread
from tests.knowledge_support import ARCHITECT, MAIN, KnowledgeWorld

T = TypeVar("T")
WAIT_MS = 10_000
NAMES = {MAIN: "Main", ARCHITECT: "Architect"}


class Core:
    def __init__(self) -> None:
        self.loop = CoreLoop("knowledge-test-core").start()
        self.errors: list[BaseException] = []
        self.client = CoreClient(self.loop, GuiThread(), self.errors.append)

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.submit(work).result(WAIT_MS / 1000)

    def stop(self) -> None:
        self.loop.stop()


@pytest.fixture
def core(qtbot: QtBot) -> Iterator[Core]:
    running = Core()
    yield running
    running.stop()
    assert running.errors == []


@pytest.fixture
def knowledge_world(tmp_path: Path) -> KnowledgeWorld:
    return KnowledgeWorld(tmp_path / "project", tmp_path / "user-data")


def conversation_turn(conversation: str, index: int, text: str | None = None) -> ConversationTurn:
    role = TurnRole.PROMPT if index % 2 == 0 else TurnRole.RESPONSE
    source = AgentSource(MAIN) if role is TurnRole.PROMPT else AgentSource(ARCHITECT)
    if index == 0:
        source = HumanSource()
    return ConversationTurn(
        f"00000000-0000-4000-8000-{index:012d}",
        conversation,
        1_781_368_615_582 + index * 60_000,
        source,
        role,
        text if text is not None else f"Turn **{index}**: review the storage ports.\n\n- point one\n- point two",
    )
