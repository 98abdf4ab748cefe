"""The request-folder door (spec 03 §6) on a real folder watched by `watchdog`."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import (
    AgentCaller,
    AskAgent,
    Command,
    LaunchAgent,
    ListAgents,
    Outcome,
    ReadWorkState,
    Reply,
    SetWorkState,
    Source,
    StopAgent,
    UpdateAgentContext,
    Visibility,
    WorkStatus,
)
from idea.infrastructure.fileproto.watcher import REQUEST_MAX_BYTES, REQUEST_TYPES, RequestFolderDoor
from tests.contract.terminal_contract import wait_until
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import ARCHITECT, MAIN, FakeGateway
from tests.integration.file_door_support import Folders, diagnostics, door, folders, gateway  # noqa: F401

NODE = "5b0c7f3e-2a41-4d8e-9c1b-6e7f8a9b0c1d"


@pytest.mark.parametrize(
    ("body", "command"),
    [
        ({"type": "agent.list"}, ListAgents()),
        (
            {"type": "agent.message", "targetAgent": "architect", "task": "  Analyse §17  "},
            AskAgent(target="architect", task="Analyse §17"),
        ),
        ({"type": "agent.reply", "result": "done", "ticket": "3f2a"}, Reply(result="done", ticket="3f2a")),
        (
            {
                "type": "agent.launch",
                "targetAgent": "QA",
                "visibility": "background",
                "nodeId": NODE,
                "task": "go",
            },
            LaunchAgent(target="QA", visibility=Visibility.BACKGROUND, node_id=NODE, task="go"),
        ),
        (  # issue 16: an empty optional string is its default, not an INTERNAL answer
            {"type": "agent.launch", "targetAgent": "QA", "visibility": "", "nodeId": "", "task": ""},
            LaunchAgent(target="QA", visibility=Visibility.VISIBLE, node_id=None, task=None),
        ),
        ({"type": "agent.stop", "targetAgent": "QA"}, StopAgent(target="QA")),
        (
            {"type": "agent.context.update", "targetAgent": "QA", "content": "# QA"},
            UpdateAgentContext(target="QA", content="# QA"),
        ),
        ({"type": "workstate.read"}, ReadWorkState()),
        (
            {"type": "workstate.set", "status": "blocked", "intent": "waiting for CI"},
            SetWorkState(status=WorkStatus.BLOCKED, intent="waiting for CI"),
        ),
        (  # issue 16: control characters never reach the core, whichever door they come through
            {"type": "workstate.set", "status": "blocked", "intent": "wait\u0000ing\u001b[2J for\r\nCI"},
            SetWorkState(status=WorkStatus.BLOCKED, intent="waiting[2J for\nCI"),
        ),
    ],
    ids=lambda value: value.get("type") if isinstance(value, dict) else "",
)
async def test_each_request_type_becomes_its_command(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, body: dict[str, Any], command: Command
) -> None:
    gateway.answer(type(command), Outcome(detail="did it", reply="the reply"))

    folders.submit("req-1", body)

    assert await folders.response("req-1") == {
        "requestId": "req-1",
        "ok": True,
        "detail": "did it",
        "reply": "the reply",
    }
    [call] = gateway.dispatched
    assert (call.requester, call.command, call.source) == (AgentCaller(MAIN), command, Source.FILE)
    await folders.deleted("req-1")
    assert sorted(path.name for path in folders.outbox(MAIN).iterdir()) == ["req-1.json"]  # no temporary left


def test_the_door_serves_exactly_the_request_types_of_the_14_tools() -> None:
    assert list(REQUEST_TYPES) == [
        "agent.list",
        "agent.message",
        "agent.reply",
        "agent.launch",
        "agent.stop",
        "agent.context.update",
        "skill.create",
        "context.read",
        "context.propose",
        "memory.read",
        "memory.write",
        "skill.read",
        "workstate.read",
        "workstate.set",
    ]


async def test_a_failure_is_an_error_response_with_its_code(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    gateway.answer(
        AskAgent,
        AppError(
            ErrorCode.RENDEZVOUS_TIMEOUT,
            "agent QA showed no activity for 600 s",
            retryable=True,
            data={"ticket": "t"},
        ),
    )

    folders.submit("ask", {"type": "agent.message", "targetAgent": "QA", "task": "x"})

    assert await folders.response("ask") == {
        "requestId": "ask",
        "ok": False,
        "error": {
            "code": "RENDEZVOUS_TIMEOUT",
            "message": "agent QA showed no activity for 600 s",
            "retryable": True,
            "ticket": "t",
        },
    }


async def test_identity_comes_from_the_folder(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    folders.submit("from-architect", {"type": "workstate.set", "status": "working"}, agent=ARCHITECT)

    await folders.response("from-architect", agent=ARCHITECT)
    assert gateway.dispatched[0].requester == AgentCaller(ARCHITECT)


@pytest.mark.parametrize("requested_by", ["Main", "main", MAIN])
async def test_requested_by_may_name_the_folders_own_agent(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, requested_by: str
) -> None:
    folders.submit("mine", {"type": "agent.stop", "requestedBy": requested_by, "targetAgent": "QA"})

    assert (await folders.response("mine"))["ok"] is True
    assert gateway.calls_of(StopAgent)[0].requester == AgentCaller(MAIN)


@pytest.mark.parametrize("requested_by", ["Architect", ARCHITECT, 42])
async def test_requested_by_naming_another_agent_is_denied(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, requested_by: object
) -> None:
    folders.submit("spoof", {"type": "agent.stop", "requestedBy": requested_by, "targetAgent": "QA"})

    response = await folders.response("spoof")

    assert response["ok"] is False and response["error"]["code"] == "PERMISSION_DENIED"
    assert gateway.calls_of(StopAgent) == []


async def test_an_ask_blocks_until_its_rendezvous_ends_without_holding_up_others(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    gateway.hold(AskAgent)
    folders.submit("ask", {"type": "agent.message", "targetAgent": "Architect", "task": "review"})
    await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)

    folders.submit("list", {"type": "agent.list"})
    await folders.response("list")

    assert not (folders.outbox(MAIN) / "ask.json").exists()
    gateway.release(gateway.waiting(AskAgent)[0], Outcome(detail="delivered", reply="looks good"))
    assert (await folders.response("ask"))["reply"] == "looks good"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'{"type": "agent.list"', "not valid JSON"),
        (b'["agent.list"]', "one JSON object"),
        (b'{"type": "agent.fly"}', 'unknown request type "agent.fly"'),
        (b'{"targetAgent": "QA"}', "unknown request type null"),
        (b'{"type": "agent.message", "targetAgent": "QA"}', "agent.message: `task` is required"),
        (b'{"type": "agent.message", "target": "QA", "task": "x"}', "request files call it `targetAgent`"),
        (b'{"type": "agent.message", "targetAgent": "QA", "task": "x", "mood": 1}', "unknown argument `mood`"),
        (b'{"type": "agent.list", "requestId": "other"}', "`requestId` differs from the file name"),
        (b"\xff\xfe not utf-8", "not valid JSON"),
    ],
)
async def test_garbage_gets_an_error_response_and_the_door_keeps_serving(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, content: bytes, fragment: str
) -> None:
    folders.submit("bad", content)

    response = await folders.response("bad")

    assert response["ok"] is False and response["error"]["code"] == "INVALID_ARGUMENTS"
    assert fragment in response["error"]["message"]
    await folders.deleted("bad")
    folders.submit("good", {"type": "agent.list"})
    assert (await folders.response("good"))["ok"] is True


async def test_an_oversized_request_is_refused_unread(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    folders.submit("big", {"type": "agent.message", "targetAgent": "QA", "task": "x" * (REQUEST_MAX_BYTES + 1)})

    response = await folders.response("big")

    assert (
        response["error"]["code"] == "INVALID_ARGUMENTS" and str(REQUEST_MAX_BYTES) in response["error"]["message"]
    )
    assert gateway.dispatched == []


async def test_a_request_written_in_place_is_served_once_complete(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    path = folders.inbox(MAIN) / "direct.json"
    with path.open("wb") as handle:  # not atomic: the door sees the file before its content is complete
        handle.write(b'{"type": "agent.mess')
        handle.flush()
        await asyncio.sleep(0.2)  # lets the observer see the half-written file; nothing to wait for instead
        handle.write(b'age", "targetAgent": "QA", "task": "x"}')

    assert (await folders.response("direct"))["ok"] is True
    assert [call.command for call in gateway.dispatched] == [AskAgent(target="QA", task="x")]


async def test_temporary_files_are_ignored(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    pending = folders.inbox(MAIN) / "later.json.tmp"
    pending.write_text('{"type": "agent.list"}', encoding="utf-8")

    folders.submit("now", {"type": "workstate.read"})
    await folders.response("now")

    assert pending.exists() and not (folders.outbox(MAIN) / "later.json").exists()
    assert [type(call.command) for call in gateway.dispatched] == [ReadWorkState]


async def test_a_request_id_is_served_once(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    folders.submit("once", {"type": "agent.stop", "targetAgent": "QA"})
    await folders.response("once")

    await folders.deleted("once")
    folders.submit("once", {"type": "agent.stop", "targetAgent": "Dev"})  # rewritten against the convention
    await folders.deleted("once")

    assert "request id once was used before" in (await folders.response("once"))["error"]["message"]
    assert [call.command for call in gateway.calls_of(StopAgent)] == [StopAgent(target="QA")]


@pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")  # watchdog, racing a `mkdir -p`
async def test_files_that_name_no_request_are_answered_with_the_rule_they_break(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    (folders.inbox(MAIN) / ".hidden.json").write_text("{}", encoding="utf-8")
    stranger = folders.requests / "not-an-agent"
    (stranger / "in").mkdir(parents=True)
    (stranger / "in" / "x.json").write_text('{"type": "agent.list"}', encoding="utf-8")

    hidden = await folders.response(".hidden")
    foreign = json.loads(await wait_for_text(stranger / "out" / "x.json"))

    assert hidden["ok"] is False and "names no request" in hidden["error"]["message"]
    assert foreign["ok"] is False and foreign["error"]["code"] == "NOT_FOUND"
    assert "`not-an-agent` belongs to no agent" in foreign["error"]["message"]
    await folders.deleted(".hidden")
    await wait_until(lambda: not (stranger / "in" / "x.json").exists(), 5, what="the foreign request removed")
    assert gateway.dispatched == []


async def wait_for_text(path: Path) -> str:
    await wait_until(path.exists, 5, what=f"the response {path}")
    return path.read_text(encoding="utf-8")


async def test_leftovers_are_served_and_old_answers_deleted_at_start(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    folders.submit("left-1", {"type": "agent.list"})
    folders.submit("left-2", {"type": "workstate.read"}, agent=ARCHITECT)
    stale = folders.outbox(MAIN) / "old.json"
    recent = folders.outbox(MAIN) / "recent.json"
    for answer in (stale, recent):
        answer.write_text('{"requestId": "x", "ok": true}', encoding="utf-8")
    day_and_an_hour_ago = time.time() - 25 * 3600
    os.utime(stale, (day_and_an_hour_ago, day_and_an_hour_ago))

    door = RequestFolderDoor(tmp_path, gateway, asyncio.get_running_loop(), diagnostics)
    await door.start()
    try:
        assert (await folders.response("left-1"))["ok"] is True
        assert (await folders.response("left-2", agent=ARCHITECT))["ok"] is True
    finally:
        await door.close()

    assert not stale.exists() and recent.exists()


@pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")  # watchdog, racing a `mkdir -p`
async def test_a_new_agent_folder_is_watched(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    newcomer = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"

    folders.submit("hello", {"type": "agent.list"}, agent=newcomer)

    assert (await folders.response("hello", agent=newcomer))["ok"] is True
    assert gateway.dispatched[0].requester == AgentCaller(newcomer)


async def test_close_cancels_requests_in_progress_and_keeps_their_files(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    door = RequestFolderDoor(tmp_path, gateway, asyncio.get_running_loop(), diagnostics)
    await door.start()
    gateway.hold(AskAgent)
    folders.submit("pending", {"type": "agent.message", "targetAgent": "QA", "task": "x"})
    await gateway.until(lambda: len(gateway.waiting(AskAgent)) == 1)

    await door.close()
    await door.close()

    assert gateway.calls_of(AskAgent)[0].cancelled
    assert (folders.inbox(MAIN) / "pending.json").exists()
    assert not (folders.outbox(MAIN) / "pending.json").exists()
