"""Stand-ins for the model APIs the real agent CLIs talk to, on loopback, so they run whole turns offline.

The test says what "the model" answers to a task IdeA delivers: a reply through IdeA's `idea_reply` tool, or
an HTTP error that ends the turn. Anything else a CLI asks on its own (a title for the session, a quota
check) gets a short text.

- `FakeResponsesApi`: OpenAI's Responses API, streamed, for Codex. Codex 0.171 defers MCP tools until the
  model searches them, so "the model" first asks for a tool search, then calls `idea_reply` in the namespace
  the search returned. Codex reaches it through a model provider of the agent's `config.toml`
  (`model_providers.<id>.base_url`, a bearer token, no retries), kept there by IdeA's merge.
- `FakeMessagesApi`: Anthropic's Messages API, streamed, for Claude Code (`ANTHROPIC_BASE_URL`), which
  names IdeA's tool `mcp__idea__idea_reply`.
- `FakeGeminiApi`: Google's Gemini API (`GOOGLE_GEMINI_BASE_URL`, an API key), for Gemini CLI, which names
  IdeA's tool `mcp_idea_idea_reply`. A Gemini profile without IdeA's MCP server (the file protocol) gets its
  reply to a task as the request file its instruction describes, written with the CLI's `write_file`.

A server starts serving only when `serve()` is called, so a CLI can be started before this process has a
second thread (connections wait in the listen queue until then).
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROVIDER_ID = "idea-test-model"
EVENT_STREAM = "text/event-stream"
TASK_HEADER = "[IdeA · task from"
Response = tuple[int, bytes, str]  # status, body, content type


@dataclass
class ModelAnswer:
    """What the model does: to a task IdeA delivers, reply `reply` through `idea_reply` (or call `tool`, one
    of the CLI's own tools: (name, input)); to the person's
    prompt starting with `directive`, ask `ask` (target, task) through `idea_ask_agent` (without `ask`, a
    plain answer); then end the turn. With `error`, it fails those requests with `status` instead."""

    reply: str | None = None
    tool: tuple[str, dict[str, Any]] | None = None  # instead of replying: call this tool of the CLI's own
    directive: str | None = None
    ask: tuple[str, str] | None = None
    status: int = 200
    error: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)  # sent with the error

    def acts_on(self, prompt: str) -> bool:
        """A task IdeA delivered, or the person's directive; not what a CLI asks on its own."""
        return prompt.startswith(TASK_HEADER) or bool(self.directive and prompt.startswith(self.directive))

    def call_for(self, prompt: str) -> tuple[str, dict[str, str]] | None:
        """The IdeA tool (name, arguments) a prompt to act on gets, None when it gets a plain answer."""
        if prompt.startswith(TASK_HEADER):
            return self.tool or ("idea_reply", {"result": self.reply or ""})
        if self.ask is not None:
            return "idea_ask_agent", {"target": self.ask[0], "task": self.ask[1]}
        return None


@dataclass
class LoopbackModelApi:
    answer: ModelAnswer = field(default_factory=lambda: ModelAnswer(reply="pong"))
    requests: list[dict[str, Any]] = field(default_factory=list)
    tool_outputs: list[str] = field(default_factory=list)  # what the CLI sent back from each tool call

    def __post_init__(self) -> None:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                with api._lock:
                    api.requests.append(body)
                    answer, number = api.answer, len(api.requests)
                status, data, kind = api._respond(self.path, body, answer, number)
                self.send_response(status)
                for name, value in (answer.headers.items() if status >= 400 else ()):
                    self.send_header(name, value)
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
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def serve(self) -> None:
        if not self._thread.is_alive():
            self._thread.start()

    def close(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def _respond(self, path: str, body: dict[str, Any], answer: ModelAnswer, number: int) -> Response:
        raise NotImplementedError


class FakeResponsesApi(LoopbackModelApi):
    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def provider_toml(self) -> str:
        """The `config.toml` lines that point Codex at this server."""
        return (
            f'model_provider = "{PROVIDER_ID}"\n\n[model_providers.{PROVIDER_ID}]\nname = "{PROVIDER_ID}"\n'
            f'base_url = "{self.base_url}"\nexperimental_bearer_token = "sk-not-a-key"\nwire_api = "responses"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )

    def _respond(self, path: str, body: dict[str, Any], answer: ModelAnswer, number: int) -> Response:
        """A prompt to act on: search Codex's deferred tools for the IdeA tool, then call it; anything else
        (a title Codex asks for): a message."""
        inputs = [item for item in body.get("input") or [] if isinstance(item, dict)]
        last = inputs[-1] if inputs else {}
        kind = last.get("type")
        prompts = [_output_text(item.get("content")) for item in inputs if item.get("role") == "user"]
        prompt = prompts[-1] if prompts else ""
        call = answer.call_for(prompt) if answer.acts_on(prompt) else None
        if kind == "tool_search_output" and call is not None:
            namespace = _namespace_of(last.get("tools"), call[0])
            if namespace is None:
                return 200, _stream(number, _message(f"IdeA's {call[0]} tool was not found.")), EVENT_STREAM
            function = {"type": "function_call", "namespace": namespace, "name": call[0], "call_id": f"c{number}"}
            return 200, _stream(number, {**function, "arguments": json.dumps(call[1])}), EVENT_STREAM
        if kind in ("function_call_output", "custom_tool_call_output"):
            self.tool_outputs.append(_output_text(last.get("output")))
            return 200, _stream(number, _message("Done through IdeA.")), EVENT_STREAM
        if not answer.acts_on(prompt) or last.get("role") != "user":
            return 200, _stream(number, _message("Review the parser")), EVENT_STREAM
        if answer.error is not None:
            return answer.status, json.dumps(answer.error).encode(), "application/json"
        if call is None:
            return 200, _stream(number, _message("Done.")), EVENT_STREAM
        if not call[0].startswith("idea_"):  # one of Codex's own tools, from its JavaScript `exec` tool
            script = f"text(JSON.stringify(await tools.{call[0]}({json.dumps(call[1])})));"
            custom = {"type": "custom_tool_call", "name": "exec", "input": script, "call_id": f"c{number}"}
            return 200, _stream(number, custom), EVENT_STREAM
        search = {"type": "tool_search_call", "execution": "client", "arguments": {"query": call[0], "limit": 8}}
        return 200, _stream(number, {**search, "call_id": f"search_{number}"}), EVENT_STREAM


class FakeMessagesApi(LoopbackModelApi):
    """Claude Code's side: `ANTHROPIC_BASE_URL` = `origin`."""

    def _respond(self, path: str, body: dict[str, Any], answer: ModelAnswer, number: int) -> Response:
        """A prompt to act on: call the IdeA tool (`mcp__idea__<tool>`); its result back: end the turn;
        anything else (a title, a quota check): a short text."""
        # Claude Code 2.1 may add a message of its own (role "system") after the person's.
        users = [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
        last = users[-1] if users else {}
        blocks = last.get("content") if isinstance(last.get("content"), list) else [last.get("content")]
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            self.tool_outputs.extend(_output_text(result.get("content")) for result in results)
            return self._message(body, number, {"type": "text", "text": "Done through IdeA."}, "end_turn")
        prompt = next((text for block in blocks if answer.acts_on(text := _text_of(block))), None)
        if prompt is None or not body.get("tools"):  # a title, a quota check: no tools
            return self._message(body, number, {"type": "text", "text": "Review the parser"}, "end_turn")
        if answer.error is not None:
            return answer.status, json.dumps(answer.error).encode(), "application/json"
        call = answer.call_for(prompt)
        if call is None:
            return self._message(body, number, {"type": "text", "text": "Done."}, "end_turn")
        name = f"mcp__idea__{call[0]}" if call[0].startswith("idea_") else call[0]
        use = {"type": "tool_use", "id": f"toolu_{number}", "name": name}
        return self._message(body, number, {**use, "input": call[1]}, "tool_use")

    def _message(self, body: dict[str, Any], number: int, block: dict[str, Any], stop: str) -> Response:
        usage = {"input_tokens": 1, "output_tokens": 1}
        message = {"id": f"msg_{number}", "type": "message", "role": "assistant", "model": body.get("model", "")}
        if not body.get("stream"):
            whole = {**message, "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
            return 200, json.dumps(whole).encode(), "application/json"
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        events = [
            {"type": "message_start", "message": {**message, "content": [], "stop_reason": None, "usage": usage}},
            {"type": "content_block_start", "index": 0, "content_block": start},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage},
            {"type": "message_stop"},
        ]
        return 200, _events(events), EVENT_STREAM


class FakeGeminiApi(LoopbackModelApi):
    """Gemini CLI's side: `GOOGLE_GEMINI_BASE_URL` = `origin`, `GEMINI_API_KEY` set, and the API key chosen in
    the user's settings (`gemini_settings`)."""

    # The API key chosen; no update looked for (a restart waits for one in progress, up to 30 s).
    gemini_settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }

    def _respond(self, path: str, body: dict[str, Any], answer: ModelAnswer, number: int) -> Response:
        """A prompt to act on: call the CLI's tool of the answer; the tool's result back: end the turn; what
        the CLI asks on its own (token counts, whether the model should speak next): a short answer."""
        if ":countTokens" in path:
            return 200, json.dumps({"totalTokens": 1}).encode(), "application/json"
        users = [c for c in body.get("contents") or [] if isinstance(c, dict) and c.get("role") == "user"]
        parts = [p for p in (users[-1].get("parts") or [] if users else []) if isinstance(p, dict)]
        results = [p["functionResponse"] for p in parts if isinstance(p.get("functionResponse"), dict)]
        prompt = next((text for p in parts if answer.acts_on(text := str(p.get("text", "")))), "")
        if results:
            self.tool_outputs.extend(json.dumps(result.get("response")) for result in results)
            part: dict[str, Any] = {"text": "Done."}
        elif answer.acts_on(prompt) and body.get("tools") and (call := self._call_for(prompt, answer)) is not None:
            name = f"mcp_idea_{call[0]}" if call[0].startswith("idea_") else call[0]
            part = {"functionCall": {"name": name, "args": call[1]}}
        else:
            part = {"text": "{}" if ":generateContent" in path else "Review the parser"}
        usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
        reply = {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage,
        }
        if "alt=sse" in path:
            return 200, f"data: {json.dumps(reply)}\r\n\r\n".encode(), EVENT_STREAM
        return 200, json.dumps(reply).encode(), "application/json"

    @staticmethod
    def _call_for(prompt: str, answer: ModelAnswer) -> tuple[str, dict[str, Any]] | None:
        """The answer's tool, whatever the prompt; to a task whose instruction names a request folder (the file
        protocol), the reply as a request file written there with the CLI's `write_file`; else IdeA's tool."""
        if answer.tool is not None:
            return answer.tool
        folder = re.search(r'into the folder "([^"]+)"', prompt)
        ticket = re.search(r'"ticket": "([^"]+)"', prompt)
        if not prompt.startswith(TASK_HEADER) or folder is None or ticket is None:
            return answer.call_for(prompt)
        request = {"type": "agent.reply", "ticket": ticket.group(1), "result": answer.reply or ""}
        return "write_file", {"file_path": f"{folder.group(1)}/{uuid.uuid4()}.json", "content": json.dumps(request)}


def _text_of(block: object) -> str:
    if isinstance(block, str):
        return block
    return block.get("text", "") if isinstance(block, dict) and block.get("type") == "text" else ""


def _events(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events).encode()


def _namespace_of(tools: object, name: str) -> str | None:
    """The namespace of the tool `name` among the tools a search returned."""
    for namespace in tools if isinstance(tools, list) else []:
        for tool in namespace.get("tools") or [] if isinstance(namespace, dict) else []:
            if isinstance(tool, dict) and tool.get("name") == name:
                return str(namespace.get("name"))
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
    return _events(events)


def _output_text(output: object) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(part.get("text", "") for part in output if isinstance(part, dict))
    return ""
