"""The acceptance scenarios' world (spec 03 §12): a real IdeA core from `bootstrap` with headless PTY terminals,
a project whose team runs the fake agent CLI (a custom profile: profiles are data), the project's real MCP
socket, real bridge and hook-relay subprocesses, and requesters that are either the official MCP SDK client
spawned exactly as an agent's `.mcp.json` says, or a fake agent given a directive by the person.

Everything a scenario observes is what the spec names as proof: the inline answer, the live-state file, the
conversation log, `layouts.json` / `running.json`, the diagnostics beacons, the targets' transcripts and
screens, their process ids.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import psutil
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from idea.application.agents.lifecycle import place_for
from idea.application.orchestrator import timing
from idea.application.orchestrator.ports import LiveAgent
from idea.application.projects import ProjectRuntime
from idea.bootstrap import App, bootstrap
from idea.domain.agent import AgentEntry
from idea.domain.events import OrchestrationNews
from idea.domain.ids import AgentId
from idea.domain.orchestration.commands import (
    CancelTicket,
    Command,
    Human,
    Outcome,
    Source,
    SubmitHumanInput,
)
from idea.domain.orchestration.events import LiveStateChanged
from idea.domain.profile import Profile
from idea.domain.workspace import NewCellContent
from idea.infrastructure.inspect.activity import encode_cwd

T = TypeVar("T")

REPO_ROOT = Path(__file__).resolve().parents[2]
FAKE_CLI = Path(__file__).resolve().parents[1] / "fake_agent" / "fake_agent_cli.py"
# Safety nets around condition waits: generous, since a loaded machine (2 cores shared by a team) takes
# seconds to start a CLI; a passing test never waits for them, only a broken one does.
CORE_TIMEOUT_S = 60.0
WAIT_S = 60.0
LEFTOVER_WAIT_S = 15.0
POLL_S = 0.02

WARM = ("QA", "DevFrontend")
COLD = ("Architect", "DevBackend", "Git")

# Short timings for every scenario; a scenario overrides what it is about (spec 03 §9.5 names them).
FAST_TIMINGS: dict[str, int] = {
    timing.WINDOW_ENV: 8_000,
    timing.CEILING_ENV: 60_000,
    timing.NO_REPLY_GRACE_ENV: 400,
    timing.SUBMIT_VERIFY_ENV: 1_500,
    timing.OVERLAY_FLOOR_ENV: 1,
    timing.COLD_START_SETTLE_ENV: 50,
    timing.NO_REPLY_QUIET_ENV: 1_000,
    timing.KEYSTROKE_QUIET_ENV: 1,
}


def fake_profile(name: str = "Fake Claude", *, submit_delay_ms: int = 60, hooks: bool = True) -> Profile:
    """The fake agent CLI dressed as Claude: `.mcp.json` in its run dir, Claude hooks, CLAUDE.md. Without
    `hooks` IdeA installs none, so the CLI reports no turn end (the quiet heuristic decides)."""
    profile = Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": name,
            "command": sys.executable,
            "args": [str(FAKE_CLI)],
            "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
            "structuredAdapter": "claude",
            "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}, "transport": "stdio"},
            "hooks": "claude",
            "promptReadyPattern": "fake> ",
            "submitDelayMs": submit_delay_ms,
        }
    )
    return profile if hooks else profile.with_changes({"hooks": None})


def idle_requester_profile() -> Profile:
    """A requester whose CLI does nothing by itself: IdeA writes its `.mcp.json` (with its launch token) and
    hooks, and the test speaks MCP in its name with the SDK client, exactly as that file says."""
    return Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": "Idle requester",
            "command": sys.executable,
            "args": ["-c", "import sys; sys.stdin.read()"],
            "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
            "structuredAdapter": "claude",
            "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}, "transport": "stdio"},
            "hooks": "claude",
        }
    )


def file_protocol_profile() -> Profile:
    """A CLI without MCP (Gemini, Aider, a custom tool): IdeA gives it a request folder instead. Its program
    only reads its input; the test acts as the model, writing the request files the delivery asks for."""
    return Profile.from_json(
        {
            "id": str(uuid.uuid4()),
            "name": "File-protocol CLI",
            "command": sys.executable,
            "args": ["-c", "import sys; sys.stdin.read()"],
            "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
            "coldStartMaxMs": 500,  # it shows no prompt and speaks no MCP: a degraded but bounded start
        }
    )


def eventually(condition: Callable[[], T], what: str, timeout: float = WAIT_S) -> T:
    """Poll `condition` until it returns something true; that value is returned."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(POLL_S)


