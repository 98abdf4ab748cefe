"""File locks with msvcrt (a fake module here; the real one in the Wine smoke test) and atomic replace
retried while another program holds the target."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from idea.infrastructure.file_lock import LOCK_OFFSET, FileLockedError, exclusive_lock
from idea.infrastructure.windows.replace import FileInUseError, replace_with_retry


class FakeMsvcrt:
    LK_NBLCK = 2
    LK_UNLCK = 0

    def __init__(self, busy_attempts: int = 0) -> None:
        self.busy_attempts = busy_attempts
        self.calls: list[tuple[int, int, int]] = []

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        self.calls.append((mode, os.lseek(fd, 0, os.SEEK_CUR), nbytes))
        if mode == self.LK_NBLCK and self.busy_attempts > 0:
            self.busy_attempts -= 1
            raise OSError(errno.EACCES, "Permission denied")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_the_windows_lock_takes_one_byte_past_the_content_and_releases_it(tmp_path: Path) -> None:
    msvcrt = FakeMsvcrt()
    fd = os.open(tmp_path / "log.jsonl", os.O_RDWR | os.O_CREAT)
    try:
        with exclusive_lock(fd, "log.jsonl", windows=msvcrt):
            assert msvcrt.calls == [(FakeMsvcrt.LK_NBLCK, LOCK_OFFSET, 1)]
        assert msvcrt.calls[-1] == (FakeMsvcrt.LK_UNLCK, LOCK_OFFSET, 1)
    finally:
        os.close(fd)


def test_a_busy_lock_is_retried_then_named_with_a_clear_message(tmp_path: Path) -> None:
    clock = Clock()
    fd = os.open(tmp_path / "auth.lock", os.O_RDWR | os.O_CREAT)
    try:
        with exclusive_lock(fd, "auth.lock", windows=FakeMsvcrt(busy_attempts=3), clock=clock, sleep=clock.sleep):
            pass
        with pytest.raises(FileLockedError, match=r"auth.lock is locked by another program \(waited 1 s\)"):
            with exclusive_lock(
                fd, "auth.lock", windows=FakeMsvcrt(busy_attempts=10**6), timeout_s=1, clock=clock, sleep=clock.sleep
            ):
                pass
    finally:
        os.close(fd)


def test_a_lock_that_must_not_wait_is_tried_once(tmp_path: Path) -> None:
    clock = Clock()
    msvcrt = FakeMsvcrt(busy_attempts=1)
    fd = os.open(tmp_path / "log.lock", os.O_RDWR | os.O_CREAT)
    try:
        with pytest.raises(FileLockedError, match="log.lock is locked by another program"):
            with exclusive_lock(fd, "log.lock", wait=False, windows=msvcrt, clock=clock, sleep=clock.sleep):
                pass
        assert msvcrt.calls == [(FakeMsvcrt.LK_NBLCK, LOCK_OFFSET, 1)] and clock.now == 0  # no retry, no wait
        with exclusive_lock(fd, "log.lock", wait=False, windows=msvcrt, clock=clock, sleep=clock.sleep):
            assert msvcrt.calls[-1] == (FakeMsvcrt.LK_NBLCK, LOCK_OFFSET, 1)
    finally:
        os.close(fd)


def sharing_violation(code: int = 32) -> PermissionError:
    error = PermissionError(errno.EACCES, "The process cannot access the file")
    error.winerror = code  # type: ignore[attr-defined]
    return error


def test_a_replace_held_up_by_a_scanner_succeeds_once_it_lets_go(tmp_path: Path) -> None:
    source, target = tmp_path / "new", tmp_path / "settings.json"
    source.write_text("new")
    target.write_text("old")
    clock = Clock()
    refusals = [sharing_violation(32), sharing_violation(5), sharing_violation(33)]

    def replace(a: os.PathLike[str] | str, b: os.PathLike[str] | str) -> None:
        if refusals:
            raise refusals.pop(0)
        os.replace(a, b)

    replace_with_retry(source, target, replace=replace, clock=clock, sleep=clock.sleep)

    assert target.read_text() == "new" and not refusals


def test_a_file_held_for_good_is_reported_by_name_and_the_old_content_stays(tmp_path: Path) -> None:
    source, target = tmp_path / "new", tmp_path / "layouts.json"
    source.write_text("new")
    target.write_text("old")
    clock = Clock()

    def replace(a: object, b: object) -> None:
        raise sharing_violation()

    with pytest.raises(FileInUseError, match="layouts.json is in use by another program") as caught:
        replace_with_retry(source, target, replace=replace, clock=clock, sleep=clock.sleep)
    assert caught.value.sharing_error == 32
    assert target.read_text() == "old" and source.read_text() == "new"


def test_other_permission_errors_are_not_retried(tmp_path: Path) -> None:
    calls = []

    def replace(a: object, b: object) -> None:
        calls.append(1)
        raise sharing_violation(1314)  # ERROR_PRIVILEGE_NOT_HELD

    with pytest.raises(PermissionError) as caught:
        replace_with_retry("a", "b", replace=replace)
    assert not isinstance(caught.value, FileInUseError) and calls == [1]


def test_a_path_past_the_windows_limit_is_explained_and_a_short_one_is_not() -> None:
    from idea.infrastructure.windows.long_paths import explained

    deep = "C:\\Users\\Jean Dupré\\projects\\" + "very long folder name\\" * 12 + "layouts.json"
    not_found = FileNotFoundError(errno.ENOENT, "The system cannot find the path specified")
    not_found.winerror = 3  # type: ignore[attr-defined]

    clearer = explained(not_found, deep)
    assert f"{len(deep)} characters long" in str(clearer) and "LongPathsEnabled" in str(clearer)
    assert explained(not_found, "C:\\short\\layouts.json") is not_found
    assert explained(PermissionError(errno.EACCES, "denied"), deep).__class__ is PermissionError
