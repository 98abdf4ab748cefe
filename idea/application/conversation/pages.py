"""Reading a conversation as a person does (spec 04 §8-§9): pages across archives, full texts, newest page
first; opening one also starts its rotation in the background."""

from __future__ import annotations

import asyncio
from typing import Any

from idea.application.conversation.ports import ConversationArchive
from idea.application.conversation.rotate import RotateConversationLog
from idea.domain.errors import invalid
from idea.domain.ids import ConversationId, is_uuid
from idea.domain.knowledge.conversation_pages import TurnPage, cursor_from


class ConversationPages:
    """`ReadConversationPage`: the human surface only; nothing here ever reaches an agent."""

    def __init__(self, archive: ConversationArchive, rotate: RotateConversationLog | None = None) -> None:
        self._archive = archive
        self._rotate = rotate
        self._rotations: set[asyncio.Task[Any]] = set()

    async def read(
        self,
        conversation: ConversationId,
        anchor: str | None = None,
        direction: str | None = None,
        limit: int | None = None,
    ) -> TurnPage:
        """A page: backward (the default) or "forward" (any case); an anchor that is not a UUID, or that no
        turn has, reads like none; the limit defaults to 50 and is clamped to 1..200."""
        if not is_uuid(conversation):
            raise invalid(f"conversation id {conversation!r} is not a UUID")
        found = await self._archive.page(conversation, cursor_from(anchor, direction), limit)
        return TurnPage(found.turns, found.has_more)

    async def open(self, conversation: ConversationId, limit: int | None = None) -> TurnPage:
        """The newest page; the conversation's rotation then runs in the background (best-effort)."""
        page = await self.read(conversation, limit=limit)
        if self._rotate is not None:
            task = asyncio.get_running_loop().create_task(self._rotate(conversation))
            self._rotations.add(task)
            task.add_done_callback(self._rotations.discard)
        return page

    async def settle(self) -> None:
        """Wait for the background rotations started so far (tests, closing)."""
        if self._rotations:
            await asyncio.gather(*self._rotations, return_exceptions=True)
