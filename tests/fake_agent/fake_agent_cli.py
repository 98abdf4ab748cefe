#!/usr/bin/env python3
"""A fake Claude-style agent CLI, for integration tests that drive IdeA end to end without a model.

It runs in a real pseudo-terminal and behaves, on the outside, like Claude Code does for IdeA:

- At start it reads `.mcp.json` in its working directory, starts the declared MCP server (IdeA's bridge)
  with the declared environment, and connects an MCP client to it over stdio (the official `mcp` SDK), so
  IdeA sees `initialize` from this agent.
- It reads `.claude/settings.local.json` and runs the configured hooks like Claude: a `command` hook through
  a shell with the JSON payload on stdin, an `http` hook as a POST of the payload to its `url` with its
  `headers` (`$VAR`/`${VAR}` taken from the environment only for names in `allowedEnvVars`), on a
  kept-alive connection, a non-2xx answer or a failure being no more than a line in its log. Payloads:
  `SessionStart` (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, `source`), `UserPromptSubmit`
  (+ `prompt`), `Stop`, `SessionEnd`.
- It keeps a transcript, `$HOME/.claude/projects/<cwd encoded>/<session id>.jsonl`, appending one JSON
  record per event of a turn, so the file grows while it works (IdeA's activity token).
- It enables bracketed paste, shows the prompt `fake> `, reads keys in raw mode, treats a bracketed paste
  as text (newlines included) and submits on `\\r`. A prompt typed while a turn runs is queued, like a
  real CLI's native queue. A lone Esc interrupts the running turn.

A submitted prompt that carries an IdeA task header `[IdeA · task from <X> · ticket <id>] <task>` is
acted on according to the first line of the task:

    reply <text>                      idea_reply(result=<text>, ticket=<id>)
    prose <text>                      print <text>, never call idea_reply
    work <seconds> then reply <text>  keep appending to the transcript for <seconds>, then reply
    silent <seconds>                  no output and no transcript for <seconds>, then end the turn
    die <code>                        exit at once with <code>
    ask <agent> <task…>               idea_ask_agent(target=<agent>, task=<task…>), then reply "relay:<answer>"
    list                              reply with the text of idea_list_agents
    write <path> <text…>              write <text> to <path> under the project root its context file names
                                      (the line after `# Project root`), then reply "wrote <absolute path>"

Headers with `· no reply expected` (launch tasks) and `late reply from` are acknowledged and end the turn;
any other prompt is echoed as `ok: <prompt>`. Every turn ends with the `Stop` hook.

    limit <reset>                     print Claude's usage-limit line "… limit reached ∙ resets <reset>", no reply

Options: `--no-bracketed-paste` (the CLI never asks for it: IdeA flattens multi-line text),
`--session-id <uuid>` (use this session id), `--resume <uuid>` (carry on that session, as Claude does), `--trust-dialog` (start on Claude's folder-trust dialog: no
session, no MCP, no hook until Enter answers it; Esc or `2` exits). Unknown arguments are ignored, as the launch pipeline may pass
profile arguments. Diagnostics go to `$FAKE_AGENT_LOG` when set.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import signal
import sys
import termios
import time
import tty
import urllib.parse
import uuid
from pathlib import Path
from typing import Any

PROMPT = "fake> "
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
HEADER = re.compile(
    r"\[IdeA · (?P<what>task from|late reply from) (?P<who>[^·\]]+?) · ticket (?P<ticket>[^\]\s·]+)"
    r"(?P<no_reply> · no reply expected)?\] ?"
)
INSTRUCTION = re.compile(r"\s*IdeA: when you are done you MUST")
HOOK_TIMEOUT_S = 5.0


def project_root_of(run_dir: Path) -> str | None:
    """What a model reads in its context file (CLAUDE.md, AGENTS.md…): the project root it works on."""
    for name in ("CLAUDE.md", "AGENTS.md", "GEMINI.md"):
        try:
            lines = (run_dir / name).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            continue
        for index, line in enumerate(lines):
            if line.strip() == "# Project root":
                return next((rest.strip() for rest in lines[index + 1 :] if rest.strip()), None)
    return None


def encode_cwd(path: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in path)


class FakeAgent:
    def __init__(self, argv: list[str]) -> None:
        self.cwd = os.getcwd()
        self.session_id = _option(argv, "--session-id") or _option(argv, "--resume") or str(uuid.uuid4())
        self.bracketed_paste = "--no-bracketed-paste" not in argv
        projects = Path(os.path.expanduser("~")) / ".claude" / "projects" / encode_cwd(self.cwd)
        self.transcript = projects / f"{self.session_id}.jsonl"
        self.hooks = _read_hooks(Path(self.cwd) / ".claude" / "settings.local.json")
        self.http_hooks = HttpHooks()
        self.mcp_server = _read_mcp_server(Path(self.cwd) / ".mcp.json")
        self.session: Any = None  # the MCP client session, once connected
        self.session_ready = asyncio.Event()
        self.prompts: asyncio.Queue[str] = asyncio.Queue()
        self.turn: asyncio.Task[None] | None = None
        self.line = ""
        self.in_paste = False
        self.pending = ""
        self.stopping = asyncio.Event()
        self.trust_dialog: asyncio.Future[bool] | None = None
        self.asks_trust = "--trust-dialog" in argv

    # -- life cycle ----------------------------------------------------------------------------------

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        if self.bracketed_paste:
            self.out("\x1b[?2004h")
        self.out("Fake agent CLI — IdeA test double\r\n")
        loop.add_reader(sys.stdin.fileno(), self.on_keys)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, self.stopping.set)
        if self.asks_trust and not await self.ask_trust():
            loop.remove_reader(sys.stdin.fileno())
            return 1
        self.record({"type": "system", "subtype": "init", "cwd": self.cwd})
        mcp = asyncio.create_task(self.keep_mcp_session(self.mcp_server)) if self.mcp_server else None
        await self.fire_hook("SessionStart", source="startup")
        self.out(PROMPT)
        worker = asyncio.create_task(self.work_loop())
        await self.stopping.wait()
        loop.remove_reader(sys.stdin.fileno())
        worker.cancel()
        await self.fire_hook("SessionEnd", reason="exit")
        if mcp is not None:
            mcp.cancel()
            with contextlib.suppress(BaseException):
                await mcp
        return 0

    async def ask_trust(self) -> bool:
        """Claude's folder-trust dialog: nothing else happens until it is answered."""
        self.out(
            "\x1b[1m Do you trust the files in this folder?\x1b[0m\r\n\r\n"
            f" {self.cwd}\r\n\r\n \x1b[36m❯ 1. Yes, proceed\x1b[0m\r\n   2. No, exit\r\n\r\n"
            " Enter to confirm · Esc to exit\r\n"
        )
        self.trust_dialog = asyncio.get_running_loop().create_future()
        stopping = asyncio.create_task(self.stopping.wait())
        try:
            await asyncio.wait({self.trust_dialog, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        trusted = self.trust_dialog.done() and self.trust_dialog.result()
        self.trust_dialog = None
        self.out("\x1b[2J\x1b[H")
        return trusted

    def answer_trust(self, keys: str) -> None:
        dialog = self.trust_dialog
        for key in keys:
            if dialog is None or dialog.done():
                return
            if key in "\r1":
                dialog.set_result(True)
            elif key in "\x1b2":
                dialog.set_result(False)

    async def keep_mcp_session(self, server: tuple[str, list[str], dict[str, str]]) -> None:
        """Connect to the declared MCP server and keep the session open for the life of the process."""
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        command, args, env = server
        params = StdioServerParameters(command=command, args=args, env={**os.environ, **env}, cwd=self.cwd)
        try:
            async with (
                stdio_client(params, errlog=_log_file()) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                self.session = session
                self.session_ready.set()
                log("mcp session initialized")
                await asyncio.Event().wait()
        except Exception as exc:  # noqa: BLE001  (a failed server: the CLI still runs, like Claude)
            log(f"mcp session failed: {exc!r}")

    # -- keyboard ------------------------------------------------------------------------------------

    def on_keys(self) -> None:
        try:
            data = os.read(sys.stdin.fileno(), 65536)
        except OSError:
            data = b""
        if not data:
            self.stopping.set()
            return
        if self.trust_dialog is not None:
            self.answer_trust(data.decode("utf-8", errors="replace"))
            return
        self.pending += data.decode("utf-8", errors="replace")
        self.consume_keys()

    def consume_keys(self) -> None:
        while self.pending:
            if self.in_paste:
                end = self.pending.find(PASTE_END)
                if end < 0:
                    keep = _partial_suffix(self.pending, PASTE_END)
                    self.add_text(self.pending[: len(self.pending) - keep])
                    self.pending = self.pending[len(self.pending) - keep :]
                    return
                self.add_text(self.pending[:end])
                self.pending = self.pending[end + len(PASTE_END) :]
                self.in_paste = False
                continue
            if self.pending.startswith(PASTE_START):
                self.pending = self.pending[len(PASTE_START) :]
                self.in_paste = True
                continue
            if self.pending.startswith("\x1b"):
                if len(self.pending) == 1:  # a lone Esc: interrupt the running turn
                    self.pending = ""
                    self.interrupt()
                    return
                if PASTE_START.startswith(self.pending):
                    return  # the rest of the paste marker is on its way
                self.pending = _skip_escape_sequence(self.pending)
                continue
            key, self.pending = self.pending[0], self.pending[1:]
            if key == "\r":
                self.submit()
            elif key == "\x7f":
                self.line = self.line[:-1]
                self.out("\b \b")
            elif key in ("\x03", "\x15"):  # Ctrl-C, Ctrl-U
                self.line = ""
                self.out("\r\n" + PROMPT)
            elif key == "\x04":
                self.stopping.set()
            elif key >= " " or key in "\n\t":
                self.add_text(key)

    def add_text(self, text: str) -> None:
        self.line += text
        self.out(text.replace("\n", "\r\n"))

    def submit(self) -> None:
        prompt, self.line = self.line, ""
        self.out("\r\n")
        if prompt.strip():
            self.prompts.put_nowait(prompt)

    def interrupt(self) -> None:
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()

    # -- turns ---------------------------------------------------------------------------------------

    async def work_loop(self) -> None:
        while True:
            prompt = await self.prompts.get()
            self.turn = asyncio.create_task(self.take_turn(prompt))
            try:
                await self.turn
            except asyncio.CancelledError:
                if self.stopping.is_set():
                    raise
                self.say("Interrupted by user")
            await self.fire_hook("Stop", stop_hook_active=False)
            self.out(PROMPT)

    async def take_turn(self, prompt: str) -> None:
        await self.fire_hook("UserPromptSubmit", prompt=prompt)
        self.record({"type": "user", "message": {"role": "user", "content": prompt}})
        header = HEADER.search(prompt)
        if header is None:
            self.say(f"ok: {prompt}")
            return
        task = INSTRUCTION.split(prompt[header.end() :], maxsplit=1)[0].strip()
        if header["what"] == "late reply from" or header["no_reply"]:
            self.say(f"noted: {task}")
            return
        await self.act(task, header["ticket"])

    async def act(self, task: str, ticket: str) -> None:
        words = task.split()
        verb = words[0] if words else ""
        if verb == "reply":
            await self.reply(task[len("reply") :].strip(), ticket)
        elif verb == "prose":
            self.say(task[len("prose") :].strip())
        elif verb == "work" and len(words) >= 4 and words[2] == "then" and words[3] == "reply":
            await self.work(float(words[1]))
            await self.reply(" ".join(words[4:]), ticket)
        elif verb == "silent" and len(words) >= 2:
            await asyncio.sleep(float(words[1]))
        elif verb == "die":
            os._exit(int(words[1]) if len(words) > 1 else 1)  # a crash: no hook, no goodbye
        elif verb == "ask" and len(words) >= 3:
            answer = await self.call_tool("idea_ask_agent", {"target": words[1], "task": " ".join(words[2:])})
            await self.reply(f"relay:{answer}", ticket)
        elif verb == "limit":
            self.say(f"Claude usage limit reached ∙ resets {task[len('limit') :].strip()}")
        elif verb == "list":
            await self.reply(await self.call_tool("idea_list_agents", {}), ticket)
        elif verb == "write" and len(words) >= 3:
            root = project_root_of(Path(self.cwd))
            if root is None:
                self.say("no context file names the project root")
                return
            target = Path(root) / words[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(" ".join(words[2:]) + "\n", encoding="utf-8")
            await self.reply(f"wrote {target}", ticket)
        else:
            self.say(f"unknown directive: {task}")

    async def work(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        step = 0
        while time.monotonic() < deadline:
            step += 1
            self.record({"type": "assistant", "message": {"role": "assistant", "content": f"working, step {step}"}})
            self.out(".")
            await asyncio.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
        self.out("\r\n")

    async def reply(self, result: str, ticket: str) -> None:
        text = await self.call_tool("idea_reply", {"result": result, "ticket": ticket})
        self.say(f"idea_reply: {text}")

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        await asyncio.wait_for(self.session_ready.wait(), timeout=30)
        self.record({"type": "assistant", "message": {"role": "assistant", "tool_use": name, "input": arguments}})
        result = await self.session.call_tool(name, arguments)
        text = "".join(getattr(block, "text", "") for block in result.content)
        self.record({"type": "user", "message": {"role": "user", "tool_result": text, "isError": result.is_error}})
        return text

    # -- outside world -------------------------------------------------------------------------------

    async def fire_hook(self, event: str, **fields: Any) -> None:
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": self.cwd,
            "hook_event_name": event,
            **fields,
        }
        for hook in self.hooks.get(event, []):
            if hook["type"] == "http":
                try:
                    status = self.http_hooks.post(hook, json.dumps(payload).encode())
                except (OSError, http.client.HTTPException) as exc:
                    log(f"hook {event} failed: {exc!r}")
                else:
                    if not 200 <= status < 300:
                        log(f"hook {event}: HTTP {status} from {hook['url']}")
                continue
            process = await asyncio.create_subprocess_shell(
                hook["command"],
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            try:
                await asyncio.wait_for(process.communicate(json.dumps(payload).encode()), HOOK_TIMEOUT_S)
            except TimeoutError:
                process.kill()
                log(f"hook {event} timed out: {hook['command']}")

    def record(self, entry: dict[str, Any]) -> None:
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        entry = {**entry, "sessionId": self.session_id, "timestamp": time.time()}
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def say(self, text: str) -> None:
        self.record({"type": "assistant", "message": {"role": "assistant", "content": text}})
        self.out(text.replace("\n", "\r\n") + "\r\n")

    def out(self, text: str) -> None:
        os.write(sys.stdout.fileno(), text.encode("utf-8"))


def _option(argv: list[str], name: str) -> str | None:
    if name in argv and argv.index(name) + 1 < len(argv):
        return argv[argv.index(name) + 1]
    return None


def _read_hooks(path: Path) -> dict[str, list[dict[str, Any]]]:
    """{event: [hook, ...]} from Claude's settings format: the `command` and `http` hooks."""
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    hooks: dict[str, list[dict[str, Any]]] = {}
    for event, matchers in (settings.get("hooks") or {}).items():
        for matcher in matchers:
            for hook in matcher.get("hooks", []):
                if (hook.get("type") == "command" and hook.get("command")) or (
                    hook.get("type") == "http" and hook.get("url")
                ):
                    hooks.setdefault(event, []).append(hook)
    return hooks


class HttpHooks:
    """Posts `http` hooks as Claude does (axios with a keep-alive agent): one connection per host, reused."""

    def __init__(self) -> None:
        self._connections: dict[tuple[str, int], http.client.HTTPConnection] = {}

    def post(self, hook: dict[str, Any], body: bytes) -> int:
        url = urllib.parse.urlsplit(hook["url"])
        allowed = set(hook.get("allowedEnvVars") or [])

        def value(text: str) -> str:
            def variable(match: re.Match[str]) -> str:
                name = match.group(1) or match.group(2)
                return os.environ.get(name, "") if name in allowed else ""

            return re.sub(r"\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)", variable, text).replace("\r", "").replace("\n", "")

        headers = {"Content-Type": "application/json", **{k: value(v) for k, v in (hook.get("headers") or {}).items()}}
        key = (url.hostname or "", url.port or 80)
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile is opened again once
            connection = self._connections.get(key)
            if connection is None:
                connection = http.client.HTTPConnection(key[0], key[1], timeout=float(hook.get("timeout", HOOK_TIMEOUT_S)))
                self._connections[key] = connection
            try:
                connection.request("POST", url.path or "/", body=body, headers=headers)
                answer = connection.getresponse()
                answer.read()
                if answer.will_close:
                    connection.close()
                    del self._connections[key]
                return answer.status
            except (OSError, http.client.HTTPException):
                connection.close()
                self._connections.pop(key, None)
                if attempt == 2:
                    raise
        return 0


def _read_mcp_server(path: Path) -> tuple[str, list[str], dict[str, str]] | None:
    """The first server of `.mcp.json` (IdeA declares exactly one, `idea`)."""
    try:
        servers = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
        server = next(iter(servers.values()))
        return server["command"], list(server.get("args", [])), dict(server.get("env", {}))
    except (OSError, ValueError, KeyError, StopIteration):
        return None


def _partial_suffix(text: str, marker: str) -> int:
    """How many trailing characters of `text` could be the start of `marker`."""
    for size in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


def _skip_escape_sequence(text: str) -> str:
    """Drop one escape sequence (arrows, function keys) from the front of `text`."""
    if len(text) >= 2 and text[1] == "[":
        index = 2
        while index < len(text) and not ("@" <= text[index] <= "~"):
            index += 1
        return text[index + 1 :]
    return text[2:]


def _log_file() -> Any:
    target = os.environ.get("FAKE_AGENT_LOG")
    return open(target, "a", encoding="utf-8") if target else open(os.devnull, "w")


def log(message: str) -> None:
    target = os.environ.get("FAKE_AGENT_LOG")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(f"{time.time():.3f} {message}\n")


def main() -> int:
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd) if os.isatty(fd) else None
    if saved is not None:
        tty.setraw(fd)
    try:
        return asyncio.run(FakeAgent(sys.argv[1:]).run())
    finally:
        if saved is not None:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


if __name__ == "__main__":
    code = main()
    os._exit(code)  # do not wait for the bridge's pipes: a CLI dies with its process
