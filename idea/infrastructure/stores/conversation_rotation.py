"""Rotation of a conversation's active segment into numbered archives (spec 04 §7), crash-safe.

Order, under the conversation's lock file (`log.lock`; never the active segment itself, which is replaced
here, and Windows refuses to replace a file any handle holds open): (1) the archive `log.<n+1>.jsonl` is
written (temporary file, fsync, rename); (2) the active segment is rewritten with the turns it keeps — last;
(3) archives beyond the backstop are deleted, oldest first. A crash after (1) leaves the archived turns in two
segments: readers skip the copy, and the next rotation finishes the interrupted one before anything else.
Lines are copied byte for byte, so keys this version does not know survive. Lines that are not turns (a torn
last line) are set aside in `log.jsonl.corrupt-<ms>`, never silently dropped.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId
from idea.domain.knowledge.log_rotation import (
    ACTIVE_SEGMENT,
    Archive,
    RotationReport,
    RotationThresholds,
    archive_name,
    archives_beyond_backstop,
    next_archive_number,
    rotation_plan,
)
from idea.infrastructure import fs
from idea.infrastructure.file_lock import locked_file
from idea.infrastructure.stores.conversation_segments import (
    LOCK_FILE,
    Line,
    lines_backward,
    lines_forward,
    segments,
    turn_of,
)

Fault = Callable[[str], None]  # called at each step; tests raise from it to simulate a crash there


def _no_fault(step: str) -> None:
    return None


def rotate_folder(
    folder: Path, up_to: TurnId | None, thresholds: RotationThresholds, fault: Fault = _no_fault
) -> RotationReport:
    report = RotationReport()
    active = folder / ACTIVE_SEGMENT
    if not active.exists():
        return report
    with locked_file(folder / LOCK_FILE):  # every file below is opened and closed again before it is replaced
        _remove_leftover_temporaries(folder)
        report.finished_interrupted = _finish_interrupted(folder, fault)
        _rotate_locked(folder, up_to, thresholds, fault, report)
    return report


def _rotate_locked(
    folder: Path, up_to: TurnId | None, thresholds: RotationThresholds, fault: Fault, report: RotationReport
) -> None:
    active = folder / ACTIVE_SEGMENT
    with open(active, "rb") as handle:
        lines = list(lines_forward(handle))
        active_bytes = handle.seek(0, os.SEEK_END)
    readable: list[tuple[Line, ConversationTurn]] = []
    unreadable: list[tuple[int, Line]] = []
    for number, line in enumerate(lines, start=1):
        turn = turn_of(line)
        if turn is None:
            unreadable.append((number, line))
        else:
            readable.append((line, turn))
    floor = next((index for index, (_, turn) in enumerate(readable) if turn.id == up_to), None) if up_to else None
    report.decision = rotation_plan(len(readable), active_bytes, floor, thresholds)
    report.unreadable_lines = [number for number, _ in unreadable]
    keep_from = report.decision.keep_from if isinstance(report.decision, Archive) else 0
    existing = [seg.number for seg in segments(folder) if seg.number is not None]
    if keep_from:
        number = next_archive_number(existing)
        name = archive_name(number)
        _write_durably(folder / name, _joined(line for line, _ in readable[:keep_from]), fault, "archive")
        report.archive = name
        report.archived_turns = keep_from
        existing.append(number)
    if unreadable:
        aside = folder / f"{ACTIVE_SEGMENT}.corrupt-{int(time.time() * 1000)}"
        _write_durably(aside, _joined(line for _, line in unreadable), fault, "set-aside")
        report.set_aside = str(aside)
    if keep_from or unreadable:
        _write_durably(active, _joined(line for line, _ in readable[keep_from:]), fault, "active")
    for number in archives_beyond_backstop(existing, thresholds.max_archives):
        (folder / archive_name(number)).unlink(missing_ok=True)
        report.deleted_archives.append(archive_name(number))
        fault("backstop-deleted")


def _finish_interrupted(folder: Path, fault: Fault) -> bool:
    """A crash between writing an archive and rewriting the active segment left the active segment starting
    with a copy of the newest archive: drop that copy now (step 2 of the interrupted rotation)."""
    found = segments(folder)
    if len(found) < 2 or found[-1].number is not None:
        return False
    newest_archive, active = found[-2].path, found[-1].path
    with open(newest_archive, "rb") as archive_handle:
        first_archived = next((t for line in lines_forward(archive_handle) if (t := turn_of(line))), None)
        last_archived = next((t for line in lines_backward(archive_handle) if (t := turn_of(line))), None)
    if first_archived is None or last_archived is None:
        return False
    with open(active, "rb") as handle:
        lines = list(lines_forward(handle))
    first_active = next((t for line in lines if (t := turn_of(line))), None)
    if first_active is None or first_active.id != first_archived.id:
        return False
    cut = next((i for i, line in enumerate(lines) if (t := turn_of(line)) and t.id == last_archived.id), None)
    if cut is None:
        return False
    _write_durably(active, _joined(lines[cut + 1 :]), fault, "repair")
    return True


def _joined(lines: object) -> bytes:
    return b"".join(line.raw + b"\n" for line in lines)  # type: ignore[attr-defined]


def _write_durably(target: Path, data: bytes, fault: Fault, step: str) -> None:
    """Temporary file beside the target, fsync, rename over it, fsync the folder; `fault` between the steps."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.tmp-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)
        fault(f"{step}-written")
        fs.replace_file(tmp, target)  # retried on Windows while a scanner or an editor holds the target
    except OSError:  # a real failure cleans up; a crash leaves the temporary file, as a real one would
        Path(tmp).unlink(missing_ok=True)
        raise
    fs.fsync_dir(target.parent)
    fault(f"{step}-renamed")


def _remove_leftover_temporaries(folder: Path) -> None:
    for name in os.listdir(folder):
        if name.startswith(".log.") and ".tmp-" in name:
            (folder / name).unlink(missing_ok=True)
