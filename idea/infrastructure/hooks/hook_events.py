"""What both hook doors do with an event once it is read: the relay's connection to the MCP socket
(`mcp/server.py`) and Claude's posts to the HTTP hook door (`http_door.py`)."""

from __future__ import annotations

import json
from typing import Any

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Diagnostics


def parsed_payload(text: str) -> dict[str, Any]:
    """The event's JSON object; anything else arrives as `{"raw": …}`, for the core to judge."""
    try:
        payload = json.loads(text) if text.strip() else {}
    except ValueError:
        return {"raw": text.rstrip("\n")}
    return payload if isinstance(payload, dict) else {"raw": payload}


def take_hook_event(
    gateway: OrchestrationGateway, diagnostics: Diagnostics, agent_id: str, source: str, event: str,
    payload: dict[str, Any],
) -> None:  # fmt: skip
    """Hand the event to the core, named (`event_name`)."""
    name = event_name(event, payload)
    diagnostics.beacon(f"[hook] {source} {name} agent={agent_id}")
    gateway.hook_event(agent_id, source, name, payload)


def event_name(event: str, payload: dict[str, Any]) -> str:
    """The event as the relay named it, else the payload's name (`hook_event_name`, Codex's `type`)."""
    name = event or payload.get("hook_event_name") or payload.get("type") or "unknown"
    return name if isinstance(name, str) else "unknown"
