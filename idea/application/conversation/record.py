"""`RecordTurn` (spec 04 §5): append a turn to its conversation log, then fold it into the handoff.

Order per turn: (1) append to the log — the source of truth first, so the durable log is never behind the
handoff; (2) the previous handoff (kept in memory after the first use of a conversation); (3) fold this one
turn; (4) bound; (5) save `handoff.md`. Only a failed append is an error for the caller; the handoff part is
best-effort and logged, and a lost or stale handoff is caught up from the log the next time.

The save is written behind (`WriteBehind`), at most `save_delay_ms` after the turn (a burst of turns is one
write): replacing a file costs the disk about as much as the fsync of the log line itself, and the handoff is
derived data. The folded handoff is current in memory at once (`current`); `flush` writes what is pending
(before a launch injects it, at close). A crash before the save loses nothing: the next record catches up
from the log.

It implements the orchestration core's `ConversationLog` port (`append`), so the core records turns through
it unchanged. Everything here is hot path: no network, no language model.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from idea.application.conversation.ports import HandoffStore, HandoffSummarizer, TurnLog
from idea.application.conversation.summarizer import HeuristicSummarizer
from idea.application.ports import Diagnostics
from idea.application.write_behind import Sleeper, WriteBehind
from idea.domain.errors import AppError
from idea.domain.ids import ConversationId
from idea.domain.knowledge.conversation_log import ConversationTurn
from idea.domain.knowledge.handoff import Handoff, bound_handoff_summary, rebuilt_handoff

CACHED_CONVERSATIONS = 256
SAVE_DELAY_MS = 200
REBUILD_OPENING_TURNS = 8  # where the objective (the first prompt) is looked for
REBUILD_RECENT_TURNS = 40  # more bullets than the bound keeps


class RecordTurn:
    def __init__(
        self,
        log: TurnLog,
        handoffs: HandoffStore,
        diagnostics: Diagnostics,
        timer: Sleeper,
        summarizer: HandoffSummarizer | None = None,
        save_delay_ms: int = SAVE_DELAY_MS,
    ) -> None:
        self._log = log
        self._handoffs = handoffs
        self._diagnostics = diagnostics
        self._summarizer = summarizer or HeuristicSummarizer()
        self._locks: dict[ConversationId, asyncio.Lock] = {}
        self._current: OrderedDict[ConversationId, Handoff | None] = OrderedDict()
        self._unsaved: dict[ConversationId, Handoff] = {}
        self._behind = WriteBehind(self._save_unsaved, timer, save_delay_ms)

    async def append(self, turn: ConversationTurn) -> None:
        """Record `turn`; raises AppError only when the log could not be appended."""
        conversation = turn.conversation
        async with self._locks.setdefault(conversation, asyncio.Lock()):
            await self._log.append(turn)
            try:
                previous = await self._previous(turn)
                folded = self._fold(previous, [turn])
                if folded is not None:
                    self._remember(conversation, folded)
                    self._unsaved[conversation] = folded
                    self._behind.changed()
            except (AppError, OSError) as exc:
                self._forget(conversation)  # caught up from the log next time
                self._diagnostics.beacon(f"[handoff] checkpoint failed conversation={conversation}: {exc}")

    def current(self, conversation: ConversationId) -> Handoff | None:
        """The handoff as last folded in this process, None when not known here."""
        return self._current.get(conversation)

    def flush(self, conversation: ConversationId | None = None) -> None:
        """Write the pending handoff of `conversation` (all of them by default) now."""
        if conversation is None:
            self._behind.flush()
        else:
            self._save(conversation)

    def close(self) -> None:
        """Write every pending handoff; from now on each fold is written at once."""
        self._behind.close()

    def _save_unsaved(self) -> None:
        for conversation in list(self._unsaved):
            self._save(conversation)

    def _save(self, conversation: ConversationId) -> None:
        handoff = self._unsaved.pop(conversation, None)
        if handoff is None:
            return
        try:
            self._handoffs.save(conversation, handoff)  # small and not fsynced: written on the loop
        except (AppError, OSError) as exc:
            self._forget(conversation)  # caught up from the log next time
            self._diagnostics.beacon(f"[handoff] checkpoint failed conversation={conversation}: {exc}")

    def _fold(self, previous: Handoff | None, turns: list[ConversationTurn]) -> Handoff | None:
        handoff = previous
        for turn in turns:  # bounded at each step, so catching up on many turns stays linear
            folded = self._summarizer.fold(handoff, [turn])
            handoff = bound_handoff_summary(folded) if folded is not None else handoff
        return handoff

    async def _previous(self, turn: ConversationTurn) -> Handoff | None:
        """The handoff before `turn`, caught up with the log when it is behind (a crash between an append
        and its save) or rebuilt from the log when it is lost or unreadable."""
        conversation = turn.conversation
        if conversation in self._current:
            self._current.move_to_end(conversation)
            return self._current[conversation]
        try:
            stored = await asyncio.to_thread(self._handoffs.load, conversation)
        except AppError as exc:  # unreadable: kept aside by the store
            self._diagnostics.beacon(f"[handoff] {exc.message}; rebuilding it from the log")
            return await self._rebuilt(turn)
        if stored is None:
            return await self._rebuilt(turn)
        after = await self._log.read_since(conversation, stored.up_to)
        if after is None:
            self._diagnostics.beacon(
                f"[handoff] conversation={conversation}: upTo {stored.up_to} is not in the log; rebuilding it"
            )
            return await self._rebuilt(turn)
        missed = [t for t in after if t.id != turn.id]
        if missed:
            self._diagnostics.beacon(f"[handoff] conversation={conversation}: caught up {len(missed)} turns")
        return self._fold(stored, missed)

    async def _rebuilt(self, turn: ConversationTurn) -> Handoff | None:
        """From the log's first prompt and its newest turns before `turn`; None for a new conversation."""
        recent = [t for t in await self._log.last(turn.conversation, REBUILD_RECENT_TURNS + 1) if t.id != turn.id]
        if not recent:
            return None
        opening = await self._log.first(turn.conversation, REBUILD_OPENING_TURNS)
        return rebuilt_handoff(opening, recent[-REBUILD_RECENT_TURNS:])

    def _remember(self, conversation: ConversationId, handoff: Handoff) -> None:
        self._current[conversation] = handoff
        self._current.move_to_end(conversation)
        while len(self._current) > CACHED_CONVERSATIONS:
            self._current.popitem(last=False)

    def _forget(self, conversation: ConversationId) -> None:
        self._current.pop(conversation, None)
        self._unsaved.pop(conversation, None)
