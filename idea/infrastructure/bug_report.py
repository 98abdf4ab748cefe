"""Help ▸ Diagnostics ▸ Save bug report: one zip a person can attach to a report (spec 07 §5) — the diagnostics
log and its rotations, the last crash reports kept beside them, `settings.json` without its secrets, and what
IdeA runs on (`about.txt`: IdeA's, Python's, Qt's and the terminal widget's versions, the agent CLIs found).
Nothing is read that could block (a FIFO in the user data is skipped), nothing is changed in the user data,
and the zip appears whole or not at all."""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from idea.domain.diagnostics_log import without_secrets
from idea.infrastructure.fs import NotRegularFileError, read_regular_file, replace_file

SETTINGS_FILE = "settings.json"
CRASH_REPORTS_GIVEN = 5  # the newest ones: older crashes were reported, or fixed since


CRASH_REPORTS = "crash-*.log"


def crash_report_name(stamp_ms: int) -> str:
    """What a crash report kept in the logs folder is called (`ui/crash.py` writes them)."""
    return f"crash-{stamp_ms}.log"


def recent_crash_reports(logs_dir: Path) -> list[Path]:
    """The newest crash reports in `logs_dir`, oldest first."""
    try:
        found = [path for path in logs_dir.glob(CRASH_REPORTS) if path.is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda path: path.name)[-CRASH_REPORTS_GIVEN:]


def write_bug_report(
    destination: Path, *, logs: Sequence[Path], data_dir: Path, about: Sequence[tuple[str, str]]
) -> Path:
    """Write the report to `destination` (replaced if it exists) and return it. `logs`: the files of the logs
    folder to give (the log, its rotations, crash reports)."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(prefix=f".{destination.name}.part-", dir=destination.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as report:
            report.writestr("about.txt", _about_text(about))
            report.writestr(SETTINGS_FILE, _settings_without_secrets(data_dir / SETTINGS_FILE))
            for log in logs:
                try:
                    report.writestr(f"logs/{log.name}", read_regular_file(log))
                except (OSError, NotRegularFileError):
                    continue  # rotated away meanwhile, or not a file: the others still help
        replace_file(partial, destination)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return destination


def _about_text(rows: Sequence[tuple[str, str]]) -> str:
    width = max((len(name) for name, _value in rows), default=0)
    return "".join(f"{name.ljust(width)}  {value}\n" for name, value in rows)


def _settings_without_secrets(path: Path) -> str:
    try:
        document = json.loads(read_regular_file(path).decode("utf-8"))
    except FileNotFoundError:
        return "{}\n"
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # its content is left out: it may hold anything
        return json.dumps({"unreadable": f"{type(exc).__name__}: {exc}"}, indent=2) + "\n"
    return json.dumps(without_secrets(document), indent=2, ensure_ascii=False) + "\n"
