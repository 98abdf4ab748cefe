"""Spec 01 §11 / acceptance UI-10: the spawn environment is exactly the expected dictionary."""

from __future__ import annotations

import pytest

from idea.domain.spawn_env import (
    DEFAULT_ENV_DENYLIST,
    LIVE_APPDIR_ENV,
    PACKAGING_ENV,
    RESTORED_FROM_SAVED,
    build_spawn_env,
    user_environment,
)

POLLUTED_ENVIRONMENT = {
    "HOME": "/home/ada",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "USER": "ada",
    "SHELL": "/bin/bash",
    "LANG": "en_GB.utf8",
    "LC_TIME": "de_DE.UTF-8",
    "TERM": "screen-256color",
    "COLORTERM": "24bit",
    "TERM_PROGRAM": "tmux",
    "TERM_PROGRAM_VERSION": "3.4",
    "TMUX": "/tmp/tmux-1000/default,1234,0",
    "TMUX_PANE": "%3",
    "STY": "1234.pts-0.host",
    "WINDOW": "0",
    "ZELLIJ": "0",
    "ZELLIJ_SESSION_NAME": "dev",
    "ZELLIJ_PANE_ID": "1",
    "KITTY_WINDOW_ID": "1",
    "KITTY_PID": "4242",
    "KITTY_LISTEN_ON": "unix:/tmp/kitty",
    "WEZTERM_PANE": "0",
    "WEZTERM_UNIX_SOCKET": "/run/user/1000/wezterm/sock",
    "ITERM_SESSION_ID": "w0t0p0",
    "TERM_SESSION_ID": "w0t0p0:ABC",
    "VTE_VERSION": "7600",
    "WT_SESSION": "guid",
    "WT_PROFILE_ID": "guid",
    "ALACRITTY_SOCKET": "/run/user/1000/Alacritty.sock",
    "ALACRITTY_WINDOW_ID": "1",
    "GHOSTTY_RESOURCES_DIR": "/usr/share/ghostty",
    "KONSOLE_VERSION": "240202",
    "KONSOLE_DBUS_SESSION": "/Sessions/1",
    "CLAUDECODE": "1",
    "CLAUDE_CODE_ENTRYPOINT": "cli",
    "CODEX_SANDBOX": "seatbelt",
    "CODEX_SANDBOX_NETWORK_DISABLED": "1",
    "GEMINI_CLI": "1",
    "APPDIR": "/tmp/.mount_IdeA",
    "APPIMAGE": "/home/ada/IdeA.AppImage",
    "ARGV0": "IdeA.AppImage",
    "OWD": "/home/ada",
    "PYTHONHOME": "/tmp/.mount_IdeA/usr",
    "PYTHONPATH": "/tmp/.mount_IdeA/usr/lib",
    "QT_PLUGIN_PATH": "/tmp/.mount_IdeA/plugins",
    "QML2_IMPORT_PATH": "/tmp/.mount_IdeA/qml",
    "QT_QPA_PLATFORM": "xcb",
    "QTWEBENGINE_CHROMIUM_FLAGS": "--no-sandbox",
    "_MEIPASS2": "/tmp/_MEI1234",
    "PYINSTALLER_RESET_ENVIRONMENT": "1",
    "PYINSTALLER_STRICT_UNPACK_MODE": "0",
    "LD_LIBRARY_PATH": "/tmp/_MEI1234",
    "LD_LIBRARY_PATH_ORIG": "/opt/cuda/lib64",
    # PyInstaller 6's bootloader state, set in a one-dir build's own environment.
    "_PYI_ARCHIVE_FILE": "/opt/idea/idea",
    "_PYI_PARENT_PROCESS_LEVEL": "-1",
    "_PYI_LINUX_PROCESS_NAME": "idea",
    # A launcher that changed a search path saved the user's value.
    "XDG_DATA_DIRS": "/tmp/.mount_IdeA/usr/share:/usr/share",
    "XDG_DATA_DIRS_ORIG": "/usr/local/share:/usr/share",
    # The AppImage runtime's mount of this IdeA: what IdeA's own subcommands started by agents run from.
    "IDEA_LIVE_APPDIR": "/tmp/.mount_IdeA",
}


def test_polluted_environment_becomes_exactly_the_expected_one() -> None:
    env = build_spawn_env(
        POLLUTED_ENVIRONMENT,
        idea_version="1.2.3",
        frozen=True,
        extra={"IDEA_AGENT_ID": "8d7f1c2e-0000-4000-8000-000000000001", "CODEX_HOME": "/runs/a/codex"},
    )

    assert env == {
        "HOME": "/home/ada",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "USER": "ada",
        "SHELL": "/bin/bash",
        "LANG": "en_GB.utf8",
        "LC_TIME": "de_DE.UTF-8",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "TERM_PROGRAM": "IdeA",
        "TERM_PROGRAM_VERSION": "1.2.3",
        "LD_LIBRARY_PATH": "/opt/cuda/lib64",
        "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
        "IDEA_LIVE_APPDIR": "/tmp/.mount_IdeA",
        "IDEA_AGENT_ID": "8d7f1c2e-0000-4000-8000-000000000001",
        "CODEX_HOME": "/runs/a/codex",
    }


def test_every_default_denied_name_is_in_the_fixture() -> None:
    # Keeps the exact-dictionary test above honest when the deny-list grows.
    assert set(DEFAULT_ENV_DENYLIST) <= POLLUTED_ENVIRONMENT.keys()


