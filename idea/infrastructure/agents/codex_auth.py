"""One Codex login shared by every agent (spec 02 §13.3).

Each Codex agent has its own CODEX_HOME (its run dir's `.codex/`), so its `auth.json` is a symbolic link to
the user's. When Codex refreshes its tokens it may replace the link with a regular file; that file is copied
back to the user's home before relinking, under a lock, so a rotated refresh token is never lost. Where
symbolic links are unavailable (Windows without the privilege) the file is copied both ways instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from idea.infrastructure.file_lock import locked_file
from idea.infrastructure.fs import atomic_write_bytes

AUTH_FILE = "auth.json"
LOCK_FILE = ".idea-auth.lock"
API_KEY_ENV_VARS = ("OPENAI_API_KEY", "CODEX_API_KEY")


def user_codex_home(environ: Mapping[str, str] | None = None) -> Path:
    """`$CODEX_HOME` of IdeA's own environment, else `~/.codex`."""
    env = os.environ if environ is None else environ
    configured = env.get("CODEX_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".codex"


def codex_credentials_available(user_home: Path, environ: Mapping[str, str] | None = None) -> bool:
    """Preflight: a stored login, or an API key that passes through to agents."""
    env = os.environ if environ is None else environ
    return (user_home / AUTH_FILE).is_file() or any(env.get(name) for name in API_KEY_ENV_VARS)


def link_codex_auth(agent_home: Path, user_home: Path, *, use_symlinks: bool | None = None) -> None:
    """Make `<agent_home>/auth.json` the user's credentials, after saving any newer copy the agent holds."""
    symlinks = (os.name != "nt") if use_symlinks is None else use_symlinks
    agent_auth = agent_home / AUTH_FILE
    user_auth = user_home / AUTH_FILE
    agent_holds_file = agent_auth.is_file() and not agent_auth.is_symlink()
    if not agent_holds_file and not user_auth.exists():
        if agent_auth.is_symlink():
            agent_auth.unlink()  # the user signed out: a dangling link would only confuse
        return
    with locked_file(user_home / LOCK_FILE, folder_mode=0o700):
        if agent_holds_file and _is_newer(agent_auth, user_auth):
            _copy_with_mtime(agent_auth, user_auth)
        if not user_auth.exists():
            return
        if symlinks and _try_symlink(agent_auth, user_auth):
            return
        if agent_auth.is_symlink() or not agent_auth.exists() or _is_newer(user_auth, agent_auth):
            _copy_with_mtime(user_auth, agent_auth)


def _is_newer(candidate: Path, reference: Path) -> bool:
    if not reference.exists():
        return True
    return candidate.stat().st_mtime_ns > reference.stat().st_mtime_ns


def _copy_with_mtime(source: Path, target: Path) -> None:
    """Atomic copy, private mode, same modification time (so the next comparison sees them as equal)."""
    if target.is_symlink():
        target.unlink()
    atomic_write_bytes(target, source.read_bytes(), mode=0o600)
    stat = source.stat()
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _try_symlink(link: Path, target: Path) -> bool:
    """Replace `link` by a symbolic link to `target` atomically; False when the system refuses links."""
    temporary = link.with_name(f".{link.name}.link-{os.getpid()}")
    temporary.unlink(missing_ok=True)
    try:
        os.symlink(target.absolute(), temporary)
    except OSError:
        return False
    os.replace(temporary, link)
    return True
