"""Help ▸ Diagnostics ▸ Save bug report: the log and its rotations, the settings without their secrets and
what IdeA runs on, in one zip that appears whole; nothing in the user data is changed or blocks it."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from idea.infrastructure import diagnostics
from idea.infrastructure.bug_report import crash_report_name, recent_crash_reports, write_bug_report
from idea.infrastructure.diagnostics import FileDiagnostics

ABOUT = [("IdeA", "1.2.3 (/usr/bin/python3)"), ("claude", "2.0.1 (Claude Code)")]


def test_the_report_holds_the_logs_the_settings_without_secrets_and_the_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diagnostics, "MAX_BYTES", 500)
    data = tmp_path / "data"
    log = FileDiagnostics(data / "logs")
    for index in range(20):
        log.beacon(f"[test] beacon {index} " + "x" * 40)
    settings = {"version": 1, "colorScheme": "light", "proxyPassword": "hunter2"}
    (data / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    before = sorted((path.name, path.stat().st_mtime_ns) for path in data.rglob("*"))

    report = write_bug_report(tmp_path / "out" / "report.zip", logs=log.files(), data_dir=data, about=ABOUT)

    with zipfile.ZipFile(report) as archive:
        names = archive.namelist()
        assert names[:2] == ["about.txt", "settings.json"]
        assert sorted(names[2:]) == sorted(f"logs/{path.name}" for path in log.files())
        assert len(names) > 3  # the log was rotated: its rotations are in it
        assert archive.read("logs/idea.log") == log.path.read_bytes()
        assert archive.read("about.txt").decode() == "IdeA    1.2.3 (/usr/bin/python3)\nclaude  2.0.1 (Claude Code)\n"
        saved = json.loads(archive.read("settings.json"))
        assert saved == {"version": 1, "colorScheme": "light", "proxyPassword": "<redacted>"}
    assert sorted((path.name, path.stat().st_mtime_ns) for path in data.rglob("*")) == before
    assert os.listdir(tmp_path / "out") == ["report.zip"]  # no partial file left beside it


def test_unreadable_settings_and_a_fifo_for_a_log_do_not_stop_the_report(tmp_path: Path) -> None:
    data = tmp_path / "data"
    log = FileDiagnostics(data / "logs")
    log.beacon("[test] kept")
    (data / "settings.json").write_text('{"githubToken": "ghp_secret", broken', encoding="utf-8")
    fifo = data / "logs" / "idea.log.1"
    os.mkfifo(fifo)

    report = write_bug_report(tmp_path / "report.zip", logs=[log.path, fifo], data_dir=data, about=ABOUT)

    with zipfile.ZipFile(report) as archive:
        assert archive.namelist() == ["about.txt", "settings.json", "logs/idea.log"]
        settings = archive.read("settings.json").decode()
        assert "unreadable" in settings and "ghp_secret" not in settings  # a broken file is not copied
    assert (data / "settings.json").exists()  # left where it is: a report never sets files aside
    assert log.files() == [log.path]  # the FIFO is not a log


def test_a_report_that_cannot_be_written_leaves_nothing_behind(tmp_path: Path) -> None:
    data = tmp_path / "data"
    FileDiagnostics(data / "logs").beacon("[test] kept")
    (tmp_path / "report.zip").mkdir()  # a folder by that name: the zip cannot replace it

    with pytest.raises(OSError):
        write_bug_report(tmp_path / "report.zip", logs=[], data_dir=data, about=ABOUT)
    assert sorted(os.listdir(tmp_path)) == ["data", "report.zip"]


def test_the_newest_crash_reports_are_given_oldest_first(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for stamp in range(1796330611000, 1796330611007):
        (logs / crash_report_name(stamp)).write_text(f"report {stamp}\n")
    (logs / "crash-notes.txt").write_text("not a report")
    os.mkfifo(logs / crash_report_name(1796330619999))  # not a file: never read

    reports = recent_crash_reports(logs)

    assert [path.name for path in reports] == [crash_report_name(s) for s in range(1796330611002, 1796330611007)]
    assert recent_crash_reports(tmp_path / "nowhere") == []
