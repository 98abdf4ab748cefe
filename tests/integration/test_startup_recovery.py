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
from idea.application.project_service import ProjectService
from idea.domain.events import ProjectProblem
from idea.domain.workspace import Settings
from idea.infrastructure.stores.profiles import JsonProfileStore
from idea.infrastructure.stores.user_data import JsonUserDataStore
from tests.fakes import FakeHost, RecordingDiagnostics, RecordingEvents
from tests.fakes_agents import ScriptedDetector, ScriptedLimitPatterns, shipped_profiles
from tests.world import World

BROKEN = b'{"version": 1, "profiles": [{"id": "oops",\n'


def catalogue(data_dir: Path, *, first_run_done: bool = True) -> ProfileCatalogue:
    user_data = JsonUserDataStore(data_dir)
    user_data.save_settings(Settings(first_run_completed=first_run_done))
    preferences = Preferences(user_data, RecordingEvents(), RecordingDiagnostics())
    return ProfileCatalogue(
        JsonProfileStore(data_dir), ScriptedDetector(), preferences, FakeHost(), ScriptedLimitPatterns()
    )


def read_preferences(data_dir: Path) -> Preferences:
    """The settings as a start reads them from `data_dir`."""
    return Preferences(JsonUserDataStore(data_dir), RecordingEvents(), RecordingDiagnostics())


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


def test_one_broken_profile_leaves_the_others(tmp_path: Path) -> None:
    injection = {"strategy": "conventionFile", "target": "AGENTS.md"}
    mine = {"id": "8a0f5a52-4c1e-4b8e-9d7f-0c2f1d3e4b5a", "name": "My CLI", "command": "my-cli",
            "contextInjection": injection}
    broken = {**mine, "id": "x", "name": "Broken", "args": 3}
    written = json.dumps({"version": 1, "profiles": [mine, broken]})
    (tmp_path / "profiles.json").write_text(written)

    profiles = catalogue(tmp_path)

    assert [p.name for p in profiles.profiles()] == ["My CLI"]
    [kept] = tmp_path.glob("profiles.json.corrupt-*")
    assert kept.read_text() == written
    [problem] = profiles.problems
    assert problem.startswith("Some of your AI CLI profiles could not be read: ")
    assert "(profiles.1.id: profile id 'x' is not a UUID)" in problem  # the model's sentence, no "Value error, "
    assert f"the file was kept as {kept}. The others were kept." in problem
    assert catalogue(tmp_path).problems == []  # the next start is an ordinary one


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
    preferences = read_preferences(tmp_path)

    [problem] = preferences.problems
    assert "settings.json" in problem and "Defaults are used instead" in problem


def test_a_settings_file_with_one_bad_value_keeps_the_others(tmp_path: Path) -> None:
    written = b'{"version": 1, "firstRunCompleted": true, "colorScheme": "light", "terminalFont": 5}'
    (tmp_path / "settings.json").write_bytes(written)
    preferences = read_preferences(tmp_path)

    settings = preferences.settings
    assert settings.first_run_completed and settings.color_scheme.value == "light"  # no first-run wizard again
    assert settings.terminal_font == Settings().terminal_font
    [problem] = preferences.problems
    [kept] = tmp_path.glob("settings.json.corrupt-*")
    assert problem == (
        f"{tmp_path / 'settings.json'} had entries IdeA cannot read (terminalFont: Input should be a valid dictionary "
        f"or instance of TerminalFontSetting); the file was kept as {kept}. The rest was read; what could not be "
        "read takes its default."
    )
    assert kept.read_bytes() == written  # the person's file, as it was
    again = read_preferences(tmp_path)
    assert again.problems == [] and again.settings == settings  # what was read was written back


def test_a_broken_window_or_project_entry_drops_that_entry_only(tmp_path: Path) -> None:
    store = JsonUserDataStore(tmp_path)
    (tmp_path / "workspace.json").write_text(json.dumps({"version": 1, "windows": [
        {"id": "w1", "tabs": ["p1"]}, {"id": 3, "tabs": "x"}, {"id": "w3", "tabs": []}]}))
    (tmp_path / "projects.json").write_text(json.dumps({"version": 1, "projects": [
        {"id": "p1", "name": "shop", "root": "/work/shop"}, {"id": "p2", "name": 7}]}))
    events = RecordingEvents()
    preferences = Preferences(store, events, RecordingDiagnostics())

    assert [window.id for window in preferences.load_workspace().windows] == ["w1", "w3"]
    [problem] = preferences.problems
    assert "workspace.json had entries IdeA cannot read (windows.1.id: " in problem
    world = World()
    assert [record.name for record in ProjectService(world.deps, store).recent_projects()] == ["shop"]
    [kept] = tmp_path.glob("projects.json.corrupt-*")
    [told] = world.events.of_type(ProjectProblem)
    assert told.message.endswith(f"the file was kept as {kept}. The projects it could not read are no longer "
                                 "listed; their folders are untouched.")


def test_a_version_that_cannot_be_read_is_never_trimmed_to_fit(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"version": "two", "colorScheme": "light"}))
    preferences = read_preferences(tmp_path)
    [problem] = preferences.problems
    assert "is unreadable (version: " in problem and problem.endswith("Defaults are used instead.")
    assert not (tmp_path / "settings.json").exists()  # kept aside whole, nothing written in its place


def test_a_fifo_in_place_of_a_user_data_file_never_blocks_the_start(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "settings.json")
    read: list[Preferences] = []
    reader = threading.Thread(
        target=lambda: read.append(read_preferences(tmp_path)),
        daemon=True,
    )
    reader.start()
    reader.join(20)

    assert not reader.is_alive(), "reading settings.json blocked on a FIFO"
    [problem] = read[0].problems
    assert "not a regular file" in problem
    [kept] = tmp_path.glob("settings.json.corrupt-*")
    assert stat.S_ISFIFO(kept.stat().st_mode)
