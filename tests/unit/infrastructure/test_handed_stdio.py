"""The sink IdeA writes a CLI's answers to once its stdio is handed over: a real pipe, flow control as a
stream writer has it, and a clear error once the CLI stopped reading."""

from __future__ import annotations

import asyncio
import os

import pytest

from idea.infrastructure.mcp.handed_stdio import PipeSink


class OwnedFd:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        os.close(self.fd)


async def open_sink() -> tuple[asyncio.WriteTransport, PipeSink, int]:
    read_end, write_end = os.pipe()
    transport, sink = await asyncio.get_running_loop().connect_write_pipe(PipeSink, OwnedFd(write_end))
    return transport, sink, read_end


async def read_exactly(fd: int, size: int) -> bytes:
    """Read `size` bytes from a pipe as they come, waiting on its readiness."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    received = bytearray()
    while len(received) < size:
        readable = loop.create_future()
        loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        received += os.read(fd, size - len(received))
    return bytes(received)


async def test_drain_waits_while_the_pipe_is_full_and_every_byte_arrives_in_order() -> None:
    transport, sink, read_end = await open_sink()
    payload = b"".join(b"%08d\n" % n for n in range(200_000))  # far more than a pipe holds
    sink.write(payload)
    drained = asyncio.ensure_future(sink.drain())

    received = await asyncio.wait_for(read_exactly(read_end, len(payload)), 10)

    await asyncio.wait_for(drained, 5)
    assert received == payload
    transport.close()
    await asyncio.wait_for(sink.until_lost(), 5)
    os.close(read_end)


async def test_a_cli_that_stopped_reading_is_a_connection_error() -> None:
    transport, sink, read_end = await open_sink()
    os.close(read_end)

    await asyncio.wait_for(sink.until_lost(), 5)

    assert sink.lost
    with pytest.raises(ConnectionResetError):
        sink.write(b"late\n")
    with pytest.raises(ConnectionResetError):
        await sink.drain()
    assert transport.is_closing()


async def test_flushed_closes_once_written_and_gives_up_on_a_cli_that_does_not_read() -> None:
    transport, sink, read_end = await open_sink()
    sink.write(b"x" * (1 << 20))

    await sink.flushed(transport, 0.05)  # nobody reads: the bound is what ends the wait

    assert not sink.lost
    transport.abort()
    await asyncio.wait_for(sink.until_lost(), 5)
    os.close(read_end)
