"""A stand-in for the model API the real Codex talks to (OpenAI's Responses API, streamed), on loopback.

With it the real Codex runs whole turns offline: the test says what "the model" answers to a task IdeA
delivers — a reply through IdeA's `idea_reply` tool (first found with Codex's tool search: Codex 0.171 defers
MCP tools until the model searches them), or an HTTP error that ends the turn. Codex reaches it through a model provider of the agent's `config.toml`
(`model_providers.<id>.base_url`, a bearer token, no retries), kept there by IdeA's merge.

The server starts serving only when `serve()` is called, so a CLI can be started before this process has a
second thread (connections wait in the listen queue until then).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROVIDER_ID = "idea-test-model"
EVENT_STREAM = "text/event-stream"
TASK_HEADER = "[IdeA · task from"


@dataclass
class ModelAnswer:
    """What the model does with the next prompt: reply `reply` through `idea_reply` (then end the turn), or
    fail the request with `status` and `error`."""

    reply: str | None = None
    status: int = 200
    error: dict[str, Any] | None = None


@dataclass
class FakeResponsesApi:
    answer: ModelAnswer = field(default_factory=lambda: ModelAnswer(reply="pong"))
    requests: list[dict[str, Any]] = field(default_factory=list)
    tool_outputs: list[str] = field(default_factory=list)  # what Codex sent back from each tool call

    def __post_init__(self) -> None:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                status, data, kind = api._respond(body)
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST

            def log_message(self, *_args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def provider_toml(self) -> str:
        """The `config.toml` lines that point Codex at this server."""
        return (
            f'model_provider = "{PROVIDER_ID}"\n\n[model_providers.{PROVIDER_ID}]\nname = "{PROVIDER_ID}"\n'
            f'base_url = "{self.base_url}"\nexperimental_bearer_token = "sk-not-a-key"\nwire_api = "responses"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )

    def serve(self) -> None:
        if not self._thread.is_alive():
            self._thread.start()

    def close(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def _respond(self, body: dict[str, Any]) -> tuple[int, bytes, str]:
        """A task IdeA delivered: search Codex's deferred tools for `idea_reply` (Codex 0.171 defers MCP tools
        until the model searches them), then call it; anything else (a title Codex asks for): a message."""
        with self._lock:
            self.requests.append(body)
            answer, number = self.answer, len(self.requests)
        inputs = [item for item in body.get("input") or [] if isinstance(item, dict)]
        last = inputs[-1] if inputs else {}
        kind = last.get("type")
        if kind == "tool_search_output":
            found = _reply_tool(last.get("tools"))
            if found is None:
                return 200, _stream(number, _message("IdeA's idea_reply tool was not found.")), EVENT_STREAM
            namespace, name = found
            arguments = json.dumps({"result": answer.reply or ""})
            call = {"type": "function_call", "namespace": namespace, "name": name, "arguments": arguments}
            return 200, _stream(number, {**call, "call_id": f"call_{number}"}), EVENT_STREAM
        if kind == "function_call_output":
            self.tool_outputs.append(_output_text(last.get("output")))
            return 200, _stream(number, _message("Replied through IdeA.")), EVENT_STREAM
        if not _is_task(last):
            return 200, _stream(number, _message("Review the parser")), EVENT_STREAM
        if answer.error is not None:
            return answer.status, json.dumps(answer.error).encode(), "application/json"
        search = {"type": "tool_search_call", "execution": "client", "arguments": {"query": "idea_reply", "limit": 8}}
        return 200, _stream(number, {**search, "call_id": f"search_{number}"}), EVENT_STREAM


def _is_task(item: dict[str, Any]) -> bool:
    """A prompt that is a task IdeA delivered (not Codex's own request for a title, which quotes it)."""
    return item.get("role") == "user" and _output_text(item.get("content")).startswith(TASK_HEADER)


def _reply_tool(tools: object) -> tuple[str, str] | None:
    """(namespace, name) of `idea_reply` among the tools a search returned."""
    for namespace in tools if isinstance(tools, list) else []:
        for tool in namespace.get("tools") or [] if isinstance(namespace, dict) else []:
            if isinstance(tool, dict) and str(tool.get("name", "")).endswith("idea_reply"):
                return str(namespace.get("name")), str(tool["name"])
    return None


def _message(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def _stream(number: int, item: dict[str, Any]) -> bytes:
    usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1, "output_tokens_details": None}
    events = [
        {"type": "response.created", "response": {"id": f"resp_{number}"}},
        {"type": "response.output_item.done", "item": {"id": f"item_{number}", **item}},
        {"type": "response.completed", "response": {"id": f"resp_{number}", "usage": {**usage, "total_tokens": 2}}},
    ]
    return "".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events).encode()


def _output_text(output: object) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(part.get("text", "") for part in output if isinstance(part, dict))
    return ""
