"""The diagnostics log: one line per beacon, from any thread, rotated at its size limit, reopened when
someone else removed or rotated it."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from idea.infrastructure import diagnostics
from idea.infrastructure.diagnostics import FileDiagnostics, LogFollower


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


def test_the_log_is_rotated_at_ten_mebibytes() -> None:
    assert diagnostics.MAX_BYTES == 10 * 1024 * 1024  # spec 07 §5


def test_the_recent_lines_are_read_across_the_rotations_oldest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diagnostics, "MAX_BYTES", 1000)
    log = FileDiagnostics(tmp_path)
    for index in range(60):
        log.beacon(f"[test] beacon {index:04d} " + "y" * 40)
    assert (tmp_path / "idea.log.1").exists()

    recent = [line.split(" ", 1)[1] for line in log.recent_lines(30)]
    assert [line.split()[2] for line in recent] == [f"{index:04d}" for index in range(30, 60)]
    assert len(log.recent_lines(10_000)) == 60  # fewer than asked: all there is
    assert log.recent_lines(0) == []


def test_the_recent_lines_of_a_long_log_start_on_a_whole_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnostics, "RECENT_BYTES", 200)
    log = FileDiagnostics(tmp_path)
    for index in range(20):
        log.beacon(f"[test] beacon {index:04d} " + "z" * 30)

    recent = log.recent_lines(100)
    assert recent and all(line.split(" ", 1)[1].startswith("[test] beacon ") for line in recent)
    assert recent[-1].endswith("0019 " + "z" * 30)


def test_with_echo_on_each_line_is_also_printed_on_standard_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = FileDiagnostics(tmp_path)
    log.beacon("[test] quiet")
    log.echo = True
    log.beacon("[test] told")

    printed = capsys.readouterr()
    assert printed.out == ""  # stdout is never written: the bridge and relay speak on theirs
    assert [line.split(" ", 1)[1] for line in printed.err.splitlines()] == ["[test] told"]
    assert lines(log.path) == ["[test] quiet", "[test] told"]


def test_a_follower_reads_the_end_then_only_what_is_appended_and_starts_over_after_a_rotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = FileDiagnostics(tmp_path)
    follower = LogFollower(log, 3)
    assert follower.read() == (True, [])  # no log yet
    assert follower.read() == (False, [])  # still none: nothing to show again
    for index in range(5):
        log.beacon(f"[test] {index}")

    started, first = follower.read()
    assert started and [line.split(" ", 1)[1] for line in first] == ["[test] 2", "[test] 3", "[test] 4"]
    assert follower.read() == (False, [])
    log.beacon("[test] 5")
    with log.path.open("ab") as handle:
        handle.write(b"1 [test] half a li")  # another process, in the middle of its write
    started, new = follower.read()
    assert not started and [line.split(" ", 1)[1] for line in new] == ["[test] 5"]
    with log.path.open("ab") as handle:
        handle.write(b"ne\n")
    assert follower.read() == (False, ["1 [test] half a line"])  # read once whole

    monkeypatch.setattr(diagnostics, "MAX_BYTES", 1)
    log.close()
    log.beacon("[test] after the rotation")  # the full log is rotated to idea.log.1 first
    started, again = follower.read()
    assert started and [line.split(" ", 1)[1] for line in again] == ["[test] 5", "[test] half a line", "[test] after the rotation"]


def test_a_fifo_in_the_logs_place_blocks_neither_a_beacon_nor_a_reader(tmp_path: Path) -> None:
    log = FileDiagnostics(tmp_path)
    os.mkfifo(log.path)  # opened for writing or reading without a peer, a FIFO waits for one
    results: list[object] = []

    def use() -> None:
        log.beacon("[test] lost")
        results.append(log.recent_lines(10))
        results.append(LogFollower(log, 10).read())

    worker = threading.Thread(target=use, daemon=True)
    worker.start()
    worker.join(10)

    assert not worker.is_alive()
    assert results == [[], (True, [])]
