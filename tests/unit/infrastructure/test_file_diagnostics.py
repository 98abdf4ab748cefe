"""The diagnostics log: one line per beacon, from any thread, rotated at its size limit, reopened when
someone else removed or rotated it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from idea.infrastructure import diagnostics
from idea.infrastructure.diagnostics import FileDiagnostics


def lines(path: Path) -> list[str]:
    return [line.split(" ", 1)[1] for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_beacon_is_one_line_with_its_time_and_its_message_on_one_line(tmp_path: Path) -> None:
    log = FileDiagnostics(tmp_path)
    log.beacon("[mcp] listening")
    log.beacon("[hook] two\nlines")
    log.close()

    text = log.path.read_text(encoding="utf-8")
    assert lines(log.path) == ["[mcp] listening", "[hook] two lines"]
    assert all(line.split(" ", 1)[0].isdigit() for line in text.splitlines())


def test_beacons_from_many_threads_are_whole_lines(tmp_path: Path) -> None:
    log = FileDiagnostics(tmp_path)

    def write(thread: int) -> None:
        for index in range(200):
            log.beacon(f"[t{thread}] {index} " + "x" * 100)

    workers = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    written = lines(log.path)
    assert len(written) == 800
    assert all(line.endswith("x" * 100) for line in written)


def test_the_log_is_rotated_at_its_limit_keeping_five(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnostics, "MAX_BYTES", 1000)
    log = FileDiagnostics(tmp_path)
    for index in range(200):
        log.beacon(f"[test] beacon {index:04d} " + "y" * 40)
    log.close()

    rotated = sorted(path.name for path in tmp_path.iterdir())
    assert rotated == ["idea.log", *(f"idea.log.{n}" for n in range(1, 6))]
    assert all(path.stat().st_size < 1000 + 100 for path in tmp_path.iterdir())
    assert lines(log.path)[-1].startswith("[test] beacon 0199 ")
    assert lines(tmp_path / "idea.log.1")[-1] < lines(log.path)[0]  # the newest rotation holds what came just before


def test_a_log_removed_by_someone_else_is_written_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnostics, "RECHECK_EVERY", 4)
    log = FileDiagnostics(tmp_path)
    log.beacon("[test] before")
    log.path.unlink()  # a person cleaning up, or another IdeA rotating it
    for index in range(4):
        log.beacon(f"[test] after {index}")
    log.close()

    assert lines(log.path)[-1] == "[test] after 3"


def test_a_beacon_never_raises_even_when_the_log_cannot_be_written(tmp_path: Path) -> None:
    log = FileDiagnostics(tmp_path)
    log.path.mkdir()  # the log's path is a folder: nothing can be written there

    log.beacon("[test] lost")  # no exception

    (tmp_path / "idea.log").rmdir()
    log.beacon("[test] kept")
    log.close()
    assert lines(log.path) == ["[test] kept"]
