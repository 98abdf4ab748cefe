"""The per-project adapters of the orchestration core: the live-state file, the activity
probe over CLI transcripts, and the doors (MCP endpoint, request folders)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from idea import __version__
from idea.application.orchestrator.gateway import OrchestrationGateway
from idea.application.orchestrator.ports import DoorsState
from idea.application.ports import Diagnostics
from idea.application.project_beacons import ProjectBeacons
from idea.domain.errors import AppError
from idea.infrastructure.fileproto.watcher import RequestFolderDoor
from idea.infrastructure.hooks.codex_threads import CodexSideThreads
from idea.infrastructure.hooks.http_door import HookHttpDoor, HookUrls
from idea.infrastructure.inspect.activity import TranscriptActivityProbe
from idea.infrastructure.mcp.connect import is_loopback_endpoint
from idea.infrastructure.mcp.endpoint import mcp_endpoint
from idea.infrastructure.mcp.transport import LoopbackTransport
from idea.infrastructure.project_lock import ProjectLock
from idea.infrastructure.stores.live_state import JsonLiveStateStore


class ProjectDoors:
    """The MCP server on the project's socket, the hook door and the request-folder watcher, opened and
    closed together, behind the lock that keeps a second IdeA process off the project folder."""

    def __init__(
        self,
        project_id: str,
        root: str,
        gateway: OrchestrationGateway,
        diagnostics: Diagnostics,
        ask_safety_net_s: float,
        endpoint: str | None = None,
        hook_urls: HookUrls | None = None,
    ) -> None:
        # Imported with the first project rather than at start: the MCP SDK takes about half a second to load
        # (six under Wine), and the window shows without it.
        from idea.infrastructure.mcp.server import McpSocketServer

        endpoint = endpoint or mcp_endpoint(project_id, diagnostics=diagnostics)
        self._server = McpSocketServer(
            project_id,
            endpoint,
            gateway,
            version=__version__,
            diagnostics=diagnostics,
            ask_safety_net_s=ask_safety_net_s,
            hook_filter=CodexSideThreads(root).ignored,
        )
        self._root = root
        self._gateway = gateway
        self._diagnostics = diagnostics
        self._requests: RequestFolderDoor | None = None
        self._hooks = (
            None
            if hook_urls is None
            else HookHttpDoor(
                project_id,
                gateway,
                diagnostics,
                hook_urls,
                admit=LoopbackTransport().admit if is_loopback_endpoint(endpoint) else None,
            )
        )
        self._lock = ProjectLock(root)

    async def start(self) -> None:
        try:
            self._lock.acquire()
            await self._server.start()
        except AppError as refused:
            self._lock.release()
            self._diagnostics.beacon(f"[project] not opened {self._root}: {refused.message}")
            raise
        await self._open_hook_door()
        self._requests = RequestFolderDoor(self._root, self._gateway, asyncio.get_running_loop(), self._diagnostics)
        try:
            await self._requests.start()
        except BaseException:
            if self._hooks is not None:
                await self._hooks.close()
            await self._server.close()
            self._lock.release()
            raise

    def state(self) -> DoorsState:
        if not self._server.listening:
            return DoorsState(None)
        return DoorsState(self._server.socket_path, self._hooks.url if self._hooks is not None else None)

    async def _open_hook_door(self) -> None:
        """Without it, CLIs relay their hooks through the socket as before: worth a line, not a failure."""
        if self._hooks is None:
            return
        try:
            await self._hooks.start()
        except OSError as exc:
            self._diagnostics.beacon(f"[hook] no HTTP hook door ({exc}); hooks go through the relay command")
            self._hooks = None

    async def close(self) -> None:
        if self._requests is not None:
            await self._requests.close()
        if self._hooks is not None:
            await self._hooks.close()
        await self._server.close()
        self._lock.release()


class LocalOrchestrationAdapters:
    def __init__(
        self,
        diagnostics: Diagnostics,
        ask_safety_net_ms: int,
        endpoint_for: Callable[[str], str] | None = None,
        hook_urls: HookUrls | None = None,
    ) -> None:
        self._diagnostics = diagnostics
        self._ask_safety_net_s = ask_safety_net_ms / 1000
        self._endpoint_for = endpoint_for  # the platform's (bootstrap); the Unix socket by default
        self._hook_urls = hook_urls  # where the projects' hook doors are told to the run-dir writer

    def live_state(self, root: str) -> JsonLiveStateStore:
        return JsonLiveStateStore(root)

    def activity(self, root: str, kind_of: Callable[[str], str | None]) -> TranscriptActivityProbe:
        return TranscriptActivityProbe(root, kind_of)

    def doors(self, project_id: str, root: str, gateway: OrchestrationGateway) -> ProjectDoors:
        endpoint = self._endpoint_for(project_id) if self._endpoint_for is not None else None
        beacons = ProjectBeacons(self._diagnostics, project_id)
        return ProjectDoors(project_id, root, gateway, beacons, self._ask_safety_net_s, endpoint, self._hook_urls)
