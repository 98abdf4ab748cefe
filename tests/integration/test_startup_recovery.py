"""The user-data files read at start-up, broken: each is kept aside, IdeA starts with what it can, and the
person is told what happened and how to get their data back."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

from idea.application.agents.profiles import ProfileCatalogue
from idea.application.preferences import Preferences
from idea.domain.workspace import Settings
from idea.infrastructure.stores.profiles import JsonProfileStore
from idea.infrastructure.stores.user_data import JsonUserDataStore
from tests.fakes import FakeHost, RecordingDiagnostics, RecordingEvents
from tests.fakes_agents import ScriptedDetector, shipped_profiles

BROKEN = b'{"version": 1, "profiles": [{"id": "oops",\n'


def catalogue(data_dir: Path, *, first_run_done: bool = True) -> ProfileCatalogue:
    user_data = JsonUserDataStore(data_dir)
    user_data.save_settings(Settings(first_run_completed=first_run_done))
    preferences = Preferences(user_data, RecordingEvents(), RecordingDiagnostics())
    return ProfileCatalogue(JsonProfileStore(data_dir), ScriptedDetector(), preferences, FakeHost())


def test_a_broken_profiles_file_starts_with_the_reference_profiles_and_says_how_to_restore(tmp_path: Path) -> None:
    (tmp_path / "profiles.json").write_bytes(BROKEN)

    profiles = catalogue(tmp_path)

    assert [p.id for p in profiles.profiles()] == [p.id for p in shipped_profiles()]
    [kept] = tmp_path.glob("profiles.json.corrupt-*")
    assert kept.read_bytes() == BROKEN  # the person's file, untouched
    stored = json.loads((tmp_path / "profiles.json").read_text())
    assert [p["id"] for p in stored["profiles"]] == [p.id for p in shipped_profiles()]
    assert not profiles.needs_setup()  # the next start does not land in the first-run wizard
    [problem] = profiles.problems
    assert str(kept) in problem and "reference profiles" in problem
    assert f"move it back to {tmp_path / 'profiles.json'}" in problem


def test_the_next_start_after_a_broken_profiles_file_is_an_ordinary_start(tmp_path: Path) -> None:
    (tmp_path / "profiles.json").write_bytes(BROKEN)
    catalogue(tmp_path)

    again = catalogue(tmp_path)

    assert again.problems == [] and not again.needs_setup()
    assert len(list(tmp_path.glob("profiles.json.corrupt-*"))) == 1


def test_an_agent_whose_reference_profile_was_never_stored_still_has_it(tmp_path: Path) -> None:
    (tmp_path / "profiles.json").write_text(json.dumps({"version": 1, "profiles": []}))
    profiles = catalogue(tmp_path)
    codex = next(p for p in shipped_profiles() if p.name == "Codex")

    assert profiles.profile(codex.id).name == "Codex"
    assert profiles.known().by_id(codex.id) is not None
    assert profiles.book().by_id(codex.id) is None  # the person's own list is unchanged


def test_a_broken_settings_file_is_told_at_start_up(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("[1, 2")
    preferences = Preferences(JsonUserDataStore(tmp_path), RecordingEvents(), RecordingDiagnostics())

    [problem] = preferences.problems
    assert "settings.json" in problem and "Defaults are used instead" in problem


def test_a_fifo_in_place_of_a_user_data_file_never_blocks_the_start(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "settings.json")
    read: list[Preferences] = []
    reader = threading.Thread(
        target=lambda: read.append(Preferences(JsonUserDataStore(tmp_path), RecordingEvents(), RecordingDiagnostics())),
        daemon=True,
    )
    reader.start()
    reader.join(20)

    assert not reader.is_alive(), "reading settings.json blocked on a FIFO"
    [problem] = read[0].problems
    assert "not a regular file" in problem
    [kept] = tmp_path.glob("settings.json.corrupt-*")
    assert stat.S_ISFIFO(kept.stat().st_mode)
