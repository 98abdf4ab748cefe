"""The request-folder door against the faults issue 16 found, on a real watched folder: nothing a file in a
request folder can be stops the door, and every request gets an answer (or, where none can be written, a
line in the diagnostics log) and is cleaned away."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import tempfile
import time
from pathlib import Path

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.domain.orchestration.commands import AgentCaller, ListAgents, ReadWorkState, StopAgent
from idea.infrastructure.fileproto import watcher
from idea.infrastructure.fileproto.request_ids import ANSWERED_IDS_FILE
from idea.infrastructure.fileproto.watcher import RequestFolderDoor
from tests.contract.terminal_contract import wait_until
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import ARCHITECT, MAIN, FakeGateway
from tests.integration.file_door_support import Folders, diagnostics, door, folders, gateway  # noqa: F401

CLOSE_BOUND_S = 3.0  # a door stuck on a read took 15 s to shut down


def new_door(tmp_path: Path, gateway: FakeGateway, diagnostics: RecordingDiagnostics) -> RequestFolderDoor:
    return RequestFolderDoor(tmp_path, gateway, asyncio.get_running_loop(), diagnostics)


@pytest.fixture
def quick_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watcher, "SWEEP_INTERVAL_S", 0.1)
    monkeypatch.setattr(watcher, "STALL_S", 0.3)


async def still_serving(folders: Folders, agent: str = ARCHITECT) -> None:
    """Another agent's next request is answered: the door was not stopped."""
    folders.submit("next", {"type": "workstate.read"}, agent=agent)
    assert (await folders.response("next", agent=agent))["ok"] is True


async def gone(path: Path) -> None:
    await wait_until(lambda: not os.path.lexists(path), 5, what=f"{path} removed")


