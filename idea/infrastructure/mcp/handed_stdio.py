"""The server's side of the stdio handoff (`stdio_handoff.py` tells the whole exchange): after an accepted
handshake that offers it, take the bridge's stdin and stdout over the Unix socket and serve MCP on them.

`take_stdio` answers the offer, receives the two descriptors, checks them as the bridge does, and yields the
line streams the MCP session runs on: a reader of the CLI's requests and a sink for IdeA's answers. The
bridge's connection stays open as the session's lifeline: when it ends (the bridge exited or was killed)
the CLI's input is closed on IdeA's side, which ends the session as the end of the input does. When the
session is over, the answers still buffered get `flush_s` to reach the CLI, then every descriptor is closed
and so is the connection, which lets the bridge exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from idea.infrastructure.mcp.stdio_handoff import READY, RELAY, STDIO_FDS, stdio_problem, verdict_line

DESCRIPTORS_TIMEOUT_S = 5.0
FLUSH_S = 2.0


class HandoffFailed(Exception):
    """The bridge's descriptors could not be taken; the message says why (for the bridge and the log)."""


def can_take_stdio(writer: asyncio.StreamWriter) -> bool:
    """Whether this connection can carry descriptors: a Unix socket, on a system with SCM_RIGHTS."""
    sock = writer.get_extra_info("socket")
    family = getattr(socket, "AF_UNIX", None)
    return sock is not None and family is not None and sock.family == family and hasattr(socket, "recv_fds")


async def decline(writer: asyncio.StreamWriter) -> None:
    """Answer an offer this connection cannot take: the bridge relays."""
    writer.write(verdict_line(RELAY))
    await writer.drain()


@dataclass
class HandedStdio:
    reader: asyncio.StreamReader
    writer: PipeSink


@contextlib.asynccontextmanager
async def take_stdio(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limit: int, flush_s: float = FLUSH_S
) -> AsyncIterator[HandedStdio]:
    """Take the bridge's stdio (HandoffFailed when it cannot be) and yield its streams for the session."""
    loop = asyncio.get_running_loop()
    writer.transport.pause_reading()  # type: ignore[attr-defined]  # the descriptors come with the next byte
    writer.write(verdict_line(READY))
    await writer.drain()
    stdin_file, stdout_file = (_Descriptor(fd) for fd in await _receive_descriptors(writer))
    try:
        requests = asyncio.StreamReader(limit=limit)
        stdin, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(requests), stdin_file)
    except BaseException:
        stdin_file.close()
        stdout_file.close()
        raise
    try:
        stdout, sink = await loop.connect_write_pipe(PipeSink, stdout_file)
    except BaseException:
        stdout_file.close()
        stdin.close()
        raise
    writer.transport.resume_reading()  # type: ignore[attr-defined]
    lifeline = asyncio.ensure_future(_close_input_when_gone(reader, stdin))
    finished = False
    try:
        yield HandedStdio(requests, sink)
        finished = True
    finally:
        lifeline.cancel()
        stdin.close()
        try:
            if finished:
                await sink.flushed(stdout, flush_s)
        finally:
            if not sink.lost:
                stdout.abort()  # the CLI stopped reading, or the session was cancelled: nothing more is written
        await asyncio.gather(lifeline, return_exceptions=True)


async def _receive_descriptors(writer: asyncio.StreamWriter) -> tuple[int, int]:
    """The two descriptors the bridge sends after `ready`, checked; HandoffFailed otherwise (any received
    descriptor is closed then)."""
    transport_socket = writer.get_extra_info("socket")
    sock = socket.fromfd(transport_socket.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)
    loop = asyncio.get_running_loop()
    readable = loop.create_future()
    loop.add_reader(sock.fileno(), lambda: readable.done() or readable.set_result(None))
    try:
        try:
            await asyncio.wait_for(readable, DESCRIPTORS_TIMEOUT_S)
        except TimeoutError:
            raise HandoffFailed(f"no descriptors within {DESCRIPTORS_TIMEOUT_S:g} s of the handoff") from None
        try:
            data, fds, flags, _ = socket.recv_fds(sock, 1, len(STDIO_FDS))  # type: ignore[attr-defined,unused-ignore]
        except OSError as exc:
            raise HandoffFailed(f"the descriptors could not be received: {exc.strerror or exc}") from exc
    finally:
        loop.remove_reader(sock.fileno())
        sock.close()
    problem = None
    if data != b"\n" or len(fds) != len(STDIO_FDS) or flags & getattr(socket, "MSG_CTRUNC", 0):
        problem = "the bridge sent no stdin and stdout after the handoff"
    else:
        problem = stdio_problem(*fds)
    if problem is not None:
        for fd in fds:
            os.close(fd)
        raise HandoffFailed(problem)
    return fds[0], fds[1]


async def _close_input_when_gone(control: asyncio.StreamReader, stdin: asyncio.ReadTransport) -> None:
    """The bridge says nothing after the handoff: the end of its connection (or any word) ends the input."""
    try:
        await control.read(1)
    except ConnectionError:
        pass
    stdin.close()


class _Descriptor:
    """A received descriptor as the pipe transports want it: `fileno`, and `close` when they are done."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


class PipeSink(asyncio.BaseProtocol):
    """Writes to the CLI's stdout, with the flow control of a stream writer: `write`, then `drain` waits
    while the pipe is full. Both raise ConnectionResetError once the CLI stopped reading."""

    def __init__(self) -> None:
        self._transport: asyncio.WriteTransport | None = None
        self._lost = False
        self._paused = False
        self._resumed: list[asyncio.Future[None]] = []
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: Any) -> None:
        self._transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self._wake()
        if not self._closed.done():
            self._closed.set_result(None)

    @property
    def lost(self) -> bool:
        return self._lost

    async def until_lost(self) -> None:
        """Until the pipe is closed: by `flushed`, or by the CLI that stopped reading."""
        await asyncio.shield(self._closed)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake()

    def write(self, data: bytes) -> None:
        if self._lost or self._transport is None or self._transport.is_closing():
            raise ConnectionResetError("the client's output is closed")
        self._transport.write(data)

    async def drain(self) -> None:
        while self._paused and not self._lost:
            waiter = asyncio.get_running_loop().create_future()
            self._resumed.append(waiter)
            await waiter
        if self._lost:
            raise ConnectionResetError("the client's output is closed")

    async def flushed(self, transport: asyncio.WriteTransport, within_s: float) -> None:
        """Close once what is buffered is written, waiting at most `within_s` for a CLI that stopped reading."""
        transport.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.until_lost(), within_s)

    def _wake(self) -> None:
        waiters, self._resumed = self._resumed, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
