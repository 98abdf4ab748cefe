"""Running an image as an ordinary user, or with FUSE taken away, inside a private mount namespace.

The tests run as root (as CI does); these helpers use unshare(1) so that a bind mount over /dev/fuse or
/usr/bin/fusermount3 affects only the one command, and setpriv(1) to drop to the `nobody` user."""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

NOBODY = 65534


@functools.cache
def _namespaces_work() -> bool:
    return subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode == 0


def require_root_tools() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a private mount namespace and switch users")
    for tool in ("unshare", "setpriv", "mount"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} (util-linux) is not installed")
    if not _namespaces_work():
        pytest.skip("this machine refuses private mount namespaces (unshare -m)")


@contextmanager
def world_readable_copy(image: Path) -> Iterator[tuple[Path, Path]]:
    """A copy of the image in a folder any user can reach (pytest's own tmp is root-only), and a
    writable home for nobody in it. Removed afterwards."""
    shared = Path(tempfile.mkdtemp(prefix="appimage-shared-"))
    try:
        shared.chmod(0o755)
        copy = shared / image.name
        shutil.copyfile(image, copy)
        copy.chmod(0o755)
        home = shared / "home"
        home.mkdir()
        os.chown(home, NOBODY, NOBODY)
        tmp = shared / "tmp"
        tmp.mkdir()
        tmp.chmod(0o1777)
        yield copy, home
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def fuse_node(folder: Path) -> Path:
    """A FUSE device node usable by everyone (distributions ship /dev/fuse as 0666; this machine has 0600)."""
    node = folder / "fuse"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(10, 229))
    except PermissionError:
        pytest.skip("cannot create a device node here (mknod refused)")
    node.chmod(0o666)
    return node


def as_nobody_with_fuse(
    image: Path, home: Path, *args: str, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs the image as nobody, with an everyone-usable /dev/fuse, in a private mount namespace."""
    node = fuse_node(image.parent)
    return as_nobody(image, home, *args, extra_env=extra_env, setup=f"mount --bind {node} /dev/fuse")


def as_nobody(
    image: Path, home: Path, *args: str, extra_env: dict[str, str] | None = None, setup: str = "true"
) -> subprocess.CompletedProcess[str]:
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TMPDIR": str(image.parent / "tmp"),
        **(extra_env or {}),
    }
    assignments = [f"{k}={v}" for k, v in env.items()]
    script = f'{setup} && exec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups env -i "$@"'
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", *assignments, str(image), *args],
        cwd=home,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def with_bind_mount(source: str | Path, target: str, image: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Runs the image as root with source bind-mounted over target, in a private mount namespace."""
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", f'mount --bind {source} {target} && exec "$0"', str(image)],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
