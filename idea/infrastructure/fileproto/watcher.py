"""The request-folder door (spec 03 §6): how agents whose CLI has no MCP talk to IdeA.

An agent writes `.ideai/requests/<agentId>/in/<requestId>.json` (as `<requestId>.json.tmp`, then renamed);
IdeA answers in `.ideai/requests/<agentId>/out/<requestId>.json`, written atomically, and deletes the
request. The folder is the caller's identity, the file name the request id. Requests name the same
commands as the MCP tools and their fields are checked by the same code (`idea.infrastructure.mcp.tools`).

A `watchdog` observer thread notices the files and reads them without ever blocking (`request_file.py`:
a FIFO, a socket, a device or a symlink is refused unread); each request then runs in a task of its own on
the core loop, so an `agent.message` waiting for its answer never holds up another request.

Nothing waits forever: every `*.json` in an `in/` folder gets an answer in the `out/` beside it — the
command's outcome, or an error naming the rule it broke (not a regular file, too large, a name that is no
request id, a folder of no agent, an id answered before) — and is then deleted. Where no answer can be
written, the diagnostics log says so and the request is deleted all the same; a `*.json` outside an
`in/` folder is never served, and the log names it once. A file whose writer never finished is answered
once it has not changed for `STALL_S`; a periodic sweep finds what the watcher missed. Answered ids are
remembered across restarts (`request_ids.py`, the newest 50 000), so a restart still refuses a reused
id, and every request is logged with the folder it came from.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import traceback
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.ports import Diagnostics
from idea.domain.agent_text import clean_agent_text
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import is_uuid
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.agents.run_dir import REQUESTS_DIR
from idea.infrastructure.fileproto.request_commands import failure_response, run_request, success_response
from idea.infrastructure.fileproto.request_file import read_request_file
from idea.infrastructure.fileproto.request_ids import AnsweredRequests
from idea.infrastructure.fs import atomic_write_bytes, dump_json
from idea.infrastructure.mcp.tools import REQUEST_TYPES  # noqa: F401  (the types this door serves)

REQUEST_MAX_BYTES = 256 * 1024
RESPONSE_MAX_AGE_S = 24 * 3600
SWEEP_INTERVAL_S = 2.0
STALL_S = 5.0  # a request file unchanged this long is answered as it stands, finished or not
MISPLACED_REMEMBERED = 1000  # misplaced files reported once each, up to this many
INBOX = "in"
REQUEST_SUFFIX = ".json"
OUTBOX = "out"
TEMPORARY_SUFFIX = ".tmp"

_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
ID_RULE = (
    "a request id is 1 to 128 letters, digits, dots, dashes or underscores, starting with a letter or digit "
    "(a fresh UUID is best)"
)

# watchdog's inotify backend warns each time a folder created inside the watched tree is already watched
# (agents' `in/` and `out/` folders appear while the watch runs); the watch itself is fine.
warnings.filterwarnings("ignore", message="Callback with id .* already exists", category=RuntimeWarning)


@dataclass(frozen=True)
class _Request:
    """One request file as read from disk: its bytes, or the refusal that answers it unread."""

    folder: str  # the agent id its folder names (or claims to)
    request_id: str  # the file name without `.json`
    path: Path
    body: bytes | None
    digest: str
    problem: AppError | None = None
    remembered: bool = True  # a well-formed id of an agent's folder: answered once, remembered
    earlier: str | None = None  # the digest of the request answered before under this id

    @property
    def key(self) -> tuple[str, str]:
        return (self.folder, self.request_id)


class RequestFolderDoor:
    """Serves the request folders of one project from `start` to `close`."""

    def __init__(
        self,
        project_root: str | os.PathLike[str],
        gateway: OrchestrationGateway,
        loop: asyncio.AbstractEventLoop,
        diagnostics: Diagnostics,
    ) -> None:
        self._requests_dir = Path(project_root) / IDEAI_DIR / REQUESTS_DIR
        self._gateway = gateway
        self._loop = loop
        self._diagnostics = diagnostics
        self._observer: BaseObserver | None = None
        self._answered = AnsweredRequests(self._requests_dir)
        self._active: dict[tuple[str, str], str] = {}  # requests being served: key -> digest
        self._given_up: dict[tuple[str, str], str] = {}  # answered, but their file could not be deleted
        self._unchanged: dict[Path, tuple[int, int, float]] = {}  # sweep: (size, mtime_ns, first seen)
        self._misplaced: set[Path] = set()  # `*.json` files outside `in/` folders already reported
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    async def start(self) -> None:
        """Watch the request folders, answer the requests left from before, and delete answers older than
        a day. Starting a started door does nothing."""
        if self._observer is not None or self._closed:
            return
        await asyncio.to_thread(self._requests_dir.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(self._delete_old_files)
        known = await asyncio.to_thread(self._answered.load)
        if known:
            self._diagnostics.beacon(f"[file] {known} answered request ids remembered from earlier runs")
        observer = Observer()
        observer.schedule(_FolderEvents(self), str(self._requests_dir), recursive=True)
        await asyncio.to_thread(observer.start)
        self._observer = observer
        # Scanned after the watch started, so no file falls between the two; duplicates are ignored.
        for request in await asyncio.to_thread(self._leftovers):
            self._accept(request, leftover=True)
        self._spawn(self._sweep_forever(), "request folder sweep")

    async def close(self) -> None:
        """Stop watching and cancel the requests in progress (their files stay, for the next start)."""
        if self._closed:
            return
        self._closed = True
        if self._observer is not None:
            self._observer.stop()
            await asyncio.to_thread(self._observer.join)
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # Observer and sweep threads.

    def _file_event(self, path: str, *, complete: bool) -> None:
        try:
            request = self._read(Path(path), complete=complete)
        except Exception as exc:  # a bad file must never stop the watcher thread
            self._log_from_thread(f"[file] could not read {_shown(path, 400)}: {exc!r}")
            return
        if request is not None:
            self._loop.call_soon_threadsafe(self._accept, request)

    def _read(self, path: Path, *, complete: bool) -> _Request | None:
        """The request at `path`, or None when it is not a request file (or, for a file that may still be
        being written, when its content is not JSON yet: its closing, or the sweep, will come)."""
        if not path.name.endswith(REQUEST_SUFFIX):
            return None
        if path.parent.name != INBOX or path.parent.parent.parent != self._requests_dir:
            self._note_misplaced(path)
            return None
        content = read_request_file(path, REQUEST_MAX_BYTES)
        if content is None:
            return None  # gone (already answered) or not a file
        folder, request_id = path.parent.parent.name, path.name[: -len(REQUEST_SUFFIX)]
        request = _Request(folder, request_id, path, content.body, content.digest)
        if not is_uuid(folder):
            problem = AppError(
                ErrorCode.NOT_FOUND,
                f"the request folder `{_shown(folder)}` belongs to no agent: requests go in "
                f".ideai/requests/<agent id>/{INBOX}/, in the folder IdeA made for the agent",
            )
            return replace(request, problem=problem, remembered=False)
        if not _REQUEST_ID.fullmatch(request_id):
            problem = AppError(
                ErrorCode.INVALID_ARGUMENTS, f"the file name `{_shown(path.name)}` names no request: {ID_RULE}"
            )
            return replace(request, problem=problem, remembered=False)
        if content.problem is not None:
            return replace(request, problem=AppError(ErrorCode.INVALID_ARGUMENTS, content.problem))
        if not complete and not _is_json(content.body or b""):
            return None
        return request

    def _note_misplaced(self, path: Path) -> None:
        """A `*.json` in the request folders but not in an `in/` folder (an answer in `out/` aside) is
        never served: say once in the log where requests go, so whoever waits for its answer learns why."""
        if path.parent.name == OUTBOX and path.parent.parent.parent == self._requests_dir:
            return
        if path in self._misplaced or len(self._misplaced) >= MISPLACED_REMEMBERED:
            return
        self._misplaced.add(path)
        try:
            where = path.relative_to(self._requests_dir.parent.parent)
        except ValueError:
            return
        self._log_from_thread(
            f"[file] {_shown(str(where), 200)} is not served: a request goes in "
            f".ideai/{REQUESTS_DIR}/<agent id>/{INBOX}/<request id>{REQUEST_SUFFIX}"
        )

    def _leftovers(self) -> list[_Request]:
        requests = (self._read(path, complete=True) for path in sorted(self._inboxes_glob()))
        return [request for request in requests if request is not None]

    def _inboxes_glob(self) -> list[Path]:
        return list(self._requests_dir.glob(f"*/{INBOX}/*{REQUEST_SUFFIX}"))

    def _stalled(self) -> list[_Request]:
        """The request files the watcher has not answered and that have not changed for STALL_S: a writer
        that never finished, a hard link, an event the kernel dropped."""
        now = time.monotonic()
        seen: dict[Path, tuple[int, int, float]] = {}
        stalled = []
        for path in self._inboxes_glob():
            if (path.parent.parent.name, path.name[: -len(REQUEST_SUFFIX)]) in self._active:
                continue
            try:
                info = os.lstat(path)
            except OSError:
                continue
            size, mtime, first = self._unchanged.get(path, (-1, -1, now))
            if (size, mtime) != (info.st_size, info.st_mtime_ns):
                first = now
            seen[path] = (info.st_size, info.st_mtime_ns, first)
            if now - first >= STALL_S:
                request = self._read(path, complete=True)
                if request is not None:
                    stalled.append(request)
        self._unchanged = seen
        return stalled

    def _delete_old_files(self) -> None:
        """Answers older than a day, and temporary request files abandoned as long ago."""
        cutoff = time.time() - RESPONSE_MAX_AGE_S
        old = [
            *self._requests_dir.glob(f"*/{OUTBOX}/*.json"),
            *self._requests_dir.glob(f"*/{INBOX}/*{TEMPORARY_SUFFIX}"),
        ]
        for path in old:
            try:
                if os.lstat(path).st_mtime < cutoff:
                    path.unlink()
            except OSError:
                pass

    # Core loop.

    def _spawn(self, work: Any, name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_INTERVAL_S)
            try:
                stalled = await asyncio.to_thread(self._stalled)
            except Exception as exc:  # the next sweep tries again
                self._diagnostics.beacon(f"[file] the sweep of the request folders failed: {exc!r}")
                continue
            for request in stalled:
                self._accept(request)

    def _accept(self, request: _Request, *, leftover: bool = False) -> None:
        key = request.key
        if self._closed or self._given_up.get(key) == request.digest:
            return
        serving = self._active.get(key)
        if serving is not None:
            if serving != request.digest:
                self._diagnostics.beacon(
                    f"[file] request={_shown(request.request_id)} {_origin(request)} was rewritten while it "
                    "was being served; the first version is the one answered"
                )
            return
        earlier = self._answered.digest_of(key) if request.remembered else None
        if earlier is not None and not (leftover and earlier == request.digest and not self._has_answer(request)):
            request = replace(request, earlier=earlier)
        self._active[key] = request.digest
        self._spawn(self._serve(request), f"request {request.request_id}")

    async def _serve(self, request: _Request) -> None:
        try:
            if request.earlier == request.digest and await asyncio.to_thread(self._drop_duplicate, request):
                self._diagnostics.beacon(
                    f"[file] request={_shown(request.request_id)} {_origin(request)} was answered already; "
                    "its second copy was removed"
                )
                return
            request_type, response, verdict = await self._respond(request)
            self._diagnostics.beacon(
                f"[file] {request_type} request={_shown(request.request_id)} {_origin(request)} -> {verdict}"
            )
            await asyncio.to_thread(self._answer, request, response)
        finally:
            self._active.pop(request.key, None)

    async def _respond(self, request: _Request) -> tuple[str, dict[str, Any], str]:
        request_type = "?"
        try:
            if request.problem is not None:
                raise request.problem
            if request.earlier is not None:
                raise AppError(
                    ErrorCode.INVALID_ARGUMENTS,
                    f"request id {request.request_id} was used before and has been answered; every request "
                    f"needs an id of its own: {ID_RULE}",
                )
            assert request.body is not None
            request_type = _request_type(request.body)
            outcome = await run_request(self._gateway, request.folder, request.request_id, request.body)
            return request_type, success_response(request.request_id, outcome), "ok"
        except AppError as error:
            return request_type, failure_response(request.request_id, error), error.code.value
        except Exception as exc:  # a bug must cost one request its answer, never the door
            self._diagnostics.beacon(f"[file] request {_shown(request.request_id)} failed: {_traceback(exc)}")
            error = AppError(ErrorCode.INTERNAL, "IdeA failed while serving this request")
            return request_type, failure_response(request.request_id, error), ErrorCode.INTERNAL.value

    # Answer threads.

    def _outbox_file(self, request: _Request) -> Path:
        return request.path.parent.parent / OUTBOX / f"{request.request_id}{REQUEST_SUFFIX}"

    def _has_answer(self, request: _Request) -> bool:
        return self._outbox_file(request).exists()

    def _drop_duplicate(self, request: _Request) -> bool:
        """The same request met again after its answer (a crash between answering and deleting it): when
        its answer is still there, delete the copy and say True. Otherwise it is a reused id."""
        if not self._has_answer(request):
            return False
        request.path.unlink(missing_ok=True)
        return True

    def _answer(self, request: _Request, response: dict[str, Any]) -> None:
        """Remember the id, write the answer atomically, delete the request. Where no answer can be
        written, say so in the diagnostics log and delete the request all the same: nobody would answer
        it later either."""
        if request.remembered:
            try:
                self._answered.remember(request.key, request.digest)
            except OSError as exc:
                self._log_from_thread(f"[file] could not remember request id {_shown(request.request_id)}: {exc}")
        outbox_file = self._outbox_file(request)
        try:
            atomic_write_bytes(outbox_file, _response_bytes(response))
        except OSError as exc:
            self._log_from_thread(
                f"[file] could not answer request={_shown(request.request_id)} {_origin(request)}: "
                f"{exc.strerror or exc}; the request was removed unanswered"
            )
        try:
            request.path.unlink(missing_ok=True)
        except OSError as exc:
            self._loop.call_soon_threadsafe(self._given_up.__setitem__, request.key, request.digest)
            self._log_from_thread(
                f"[file] could not remove the answered request={_shown(request.request_id)} {_origin(request)}: "
                f"{exc.strerror or exc}"
            )

    def _log_from_thread(self, message: str) -> None:
        self._loop.call_soon_threadsafe(self._diagnostics.beacon, message)


class _FolderEvents(FileSystemEventHandler):
    """Runs on the observer thread. A file renamed into place or closed after writing is complete; a
    created or modified one may still be being written (platforms without close events rely on these)."""

    def __init__(self, door: RequestFolderDoor) -> None:
        self._door = door

    def on_any_event(self, event: FileSystemEvent) -> None:
        if isinstance(event, FileMovedEvent):
            self._door._file_event(os.fsdecode(event.dest_path), complete=True)
        elif isinstance(event, FileClosedEvent):
            self._door._file_event(os.fsdecode(event.src_path), complete=True)
        elif isinstance(event, FileCreatedEvent | FileModifiedEvent):
            self._door._file_event(os.fsdecode(event.src_path), complete=False)


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return False
    return True


def _request_type(body: bytes) -> str:
    """The request's `type` for the log, "?" when it has none."""
    try:
        fields = json.loads(body)
    except (ValueError, RecursionError):
        return "?"
    request_type = fields.get("type") if isinstance(fields, dict) else None
    return _shown(request_type) if isinstance(request_type, str) else "?"


def _response_bytes(response: dict[str, Any]) -> bytes:
    try:
        return dump_json(response).encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not UTF-8 came back as the request id: escape it
        return (json.dumps(response, indent=2) + "\n").encode("ascii")


def _shown(text: str, limit: int = 80) -> str:
    """A name an agent chose (a folder, a file, a request type), safe in a message and a log line."""
    return clean_agent_text(text)[:limit]


def _origin(request: _Request) -> str:
    return f"folder=.ideai/{REQUESTS_DIR}/{_shown(request.folder)}/{INBOX}"


def _traceback(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)).strip()