async def eventually_async(condition: Callable[[], T], what: str, timeout: float = WAIT_S) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = await asyncio.to_thread(condition)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(POLL_S)


@dataclass
class RowChange:
    agent: str
    status: str
    progress: str | None
    ticket: str | None


@dataclass
class Scenario:
    app: App
    runtime: ProjectRuntime
    project_dir: Path
    home: Path
    agents: dict[str, AgentEntry]
    history: list[RowChange] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- the core --

    def on_core(self, work: Coroutine[Any, Any, T], timeout: float = CORE_TIMEOUT_S) -> T:
        return self.app.core.submit(work).result(timeout)

    def sync(self, fn: Callable[[], T]) -> T:
        async def run() -> T:
            return fn()

        return self.on_core(run())

    def dispatch(self, command: Command, timeout: float = CORE_TIMEOUT_S) -> Outcome:
        """A command of the person, through the UI door."""
        return self.on_core(self.runtime.orchestrator.dispatch(Human(), command, Source.UI), timeout)

    def submit_human(self, target: str, text: str) -> str:
        outcome = self.dispatch(SubmitHumanInput(target=target, text=text))
        assert outcome.data is not None
        return str(outcome.data["ticket"])

    def cancel(self, ticket: str) -> Outcome:
        return self.dispatch(CancelTicket(ticket=ticket))

    # -- the team --

    def id_of(self, name: str) -> AgentId:
        return self.agents[name].agent_id

    def add_agent(self, name: str, profile: Profile) -> AgentEntry:
        self.sync(lambda: self.app.profiles.save_profile(profile))
        self.agents[name] = self.on_core(self.runtime.agents.create(name, profile.id, f"# {name}\n"))
        return self.agents[name]

    def launch(self, name: str, *, visible: bool = False) -> LiveAgent:
        return self.on_core(self.runtime.placement.start(self.id_of(name), place_for(None, visible=visible), reason="user"))

    def live(self, name: str) -> LiveAgent | None:
        return self.sync(lambda: self.runtime.runner.live(self.id_of(name)))

    def pid(self, name: str) -> int | None:
        live = self.live(name)
        return live.terminal.pid() if live is not None else None

    def screen(self, name: str) -> str:
        live = self.live(name)
        return "" if live is None else self.on_core(live.terminal.screen_text())

    def run_dir(self, name: str) -> Path:
        return self.project_dir / ".ideai" / "run" / self.id_of(name)

    def mcp_declaration(self, name: str) -> dict[str, Any]:
        declared = json.loads((self.run_dir(name) / ".mcp.json").read_text(encoding="utf-8"))
        return dict(declared["mcpServers"]["idea"])

    def wait_bridge(self, name: str, timeout: float = WAIT_S) -> None:
        eventually(lambda: self.bridge_connected(name), f"{name}'s bridge to connect", timeout)

    def bridge_connected(self, name: str) -> bool:
        snapshots = self.sync(self.runtime.orchestrator.queue_snapshots)
        return any(s.agent_id == self.id_of(name) and s.bridge_connected for s in snapshots)

    def queue_depth(self, name: str) -> int:
        snapshots = self.sync(self.runtime.orchestrator.queue_snapshots)
        snapshot = next(s for s in snapshots if s.agent_id == self.id_of(name))
        return len(snapshot.tickets)

    def late_replies(self, name: str) -> int:
        """The work panel's "late reply available" count of a requester."""
        snapshots = self.sync(self.runtime.orchestrator.queue_snapshots)
        return next(s for s in snapshots if s.agent_id == self.id_of(name)).late_replies

    def busy(self, name: str) -> bool:
        snapshots = self.sync(self.runtime.orchestrator.queue_snapshots)
        snapshot = next(s for s in snapshots if s.agent_id == self.id_of(name))
        return snapshot.busy is not None

    # -- the request folders (spec 03 §6) --

    def write_request(self, name: str, request: dict[str, Any]) -> str:
        """What a file-protocol agent does: `<id>.json.tmp`, then renamed to `<id>.json`."""
        folder = self.project_dir / ".ideai" / "requests" / self.id_of(name) / "in"
        request_id = str(uuid.uuid4())
        (folder / f"{request_id}.json.tmp").write_text(json.dumps(request), encoding="utf-8")
        (folder / f"{request_id}.json.tmp").rename(folder / f"{request_id}.json")
        return request_id

    def response(self, name: str, request_id: str) -> dict[str, Any] | None:
        path = self.project_dir / ".ideai" / "requests" / self.id_of(name) / "out" / f"{request_id}.json"
        try:
            return dict(json.loads(path.read_text(encoding="utf-8")))
        except (FileNotFoundError, ValueError):
            return None

    # -- what the files say --

    def live_state(self) -> dict[str, dict[str, Any]]:
        """The rows `live-state.json` holds (the board's, written behind them within a fraction of a second)."""
        path = self.project_dir / ".ideai" / "live-state.json"
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return {entry["agentId"]: entry for entry in document.get("entries", [])}

    def row(self, name: str) -> dict[str, Any]:
        """The agent's live-state row as the board holds it now, in the file's form."""
        entry = self.sync(lambda: self.runtime.orchestrator.live_entry(self.id_of(name)))
        return entry.to_json() if entry is not None else {}

    def live_state_written(self) -> None:
        """Wait until `live-state.json` holds the board's rows of the team (it is written behind them)."""
        eventually(
            lambda: all(self.live_state().get(self.id_of(name), {}) == self.row(name) for name in self.agents),
            "live-state.json to hold the board's rows",
        )

    def statuses(self, name: str) -> list[str]:
        """The successive statuses of an agent's live-state row, as written."""
        with self._lock:
            return [change.status for change in self.history if change.agent == name]

    def conversation_records(self) -> list[dict[str, Any]]:
        records = []
        for log in (self.project_dir / ".ideai" / "conversations").glob("*/log.jsonl"):
            for line in log.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    records.append(json.loads(line))
        return records

    def layouts_text(self) -> str:
        return (self.project_dir / ".ideai" / "layouts.json").read_text(encoding="utf-8")

    def running_text(self) -> str:
        path = self.project_dir / ".ideai" / "running.json"
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def beacons(self, fragment: str) -> list[str]:
        log = self.app.data_dir / "logs" / "idea.log"
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        return [line for line in text.splitlines() if fragment in line]

    def bridge_connections(self, name: str) -> int:
        return len(self.beacons(f"[mcp] connected requester={self.id_of(name)}"))

    def transcript(self, name: str) -> list[dict[str, Any]]:
        """The fake agent's transcript records, oldest first, over all its sessions."""
        folder = self.home / ".claude" / "projects" / encode_cwd(str(self.run_dir(name)))
        records = []
        for path in sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    records.append(json.loads(line))
        return records

    def tool_results(self, name: str) -> list[tuple[str, bool]]:
        """What the fake agent's MCP tool calls returned: (text, isError), in order."""
        return [
            (r["message"]["tool_result"], bool(r["message"].get("isError")))
            for r in self.transcript(name)
            if r.get("type") == "user" and "tool_result" in r.get("message", {})
        ]

    def user_prompts(self, name: str) -> list[str]:
        return [
            r["message"]["content"]
            for r in self.transcript(name)
            if r.get("type") == "user" and isinstance(r.get("message", {}).get("content"), str)
        ]

    # -- observing the board --

    def _on_event(self, event: object) -> None:
        if not isinstance(event, OrchestrationNews) or not isinstance(event.event, LiveStateChanged):
            return
        agent_id = event.event.agent_id
        entry = self.runtime.orchestrator.live_entry(agent_id)  # published on the core loop, as the board changes
        name = next((n for n, a in self.agents.items() if a.agent_id == agent_id), agent_id)
        with self._lock:
            self.history.append(
                RowChange(name, entry.status.value, entry.progress, entry.ticket)
                if entry is not None
                else RowChange(name, "", None, None)
            )


