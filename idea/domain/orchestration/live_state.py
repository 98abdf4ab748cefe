"""The live-state board `.ideai/live-state.json` (spec 03 §10): one row per agent, last writer wins.

It keeps only what cannot be derived (who works on which ticket, what an agent declared); busy state and
queues are computed elsewhere. Optional fields are written as explicit nulls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from idea.domain.errors import invalid
from idea.domain.ids import AgentId, TicketId
from idea.domain.orchestration.commands import WorkStatus

LIVE_STATE_VERSION = 1
LIVE_STATE_TTL_MS = 21_600_000  # 6 h without an update: the row is pruned on read
LIVE_STATE_MAX_ENTRIES = 64
FIELD_SOFT_MAX_CHARS = 200
FIELD_MAX_BYTES = 4096
STALE_AT_RESTART_MARKER = "(stale — session not running at restart)"
ACTIVE_STATUSES = frozenset({WorkStatus.WORKING, WorkStatus.WAITING, WorkStatus.BLOCKED})


def bounded_field(value: str | None, name: str) -> str | None:
    """Reject a value over FIELD_MAX_BYTES (UTF-8), truncate to FIELD_SOFT_MAX_CHARS; empty means absent."""
    if value is None:
        return None
    if len(value.encode("utf-8")) > FIELD_MAX_BYTES:
        raise invalid(f"{name} is longer than {FIELD_MAX_BYTES} bytes; keep it to a short sentence", field=name)
    return value[:FIELD_SOFT_MAX_CHARS] or None


def abandoned_marker(code: str) -> str:
    return f"(abandoned: {code})"


def exited_marker(exit_code: int | None) -> str:
    return f"(exited: code {exit_code if exit_code is not None else 'unknown'})"


@dataclass(frozen=True)
class LiveEntry:
    agent_id: AgentId
    status: WorkStatus
    intent: str | None = None
    ticket: TicketId | None = None
    progress: str | None = None
    last_delegation: TicketId | None = None
    updated_at_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "agentId": self.agent_id,
            "status": self.status.value,
            "intent": self.intent,
            "ticket": self.ticket,
            "progress": self.progress,
            "lastDelegation": self.last_delegation,
            "updatedAtMs": self.updated_at_ms,
        }

    def lean(self, name: str | None) -> dict[str, Any]:
        """What agents may see: never `progress` nor timestamps."""
        return {
            "agentId": self.agent_id,
            "name": name,
            "status": self.status.value,
            "intent": self.intent,
            "ticket": self.ticket,
            "lastDelegation": self.last_delegation,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> LiveEntry:
        """Raises KeyError, TypeError or ValueError on a malformed row."""
        agent_id = data["agentId"]
        if not isinstance(agent_id, str) or not agent_id:
            raise ValueError("agentId must be a non-empty string")
        updated = data.get("updatedAtMs", 0)
        if not isinstance(updated, int) or isinstance(updated, bool):
            raise TypeError("updatedAtMs must be an integer")
        return LiveEntry(
            agent_id=agent_id,
            status=WorkStatus(data["status"]),
            intent=_optional_text(data.get("intent")),
            ticket=_optional_text(data.get("ticket")),
            progress=_optional_text(data.get("progress")),
            last_delegation=_optional_text(data.get("lastDelegation")),
            updated_at_ms=updated,
        )


@dataclass(frozen=True)
class LiveStateRow:
    """Another agent's row as an agent's convention file lists it (spec 02 §8)."""

    agent_id: str
    agent_name: str
    status: str
    intent: str = ""
    ticket_id: str | None = None


def _optional_text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise TypeError(f"expected a string or null, got {type(value).__name__}")
    return value


class _Keep:
    """Marks a field a change leaves as it is."""


KEEP: Final = _Keep()


@dataclass(frozen=True)
class RowChange:
    """The fields one write of an agent's row sets; a field left KEEP keeps its value (its default for a new
    row). The one typed shape of every live-state write, from the tools and from the core's own updates."""

    status: WorkStatus | _Keep = KEEP
    intent: str | None | _Keep = KEEP
    ticket: TicketId | None | _Keep = KEEP
    progress: str | None | _Keep = KEEP
    last_delegation: TicketId | None | _Keep = KEEP


