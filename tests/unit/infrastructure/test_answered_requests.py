"""The answered request ids a project remembers across restarts, in bounded room."""

from __future__ import annotations

from pathlib import Path

from idea.infrastructure.fileproto import request_ids
from idea.infrastructure.fileproto.request_ids import AnsweredRequests

AGENT = "dce19c75-9669-4e45-b8de-9950025157da"


def test_what_one_run_answered_the_next_run_knows(tmp_path: Path) -> None:
    first = AnsweredRequests(tmp_path)
    first.load()
    first.remember((AGENT, "r1"), "aaaa")
    first.remember((AGENT, "r2"), "bbbb")

    second = AnsweredRequests(tmp_path)

    assert second.load() == 2
    assert second.digest_of((AGENT, "r1")) == "aaaa" and second.digest_of((AGENT, "nope")) is None


def test_the_memory_and_the_file_stay_bounded_keeping_the_newest(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(request_ids, "_SLACK", 5)
    answered = AnsweredRequests(tmp_path, limit=10)
    answered.load()

    for n in range(100):
        answered.remember((AGENT, f"r{n}"), "d")

    lines = answered.path.read_text(encoding="utf-8").splitlines()
    assert len(answered) == 10 and 10 <= len(lines) <= 15
    assert answered.digest_of((AGENT, "r99")) == "d" and answered.digest_of((AGENT, "r50")) is None
    reloaded = AnsweredRequests(tmp_path, limit=10)
    assert reloaded.load() == 10 and reloaded.digest_of((AGENT, "r99")) == "d"


def test_a_damaged_line_is_skipped(tmp_path: Path) -> None:
    (tmp_path / request_ids.ANSWERED_IDS_FILE).write_bytes(f"{AGENT} ok dddd\ngarbage\n\xff\xfe x\n".encode("latin-1"))

    answered = AnsweredRequests(tmp_path)

    assert answered.load() == 1 and answered.digest_of((AGENT, "ok")) == "dddd"
