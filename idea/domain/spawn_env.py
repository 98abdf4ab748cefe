"""The environment every agent and shell process starts with (spec 01 §11).

Built from IdeA's own environment: terminal identity is set honestly, and what would mislead a child is
removed (a parent multiplexer, an agent IdeA itself runs under, the packaged app's private libraries).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

DEFAULT_ENV_DENYLIST: tuple[str, ...] = (
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
    # Packaging pollution: breaks python3 and other children of a packaged IdeA.
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

_PYINSTALLER_PREFIX = "PYINSTALLER_"
_LIBRARY_PATH = "LD_LIBRARY_PATH"
_LIBRARY_PATH_SAVED_BY_BOOTLOADER = "LD_LIBRARY_PATH_ORIG"
_UTF8_LOCALE_FALLBACK = "C.UTF-8"


def build_spawn_env(
    base: Mapping[str, str],
    *,
    idea_version: str,
    frozen: bool = False,
    extra: Mapping[str, str] | None = None,
    deny: Iterable[str] = DEFAULT_ENV_DENYLIST,
) -> dict[str, str]:
    """The full environment for a terminal child, derived from `base` (IdeA's own environment).

    `frozen` tells that IdeA runs as a packaged app, whose bootloader set LD_LIBRARY_PATH for its own
    libraries; a developer's own LD_LIBRARY_PATH is kept otherwise. `extra` (identity, profile entries) is
    applied last and may override anything.
    """
    denied = set(deny)
    env = {
        name: value for name, value in base.items() if name not in denied and not name.startswith(_PYINSTALLER_PREFIX)
    }

    saved_library_path = env.pop(_LIBRARY_PATH_SAVED_BY_BOOTLOADER, None)
    if saved_library_path is not None:
        # An empty value would add the current directory to the library search path: drop it instead.
        if saved_library_path:
            env[_LIBRARY_PATH] = saved_library_path
        else:
            env.pop(_LIBRARY_PATH, None)
    elif frozen:
        env.pop(_LIBRARY_PATH, None)

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
