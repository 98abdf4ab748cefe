#!/usr/bin/env python3
"""A stand-in for IdeA's MCP bridge, to test the fake agent CLI on its own: the three tools the fake agent
calls, answered at once, each call appended as a JSON line to `$STUB_CALLS`."""

from __future__ import annotations

import json
import os

from mcp.server import MCPServer

server = MCPServer("idea")


def _record(tool: str, arguments: dict[str, object]) -> None:
    with open(os.environ["STUB_CALLS"], "a", encoding="utf-8") as handle:
        handle.write(
            json.dumps({"tool": tool, "arguments": arguments, "token": os.environ.get("IDEA_MCP_TOKEN")}) + "\n"
        )


@server.tool()
def idea_reply(result: str, ticket: str | None = None) -> str:
    _record("idea_reply", {"result": result, "ticket": ticket})
    return f"reply delivered to Main (ticket {ticket})"


@server.tool()
def idea_ask_agent(target: str, task: str) -> str:
    _record("idea_ask_agent", {"target": target, "task": task})
    return f"answer-from-{target}"


@server.tool()
def idea_list_agents() -> str:
    _record("idea_list_agents", {})
    return json.dumps({"you": "Fake", "agents": [{"name": "QA"}]})


if __name__ == "__main__":
    server.run()