def test_base_environment_is_not_modified() -> None:
    base = dict(POLLUTED_ENVIRONMENT)
    build_spawn_env(base, idea_version="1.2.3", frozen=True)
    assert base == POLLUTED_ENVIRONMENT


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en_US.UTF-8", "en_US.UTF-8"),
        ("fr_FR.utf8", "fr_FR.utf8"),
        ("de_DE.Utf-8@euro", "de_DE.Utf-8@euro"),
        ("C", "C.UTF-8"),
        ("en_US.ISO-8859-1", "C.UTF-8"),
        ("", "C.UTF-8"),
        (None, "C.UTF-8"),
    ],
)
def test_lang_is_kept_only_when_it_names_utf8(lang: str | None, expected: str) -> None:
    base = {"PATH": "/bin"} if lang is None else {"PATH": "/bin", "LANG": lang}
    assert build_spawn_env(base, idea_version="0")["LANG"] == expected


@pytest.mark.parametrize(
    ("base", "frozen", "expected"),
    [
        ({"LD_LIBRARY_PATH": "/home/ada/lib"}, False, "/home/ada/lib"),
        ({"LD_LIBRARY_PATH": "/tmp/_MEI1"}, True, None),
        ({"LD_LIBRARY_PATH": "/tmp/_MEI1", "LD_LIBRARY_PATH_ORIG": "/opt/lib"}, True, "/opt/lib"),
        ({"LD_LIBRARY_PATH": "/tmp/_MEI1", "LD_LIBRARY_PATH_ORIG": "/opt/lib"}, False, "/opt/lib"),
        ({"LD_LIBRARY_PATH": "/tmp/_MEI1", "LD_LIBRARY_PATH_ORIG": ""}, True, None),
        ({}, True, None),
    ],
)
def test_library_path_is_restored_removed_or_kept(base: dict[str, str], frozen: bool, expected: str | None) -> None:
    env = build_spawn_env(base, idea_version="0", frozen=frozen)
    assert env.get("LD_LIBRARY_PATH") == expected
    assert "LD_LIBRARY_PATH_ORIG" not in env


def test_extra_is_applied_last_and_may_override() -> None:
    env = build_spawn_env(
        {"PATH": "/bin", "TMUX": "x"},
        idea_version="0",
        extra={"TERM_PROGRAM": "xterm.js", "TMUX": "deliberate", "LANG": "C"},
    )
    assert env["TERM_PROGRAM"] == "xterm.js"
    assert env["TMUX"] == "deliberate"
    assert env["LANG"] == "C"


def test_a_configured_deny_list_replaces_the_default_one_but_packaging_variables_always_go() -> None:
    env = build_spawn_env(
        {"TMUX": "kept", "SECRET_TOKEN": "s", "PYINSTALLER_X": "1", "APPDIR": "/tmp/.mount_IdeA"},
        idea_version="0",
        deny=["SECRET_TOKEN"],
    )
    assert env["TMUX"] == "kept"
    assert "SECRET_TOKEN" not in env
    assert "PYINSTALLER_X" not in env
    assert "APPDIR" not in env


def test_without_a_deny_list_only_what_packaging_added_goes() -> None:
    # What `idea sandbox-exec` hands the CLI it wraps: its own launch (the AppImage runtime, AppRun, the
    # bootloader) undone, the rest of the environment IdeA gave it as it was.
    packaged = {name: "/tmp/.mount_IdeA/x" for name in PACKAGING_ENV}
    base = {
        **packaged,
        "TMUX": "kept",
        "IDEA_AGENT_ID": "a",
        LIVE_APPDIR_ENV: "/tmp/.mount_IdeA",
        "LD_LIBRARY_PATH": "/tmp/.mount_IdeA/usr/lib/idea/_internal:/opt/own",
        "LD_LIBRARY_PATH_ORIG": "/opt/own",
        "_PYI_PARENT_PROCESS_LEVEL": "1",
    }
    assert user_environment(base, frozen=True, deny=()) == {
        "TMUX": "kept",
        "IDEA_AGENT_ID": "a",
        LIVE_APPDIR_ENV: "/tmp/.mount_IdeA",
        "LD_LIBRARY_PATH": "/opt/own",
    }


@pytest.mark.parametrize("name", RESTORED_FROM_SAVED)
def test_a_saved_value_is_restored_and_an_empty_one_means_unset(name: str) -> None:
    base = {"HOME": "/home/ada", name: "/tmp/.mount_IdeA/x", f"{name}_ORIG": "/home/ada/own"}
    assert user_environment(base) == {"HOME": "/home/ada", name: "/home/ada/own"}
    assert user_environment({**base, f"{name}_ORIG": ""}) == {"HOME": "/home/ada"}


def test_a_user_variable_ending_in_orig_is_kept_unless_it_is_a_saved_search_path() -> None:
    env = user_environment({"BACKUP_ORIG": "/srv/backup", "_PYI_APPLICATION_HOME_DIR": "/opt/idea/_internal"})
    assert env == {"BACKUP_ORIG": "/srv/backup"}


def test_the_user_environment_keeps_the_terminal_identity_of_the_parent() -> None:
    # Version probes and git get the user's own variables, not a terminal's.
    env = user_environment({"TERM": "screen-256color", "LANG": "C", "TMUX": "x"})
    assert env == {"TERM": "screen-256color", "LANG": "C"}