async def test_a_fifo_named_like_a_request_is_refused_unread_and_the_door_keeps_serving(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    door = new_door(tmp_path, gateway, diagnostics)
    await door.start()
    fifo = folders.inbox(MAIN) / "pipe.json"
    os.mkfifo(fifo)

    refusal = await folders.response("pipe")
    await still_serving(folders)
    started = time.monotonic()
    await door.close()

    assert refusal["ok"] is False and "named pipe (FIFO)" in refusal["error"]["message"]
    await gone(fifo)
    assert time.monotonic() - started < CLOSE_BOUND_S


async def test_a_fifo_left_from_before_does_not_stop_the_start(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    os.mkfifo(folders.inbox(MAIN) / "early.json")
    door = new_door(tmp_path, gateway, diagnostics)

    await asyncio.wait_for(door.start(), CLOSE_BOUND_S)
    try:
        assert "named pipe" in (await folders.response("early"))["error"]["message"]
        await still_serving(folders)
    finally:
        await door.close()


async def test_a_socket_named_like_a_request_is_refused(door: RequestFolderDoor, folders: Folders) -> None:
    path = folders.inbox(MAIN) / "sock.json"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    short = tempfile.mkdtemp(prefix="idea-f-", dir="/tmp")  # a socket path must fit in 108 bytes
    listener.bind(f"{short}/s")
    os.rename(f"{short}/s", path)  # a socket file moves like any other
    os.rmdir(short)
    try:
        assert "socket" in (await folders.response("sock"))["error"]["message"]
        await gone(path)
        await still_serving(folders)
    finally:
        listener.close()


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-request", "dangling"])
async def test_a_request_created_as_a_symlink_is_refused_and_the_link_removed(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, tmp_path: Path, dangling: bool
) -> None:
    target = tmp_path / "elsewhere.json"
    if not dangling:
        target.write_text('{"type": "agent.stop", "targetAgent": "QA"}', encoding="utf-8")
    link = folders.inbox(MAIN) / "linked.json"

    link.symlink_to(target)

    refusal = await folders.response("linked")
    assert refusal["ok"] is False and "symbolic link" in refusal["error"]["message"]
    await gone(link)
    assert target.exists() is not dangling  # the link went, never what it points to
    assert gateway.calls_of(StopAgent) == []


@pytest.mark.parametrize("name", ["my request.json", "-dash.json", "é.json", "x" * 129 + ".json", ".json"])
async def test_a_file_name_outside_the_id_pattern_is_answered_with_the_rule(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, name: str
) -> None:
    (folders.inbox(MAIN) / name).write_text('{"type": "agent.list"}', encoding="utf-8")

    answer = await folders.response(name[: -len(".json")])

    assert answer["ok"] is False and "a request id is 1 to 128 letters" in answer["error"]["message"]
    await gone(folders.inbox(MAIN) / name)
    assert gateway.dispatched == []


async def test_a_file_name_that_is_not_utf8_is_answered_too(door: RequestFolderDoor, folders: Folders) -> None:
    name = os.fsencode(folders.inbox(MAIN)) + b"/bad\xff.json"
    with open(name, "wb") as handle:
        handle.write(b'{"type": "agent.list"}')

    answer_path = os.fsencode(folders.outbox(MAIN)) + b"/bad\xff.json"
    await wait_until(lambda: os.path.exists(answer_path), 5, what="the answer")
    with open(answer_path, "rb") as handle:
        answer = json.loads(handle.read())

    assert answer["ok"] is False and answer["requestId"] == "bad\udcff"
    assert not os.path.exists(name)


async def test_a_folder_of_no_agent_gets_its_answer(door: RequestFolderDoor, folders: Folders) -> None:
    inbox = folders.requests / "Main" / "in"
    inbox.mkdir(parents=True)
    (inbox / "r1.json").write_text('{"type": "agent.list"}', encoding="utf-8")

    answer_path = folders.requests / "Main" / "out" / "r1.json"
    await wait_until(answer_path.exists, 5, what="the answer")

    answer = json.loads(answer_path.read_text(encoding="utf-8"))
    assert answer["error"]["code"] == "NOT_FOUND" and "belongs to no agent" in answer["error"]["message"]
    await gone(inbox / "r1.json")


async def test_a_folder_named_by_an_id_no_agent_has_is_refused_by_the_core(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway
) -> None:
    stranger = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"
    gateway.answer(ReadWorkState, AppError(ErrorCode.PERMISSION_DENIED, "unauthenticated caller"))

    folders.submit("who", {"type": "workstate.read"}, agent=stranger)

    assert (await folders.response("who", agent=stranger))["error"]["code"] == "PERMISSION_DENIED"
    assert gateway.dispatched[0].requester == AgentCaller(stranger)


async def test_a_reused_request_id_is_refused_even_after_a_restart(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    door = new_door(tmp_path, gateway, diagnostics)
    await door.start()
    folders.submit("once", {"type": "agent.stop", "targetAgent": "QA"})
    assert (await folders.response("once"))["ok"] is True
    await folders.deleted("once")
    (folders.outbox(MAIN) / "once.json").unlink()  # the agent read its answer
    await door.close()

    door = new_door(tmp_path, gateway, diagnostics)  # IdeA started again
    await door.start()
    try:
        folders.submit("once", {"type": "agent.stop", "targetAgent": "Dev"})
        refusal = await folders.response("once")
        await folders.deleted("once")
    finally:
        await door.close()

    assert refusal["ok"] is False and "request id once was used before" in refusal["error"]["message"]
    assert [call.command for call in gateway.calls_of(StopAgent)] == [StopAgent(target="QA")]
    assert (tmp_path / ".ideai" / "requests" / ANSWERED_IDS_FILE).exists()


async def test_the_same_request_met_again_after_its_answer_is_removed_and_its_answer_kept(
    door: RequestFolderDoor, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    body = {"type": "agent.stop", "targetAgent": "QA"}
    folders.submit("same", body)
    first = await folders.response("same")
    await folders.deleted("same")

    folders.submit("same", body)  # e.g. a copy restored from a backup
    await folders.deleted("same")

    assert (await folders.response("same")) == first
    assert len(gateway.calls_of(StopAgent)) == 1
    assert any("was answered already" in line for line in diagnostics.lines)


async def test_a_request_answered_but_not_deleted_before_a_crash_is_not_run_again(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    door = new_door(tmp_path, gateway, diagnostics)
    await door.start()
    body = json.dumps({"type": "agent.stop", "targetAgent": "QA"}).encode()
    folders.submit("crash", body)
    await folders.response("crash")
    await folders.deleted("crash")
    await door.close()
    folders.submit("crash", body)  # as if the process died between the answer and the deletion

    door = new_door(tmp_path, gateway, diagnostics)
    await door.start()
    try:
        await folders.deleted("crash")
    finally:
        await door.close()
    assert len(gateway.calls_of(StopAgent)) == 1


async def test_a_request_remembered_but_never_answered_before_a_crash_is_served_at_start(
    tmp_path: Path, folders: Folders, gateway: FakeGateway, diagnostics: RecordingDiagnostics
) -> None:
    body = json.dumps({"type": "agent.list"}).encode()
    folders.submit("half", body)
    digest = hashlib.sha256(body).hexdigest()[:16]
    (folders.requests / ANSWERED_IDS_FILE).write_text(f"{MAIN} half {digest}\n", encoding="utf-8")

    door = new_door(tmp_path, gateway, diagnostics)
    await door.start()
    try:
        assert (await folders.response("half"))["ok"] is True
    finally:
        await door.close()
    assert len(gateway.calls_of(ListAgents)) == 1


async def test_a_file_whose_writer_never_finished_is_answered_once_it_stalls(
    quick_sweep: None, door: RequestFolderDoor, folders: Folders
) -> None:
    path = folders.inbox(MAIN) / "stuck.json"
    with path.open("wb") as handle:  # never closed while the door watches: no close event comes
        handle.write(b'{"type": "agent.li')
        handle.flush()
        answer = await folders.response("stuck")
    assert answer["ok"] is False and "not valid JSON" in answer["error"]["message"]
    await gone(path)


async def test_a_hard_link_without_a_close_event_is_found_by_the_sweep(
    quick_sweep: None, door: RequestFolderDoor, folders: Folders, tmp_path: Path
) -> None:
    source = tmp_path / "draft.txt"
    source.write_text("not json at all", encoding="utf-8")

    os.link(source, folders.inbox(MAIN) / "linked.json")

    assert "not valid JSON" in (await folders.response("linked"))["error"]["message"]


async def test_where_no_answer_can_be_written_the_log_says_so_and_the_request_goes(
    door: RequestFolderDoor, folders: Folders, diagnostics: RecordingDiagnostics
) -> None:
    outbox = folders.outbox(ARCHITECT)
    outbox.rmdir()
    outbox.write_text("a file where the answers folder should be", encoding="utf-8")

    folders.submit("lost", {"type": "agent.list"}, agent=ARCHITECT)

    await folders.deleted("lost", agent=ARCHITECT)
    await wait_until(
        lambda: any("could not answer request=lost" in line for line in diagnostics.lines), 5, what="the beacon"
    )
    await still_serving(folders, agent=MAIN)


async def test_a_request_outside_an_in_folder_is_named_once_in_the_log(
    door: RequestFolderDoor, folders: Folders, diagnostics: RecordingDiagnostics
) -> None:
    beside = folders.requests / MAIN / "beside.json"
    above = folders.requests / "above.json"
    nested = folders.inbox(MAIN) / "deeper"
    nested.mkdir()
    for path in (beside, above, nested / "nested.json"):
        path.write_text('{"type": "agent.list"}', encoding="utf-8")
    folders.submit("answer-kept", {"type": "agent.list"})  # its answer in out/ is no misplaced request
    await folders.response("answer-kept")

    def reports() -> list[str]:
        return [line for line in diagnostics.lines if "is not served: a request goes in" in line]

    await wait_until(lambda: len(reports()) == 3, 5, what="three misplaced files reported")
    beside.write_text('{"type": "agent.list"} ', encoding="utf-8")  # written again: still one line
    await still_serving(folders)

    assert sorted(line.split()[1] for line in reports()) == [
        ".ideai/requests/above.json",
        f".ideai/requests/{MAIN}/beside.json",
        f".ideai/requests/{MAIN}/in/deeper/nested.json",
    ]
    assert "<agent id>/in/<request id>.json" in reports()[0]


async def test_every_request_is_logged_with_the_folder_it_came_from(
    door: RequestFolderDoor, folders: Folders, diagnostics: RecordingDiagnostics
) -> None:
    folders.submit("audit", {"type": "agent.list"}, agent=ARCHITECT)
    await folders.response("audit", agent=ARCHITECT)

    assert f"[file] agent.list request=audit folder=.ideai/requests/{ARCHITECT}/in -> ok" in diagnostics.lines


@pytest.mark.parametrize(
    "content",
    [b"[" * 200_000, b"\x00" * 1000, os.urandom(4096), b'{"type": "agent.list", "x": "\xff\xfe"}'],
    ids=["deeply-nested", "nul-bytes", "random", "bad-utf8"],
)
async def test_garbage_is_answered_without_a_traceback(
    door: RequestFolderDoor, folders: Folders, diagnostics: RecordingDiagnostics, content: bytes
) -> None:
    folders.submit("junk", content)

    answer = await folders.response("junk")

    assert answer["ok"] is False and answer["error"]["code"] == "INVALID_ARGUMENTS"
    assert not any("Traceback" in line for line in diagnostics.lines)