# -- building the world --


class ScenarioFactory:
    """Opens scenarios; whatever was opened is shut down (every process ended) at the end of the test."""

    def __init__(self, tmp_path: Path, monkeypatch: Any, *, fresh: bool = True) -> None:
        self._tmp = tmp_path
        self._monkeypatch = monkeypatch
        self._apps: list[App] = []
        self._all_apps: list[App] = []
        self.home = tmp_path / "home"
        self.project_dir = tmp_path / "project"
        if fresh:
            # A socket path must fit in 108 bytes: a short private base, not pytest's tmp_path.
            self.runtime_dir = Path(tempfile.mkdtemp(prefix="idea-s-", dir="/tmp"))
            (tmp_path / "runtime-dir").write_text(str(self.runtime_dir))
            self.home.mkdir()
            self.project_dir.mkdir()
        else:  # a child process of the same scenario
            self.runtime_dir = Path((tmp_path / "runtime-dir").read_text())
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(self.runtime_dir))
        monkeypatch.setenv("HOME", str(self.home))  # the fake agents' transcripts, a real CLI's state
        monkeypatch.setenv("FAKE_AGENT_LOG", str(tmp_path / "fake-agents.log"))

    def open(
        self,
        *,
        requester: str = "sdk",
        warm: tuple[str, ...] = WARM,
        cold: tuple[str, ...] = COLD,
        timings: dict[str, int] | None = None,
        launch: bool = True,
    ) -> Scenario:
        """Bootstrap IdeA, open the project, create Main + the team and launch Main (visible) and the warm
        agents (background). `requester="sdk"`: Main's CLI is idle and the test is its MCP client;
        `requester="fake"`: Main runs the fake agent CLI too."""
        for name, value in {**FAST_TIMINGS, **(timings or {})}.items():
            self._monkeypatch.setenv(name, str(value))
        app = bootstrap(data_dir=self._tmp / "data")
        self._apps.append(app)
        self._all_apps.append(app)
        agent_profile = fake_profile()
        main_profile = agent_profile if requester == "fake" else idle_requester_profile()

        async def prepare() -> ProjectRuntime:
            app.preferences.update_settings(new_cell_content=NewCellContent.EMPTY)
            app.profiles.complete_setup([agent_profile, main_profile])
            return await app.projects.open(str(self.project_dir))

        runtime = app.core.submit(prepare()).result(CORE_TIMEOUT_S)
        scenario = Scenario(app, runtime, self.project_dir, self.home, {})
        app.events.subscribe(scenario._on_event)
        existing = {a.name: a for a in runtime.agents.manifest().agents}
        for name in ("Main", *warm, *cold):
            if name in existing:
                scenario.agents[name] = existing[name]
                continue
            profile = main_profile if name == "Main" else agent_profile
            scenario.agents[name] = scenario.on_core(runtime.agents.create(name, profile.id, f"# {name}\n"))
        if "Main" not in existing:
            scenario.on_core(runtime.agents.set_orchestrator(scenario.id_of("Main")))
        if not launch:
            return scenario
        scenario.launch("Main", visible=True)
        for name in warm:
            scenario.launch(name)
        for name in warm:
            scenario.wait_bridge(name)
        if requester == "fake":
            scenario.wait_bridge("Main")
        return scenario

    def crashed_run(self, directive: str, until: Callable[[Scenario], bool]) -> None:
        """A whole IdeA run in a child process that is killed (SIGKILL) in the middle of its work, like a
        crash: it opens the project, creates the team, sends Main `directive`, and dies once `until` holds
        (a module-level function of this file, named). Returns once every process of that run has ended."""
        script = (
            "import sys; from tests.integration import scenario_support as s; "
            f"s.run_then_crash({str(self._tmp)!r}, {directive!r}, {until.__name__!r})"
        )
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        child = subprocess.run(
            [sys.executable, "-c", script],
            cwd=str(REPO_ROOT),
            env=env,
            capture_output=True,
            text=True,
            timeout=300,  # a safety net: the run dies as soon as its work reaches the point of the crash
            check=False,
        )
        assert child.returncode == -signal.SIGKILL, (child.returncode, child.stdout, child.stderr)
        eventually(lambda: not processes_with_home(self.home), "the crashed run's processes to end")

    def close(self) -> None:
        errors = []
        for app in self._all_apps:  # shown by pytest when the test failed
            log = app.data_dir / "logs" / "idea.log"
            if log.exists():
                print(f"--- {log}\n" + "\n".join(log.read_text(errors="replace").splitlines()[-400:]))
        for app in reversed(self._apps):
            try:
                app.shutdown()
            except Exception as exc:  # noqa: BLE001  (shut the others down all the same)
                errors.append(exc)
        # Every process the scenario started (agents, bridges, hook relays) has ended with IdeA.
        deadline = time.monotonic() + LEFTOVER_WAIT_S
        while (left := processes_with_home(self.home)) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        leftovers = [f"{p.pid} {' '.join(_cmdline(p))}" for p in left]
        for process in left:
            with contextlib.suppress(psutil.Error):
                process.kill()
        shutil.rmtree(self.runtime_dir, ignore_errors=True)
        assert not errors, errors
        assert not leftovers, f"processes outlived IdeA: {leftovers}"


