"""Agents ▸ Profiles: the usage-limit pattern and liveness fields on a real core — saved as camelCase keys of
profiles.json and absent when cleared, an invalid pattern refused with the reason, the "Try it" box."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from idea.domain.errors import AppError
from idea.domain.profile import Profile, reference_profile_id
from idea.ui.profiles.profile_editor import ProfileEditor
from tests.ui.accessibility import unnamed_controls
from tests.ui.agent_support import WAIT_MS, BootstrappedApp, bootstrapped_app

AIDER_ID = reference_profile_id("aider")
QUOTA = r"(?i)quota exceeded.*?resets? at (?P<reset>\d{1,2}(?::\d{2})?\s*[ap]m)"


@pytest.fixture
def world(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BootstrappedApp]:
    # Closing an editor with edits asks whether to discard them: the tests leave them.
    monkeypatch.setattr(QMessageBox, "question", lambda *_args: QMessageBox.StandardButton.Discard)
    yield from bootstrapped_app(qtbot, tmp_path)


def aider_editor(world: BootstrappedApp, qtbot: QtBot) -> ProfileEditor:
    app = world.app
    aider = next(profile for profile in app.profiles.reference_profiles() if profile.id == AIDER_ID)
    world.sync(lambda: app.profiles.complete_setup([aider]))
    editor = ProfileEditor(world.client, app.profiles, app.projects.open_runtimes)
    qtbot.addWidget(editor)
    editor.show()
    assert editor.pane.title.text().startswith("Aider")
    return editor


def stored_aider(world: BootstrappedApp) -> dict[str, Any]:
    on_disk = json.loads((world.app.data_dir / "profiles.json").read_text(encoding="utf-8"))
    return next(profile for profile in on_disk["profiles"] if profile["id"] == AIDER_ID)


def save(editor: ProfileEditor, qtbot: QtBot) -> None:
    assert editor.pane.save_button.isEnabled(), editor.pane.problem.text()
    qtbot.mouseClick(editor.pane.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "saved" in editor.pane.problem.text(), timeout=WAIT_MS)


def test_the_limit_and_liveness_fields_save_camel_case_keys_and_cleared_ones_are_absent(
    world: BootstrappedApp, qtbot: QtBot
) -> None:
    editor = aider_editor(world, qtbot)
    limits = editor.pane.form.limits
    assert not limits.body.isVisible()  # Aider's profile sets none of them: the group stays closed
    qtbot.mouseClick(limits.toggle, Qt.MouseButton.LeftButton)
    assert limits.body.isVisible()
    assert limits.stall_after.placeholderText() == "none: IdeA sees no sign of work from this CLI"
    assert limits.turn_timeout.placeholderText() == "IdeA's default: 10 min"
    assert not limits.reset_capture.isEnabled()  # nothing to capture from without a pattern

    limits.pattern.setText(QUOTA)
    limits.reset_capture.setText("reset")
    limits.time_format.setEditText("%-I:%M%p")
    limits.stall_after.setText("2")
    limits.turn_timeout.setText("90")
    limits.turn_timeout_unit.setCurrentIndex(limits.turn_timeout_unit.findData("s"))
    save(editor, qtbot)
    stored = stored_aider(world)
    assert stored["rateLimitPattern"] == {"pattern": QUOTA, "resetCapture": "reset", "timeFormat": "%-I:%M%p"}
    assert stored["liveness"] == {"stallAfterMs": 120_000, "turnTimeoutMs": 90_000}
    assert {"rateLimitPattern", "liveness"} <= set(stored["edited"])  # shipped defaults no longer override them

    reopened = ProfileEditor(world.client, world.app.profiles, world.app.projects.open_runtimes)
    qtbot.addWidget(reopened)
    reopened.show()
    shown = reopened.pane.form.limits
    assert shown.body.isVisible() and shown.pattern.text() == QUOTA and shown.time_format.currentText() == "%-I:%M%p"
    assert (shown.stall_after.text(), shown.stall_unit.currentData()) == ("2", "min")
    assert (shown.turn_timeout.text(), shown.turn_timeout_unit.currentData()) == ("90", "s")
    shown.pattern.clear()
    shown.stall_after.clear()
    shown.turn_timeout.clear()
    save(reopened, qtbot)
    cleared = stored_aider(world)
    assert "rateLimitPattern" not in cleared and "liveness" not in cleared


def test_an_invalid_pattern_is_told_as_it_is_typed_and_the_save_refused_with_the_reason(
    world: BootstrappedApp, qtbot: QtBot
) -> None:
    editor = aider_editor(world, qtbot)
    limits = editor.pane.form.limits
    limits.set_expanded(True)
    limits.pattern.setText("(?i)quota (exceeded")
    reason = "Not a valid regular expression: missing ), unterminated subpattern at position 10"
    assert limits.pattern_message.is_error and limits.pattern_message.text() == reason
    assert not editor.pane.save_button.isEnabled()
    assert editor.pane.problem.is_error and editor.pane.problem.text() == f"Limit pattern: {reason}"
    limits.pattern.setText("(?i)quota exceeded")
    limits.reset_capture.setText("reset")
    assert limits.capture_message.text() == "The pattern has no group named “reset”"
    assert not editor.pane.save_button.isEnabled()
    limits.reset_capture.clear()
    assert not limits.pattern_message.is_error and editor.pane.save_button.isEnabled()

    aider = world.app.profiles.profile(AIDER_ID)
    broken = Profile.from_json({**aider.to_json(), "rateLimitPattern": {"pattern": "(unclosed"}})
    with pytest.raises(AppError, match="Limit pattern: Not a valid regular expression"):
        world.sync(lambda: world.app.profiles.save_profile(broken))  # the core refuses it too


def test_the_try_it_box_shows_whether_a_line_matches_and_when_the_limit_resets(
    world: BootstrappedApp, qtbot: QtBot
) -> None:
    editor = aider_editor(world, qtbot)
    limits = editor.pane.form.limits
    limits.set_expanded(True)
    limits.trial_line.setText("\x1b[33mQuota exceeded\x1b[0m for gemini-2.5-pro. Resets at 11:59pm.")
    assert limits.trial_result.text() == "Write a limit pattern above first."
    limits.pattern.setText(QUOTA)
    limits.reset_capture.setText("reset")
    result = limits.trial_result.text()
    assert result.startswith("Matches “Quota exceeded for gemini-2.5-pro. Resets at 11:59pm”. “11:59pm” reads as")
    assert result.endswith(": IdeA would resume the agent then.") and not limits.trial_result.is_error
    limits.reset_capture.setText("2")
    assert "but the pattern has no group number 2" in limits.trial_result.text() and limits.trial_result.is_error
    limits.trial_line.setText("Gemini is thinking…")
    assert limits.trial_result.text() == "No match: IdeA would not see a usage limit in this line."
    assert "thinking" not in json.dumps(editor.pane.form.data())  # the line tried is not part of the profile


def test_the_usage_limit_fields_have_accessible_names(world: BootstrappedApp, qtbot: QtBot) -> None:
    editor = aider_editor(world, qtbot)
    limits = editor.pane.form.limits
    assert limits.toggle.text() == "Usage limits and liveness"
    limits.set_expanded(True)
    assert unnamed_controls(limits) == []
    assert limits.stall_unit.accessibleName() == "Stall after unit"
