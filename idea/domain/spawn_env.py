"""The environment every agent and shell process starts with (spec 01 §11).

Built from IdeA's own environment: terminal identity is set honestly, and what would mislead a child is
removed (a parent multiplexer, an agent IdeA itself runs under, the packaged app's private libraries).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MARKER_ENV: tuple[str, ...] = (
    # Multiplexers and other terminals: CLIs would believe they run inside them.
    "TMUX",
    "TMUX_PANE",
    "STY",
    "WINDOW",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "ZELLIJ_PANE_ID",
    "KITTY_WINDOW_ID",
    "KITTY_PID",
    "KITTY_LISTEN_ON",
    "WEZTERM_PANE",
    "WEZTERM_UNIX_SOCKET",
    "ITERM_SESSION_ID",
    "TERM_SESSION_ID",
    "VTE_VERSION",
    "WT_SESSION",
    "WT_PROFILE_ID",
    "ALACRITTY_SOCKET",
    "ALACRITTY_WINDOW_ID",
    "GHOSTTY_RESOURCES_DIR",
    "KONSOLE_VERSION",
    "KONSOLE_DBUS_SESSION",
    # Agent nesting markers, present when IdeA itself was started from an agent.
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "GEMINI_CLI",
)
# Packaging pollution: breaks python3 and other children of a packaged IdeA. Removed whatever deny list applies.
PACKAGING_ENV: tuple[str, ...] = (
    "APPDIR",
    "APPIMAGE",
    "ARGV0",
    "OWD",
    "PYTHONHOME",
    "PYTHONPATH",
    "QT_PLUGIN_PATH",
    "QML2_IMPORT_PATH",
    "QT_QPA_PLATFORM",
    "QTWEBENGINE_CHROMIUM_FLAGS",
    "_MEIPASS2",
)
DEFAULT_ENV_DENYLIST: tuple[str, ...] = MARKER_ENV + PACKAGING_ENV
# Kept on purpose: the AppDir (the image's mount) an AppImage IdeA runs from, which IdeA names at start
# (infrastructure/installation.py). IdeA's own subcommands that agents start (the MCP bridge, the hook relay,
# the sandbox wrapper) then run from that mount instead of mounting the image again, which a Landlock sandbox
# refuses (packaging/appimage/README.md). Only IdeA's runtime and AppRun read it; the runtime uses it only
# after checking that it names a live mount of the same image.
LIVE_APPDIR_ENV = "IDEA_LIVE_APPDIR"

# Bootloader state of a PyInstaller executable: a frozen child (IdeA's own bridge started by an agent CLI, any
# other PyInstaller app) would take it for its own and skip setting up its libraries.
_PACKAGER_PREFIXES = ("PYINSTALLER_", "_PYI_")
_LIBRARY_PATH = "LD_LIBRARY_PATH"
# Variables a launcher may change for the packaged app, saving the user's value as `<NAME>_ORIG` (the
# PyInstaller bootloader does so for LD_LIBRARY_PATH; an AppRun may for the others). An empty saved value
# means the variable was unset.
SAVED_SUFFIX = "_ORIG"
RESTORED_FROM_SAVED: tuple[str, ...] = (
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "PATH",
    "XDG_DATA_DIRS",
    "XDG_CONFIG_DIRS",
    "PYTHONHOME",
    "PYTHONPATH",
    "QT_PLUGIN_PATH",
    "GIO_MODULE_DIR",
    "GSETTINGS_SCHEMA_DIR",
    "GDK_PIXBUF_MODULE_FILE",
    "FONTCONFIG_FILE",
    "SSL_CERT_FILE",
)
_UTF8_LOCALE_FALLBACK = "C.UTF-8"


def user_environment(
    base: Mapping[str, str], *, frozen: bool = False, deny: Iterable[str] = DEFAULT_ENV_DENYLIST
) -> dict[str, str]:
    """The environment the user had before IdeA's packaging changed it, minus what would mislead a child.

    Every process IdeA starts gets it (shells, agent CLIs, version probes, git), so no bundled library or
    launcher variable reaches a program of the user's (`PACKAGING_ENV` goes whatever `deny` says;
    `LIVE_APPDIR_ENV` stays). `frozen` tells that IdeA runs as a packaged app, whose bootloader set
    LD_LIBRARY_PATH for its own libraries; a developer's own LD_LIBRARY_PATH is kept otherwise.
    """
    saved = {name: base[name + SAVED_SUFFIX] for name in RESTORED_FROM_SAVED if name + SAVED_SUFFIX in base}
    denied = set(deny) | set(PACKAGING_ENV) | {name + SAVED_SUFFIX for name in RESTORED_FROM_SAVED}
    env = {
        name: value
        for name, value in base.items()
        if name not in denied and not name.startswith(_PACKAGER_PREFIXES)
    }
    for name, value in saved.items():
        # An empty value would, for a search path, add the current directory: the variable was unset.
        if value:
            env[name] = value
        else:
            env.pop(name, None)
    if frozen and _LIBRARY_PATH not in saved:
        env.pop(_LIBRARY_PATH, None)
    return env


def build_spawn_env(
    base: Mapping[str, str],
    *,
    idea_version: str,
    frozen: bool = False,
    extra: Mapping[str, str] | None = None,
    deny: Iterable[str] = DEFAULT_ENV_DENYLIST,
) -> dict[str, str]:
    """The full environment for a terminal child, derived from `base` (IdeA's own environment): the user's
    environment (`user_environment`) with the terminal's identity. `extra` (identity, profile entries) is
    applied last and may override anything.
    """
    env = user_environment(base, frozen=frozen, deny=deny)
    env["TERM"] = "xterm-256color"
    env["COLORTERM"] = "truecolor"
    env["TERM_PROGRAM"] = "IdeA"
    env["TERM_PROGRAM_VERSION"] = idea_version
    if not _names_utf8(env.get("LANG", "")):
        env["LANG"] = _UTF8_LOCALE_FALLBACK

    if extra:
        env.update(extra)
    return env


def _names_utf8(locale: str) -> bool:
    lowered = locale.lower()
    return "utf-8" in lowered or "utf8" in lowered