def run_then_crash(tmp: str, directive: str, until: str) -> None:
    """The child side of `ScenarioFactory.crashed_run`."""
    import pytest

    with pytest.MonkeyPatch.context() as monkeypatch:
        factory = ScenarioFactory(Path(tmp), monkeypatch, fresh=False)
        scenario = factory.open(requester="fake", warm=("QA",), cold=())
        scenario.submit_human("Main", directive)
        eventually(lambda: globals()[until](scenario), until)
        os.kill(os.getpid(), signal.SIGKILL)


def main_waits_while_qa_works(scenario: Scenario) -> bool:
    """What `live-state.json` says (the crash must come once the file holds it, not only the board)."""
    rows = scenario.live_state()
    main, qa = rows.get(scenario.id_of("Main"), {}), rows.get(scenario.id_of("QA"), {})
    return main.get("status") == "waiting" and qa.get("status") == "working"


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return ["?"]


def processes_with_home(home: Path) -> list[psutil.Process]:
    """Live processes of this user (never this one) whose environment has HOME=`home`: what a scenario
    started, since every scenario runs with a HOME of its own."""
    wanted, own, uid = str(home), os.getpid(), os.getuid()
    found = []
    for process in psutil.process_iter(["uids"]):
        uids = process.info["uids"]
        if process.pid == own or uids is None or uids.real != uid:
            continue
        try:
            if process.status() != psutil.STATUS_ZOMBIE and process.environ().get("HOME") == wanted:
                found.append(process)
        except psutil.Error:
            continue
    return found


def scenario_factory(tmp_path: Path, monkeypatch: Any) -> Iterator[ScenarioFactory]:
    factory = ScenarioFactory(tmp_path, monkeypatch)
    try:
        yield factory
    finally:
        factory.close()


# -- the requester's MCP client --


@asynccontextmanager
async def requester_client(scenario: Scenario, name: str = "Main") -> AsyncIterator[ClientSession]:
    """The official SDK client, started exactly as the agent's `.mcp.json` says: its command, its
    arguments, its environment (the launch token), in its run dir."""
    declared = scenario.mcp_declaration(name)
    params = StdioServerParameters(
        command=declared["command"],
        args=list(declared.get("args", [])),
        env={**os.environ, **declared.get("env", {})},
        cwd=str(scenario.run_dir(name)),
    )
    with (scenario.app.data_dir / "logs" / "sdk-client-bridge.log").open("a", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def result_text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def error_code(result: Any) -> str | None:
    structured = result.structured_content or {}
    error = structured.get("error") if isinstance(structured, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def kill_hard(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