@dataclass(frozen=True)
class LiveState:
    entries: tuple[LiveEntry, ...] = ()

    def row(self, agent_id: AgentId) -> LiveEntry | None:
        return next((entry for entry in self.entries if entry.agent_id == agent_id), None)

    def with_row(
        self,
        agent_id: AgentId,
        now_ms: int,
        *,
        status: WorkStatus | _Keep = KEEP,
        intent: str | None | _Keep = KEEP,
        ticket: TicketId | None | _Keep = KEEP,
        progress: str | None | _Keep = KEEP,
        last_delegation: TicketId | None | _Keep = KEEP,
    ) -> LiveState:
        """`with_change` with the change's fields as keywords."""
        return self.with_change(agent_id, now_ms, RowChange(status, intent, ticket, progress, last_delegation))

    def with_change(self, agent_id: AgentId, now_ms: int, change: RowChange) -> LiveState:
        """Upsert the agent's row; fields left as KEEP keep their value (defaults for a new row).

        Text fields are bounded (`bounded_field`); `updatedAtMs` is stamped with `max(now_ms, 0)`.
        """
        current = self.row(agent_id) or LiveEntry(agent_id=agent_id, status=WorkStatus.IDLE)
        intent = current.intent if isinstance(change.intent, _Keep) else bounded_field(change.intent, "intent")
        progress = (
            current.progress if isinstance(change.progress, _Keep) else bounded_field(change.progress, "progress")
        )
        updated = LiveEntry(
            agent_id=agent_id,
            status=current.status if isinstance(change.status, _Keep) else change.status,
            intent=intent,
            ticket=current.ticket if isinstance(change.ticket, _Keep) else change.ticket,
            progress=progress,
            last_delegation=(
                current.last_delegation if isinstance(change.last_delegation, _Keep) else change.last_delegation
            ),
            updated_at_ms=max(now_ms, 0),
        )
        if self.row(agent_id) is None:
            return LiveState((*self.entries, updated))
        return LiveState(tuple(updated if entry.agent_id == agent_id else entry for entry in self.entries))

    def without(self, agent_id: AgentId) -> LiveState:
        """The rows but the agent's (it was deleted)."""
        return LiveState(tuple(entry for entry in self.entries if entry.agent_id != agent_id))

    def pruned(self, now_ms: int) -> LiveState:
        """Drop rows older than the TTL, then keep the most recently updated LIVE_STATE_MAX_ENTRIES."""
        fresh = [entry for entry in self.entries if now_ms - entry.updated_at_ms <= LIVE_STATE_TTL_MS]
        if len(fresh) > LIVE_STATE_MAX_ENTRIES:
            keep = sorted(fresh, key=lambda entry: entry.updated_at_ms, reverse=True)[:LIVE_STATE_MAX_ENTRIES]
            kept_ids = {entry.agent_id for entry in keep}
            fresh = [entry for entry in fresh if entry.agent_id in kept_ids]
        return LiveState(tuple(fresh))

    def reconciled(self, is_live: Callable[[AgentId], bool], now_ms: int) -> LiveState:
        """Reboot reconciliation (§10.4): active rows of agents without a live session become idle and stale.

        Intent is kept; ticket and last delegation are cleared. Live agents and idle/done rows are untouched.
        """
        entries = tuple(
            replace(
                entry,
                status=WorkStatus.IDLE,
                ticket=None,
                last_delegation=None,
                progress=STALE_AT_RESTART_MARKER,
                updated_at_ms=max(now_ms, 0),
            )
            if entry.status in ACTIVE_STATUSES and not is_live(entry.agent_id)
            else entry
            for entry in self.entries
        )
        return LiveState(entries)

    def to_json(self) -> dict[str, Any]:
        return {"version": LIVE_STATE_VERSION, "entries": [entry.to_json() for entry in self.entries]}

    @staticmethod
    def from_json(data: Any) -> LiveState:
        """Raises ValueError (TypeError for a wrong shape) when the document cannot be read; one broken row
        fails it too, so the store keeps the whole file aside rather than silently dropping rows."""
        if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
            raise TypeError("expected an object with an `entries` list")
        try:
            return LiveState(tuple(LiveEntry.from_json(row) for row in data["entries"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"unreadable row: {exc}") from exc
