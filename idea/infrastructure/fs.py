"""File primitives every store uses: atomic writes, and corrupt files kept aside instead of overwritten."""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from idea.domain.errors import CorruptFileError

if sys.platform == "win32":  # a target held open by a scanner or an editor is retried (windows/replace.py)
    from idea.infrastructure.windows import long_paths
    from idea.infrastructure.windows.replace import replace_with_retry as replace_file
else:
    replace_file = os.replace


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, mode: int | None = None, *, durable: bool = True
) -> None:
    """Write to a temporary file beside the target, fsync it, rename it over the target, fsync the dir.

    `durable=False` skips both fsyncs: readers still see the old or the new content, never a mix, but a
    power cut may lose the write. For runtime files rewritten many times a second whose loss costs nothing
    (each fsync pair blocks for about 10 ms on an ordinary disk)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.tmp-", dir=target.parent)
    except OSError as exc:
        if sys.platform == "win32":
            raise long_paths.explained(exc, target) from exc
        raise
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_UMASK)
        replace_file(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if durable:
        fsync_dir(target.parent)


def atomic_write_text(
    path: str | os.PathLike[str], text: str, mode: int | None = None, *, durable: bool = True
) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode, durable=durable)


def dump_json(document: Any) -> str:
    """IdeA's on-disk JSON style: 2-space indentation, UTF-8 kept readable, trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def atomic_write_json(
    path: str | os.PathLike[str], document: Any, mode: int | None = None, *, durable: bool = True
) -> None:
    atomic_write_text(path, dump_json(document), mode, durable=durable)


def read_json(path: str | os.PathLike[str]) -> Any | None:
    """The parsed document, or None when the file does not exist.

    A file that exists but cannot be parsed is moved aside and reported with CorruptFileError.
    """
    source = Path(path)
    try:
        raw = read_regular_file(source)
    except FileNotFoundError:
        return None
    except NotRegularFileError as exc:
        raise quarantine(source, str(exc)) from exc
    except OSError as exc:
        raise CorruptFileError(str(source), exc.strerror or str(exc), None) from exc
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise quarantine(source, _describe(exc)) from exc


def read_text(path: str | os.PathLike[str]) -> str | None:
    """The UTF-8 text of the file with its line ends as `\n` (a file saved by a Windows editor has CRLF), or
    None when it does not exist; a file that is not UTF-8 is moved aside and reported with CorruptFileError."""
    source = Path(path)
    try:
        raw = read_regular_file(source)
    except FileNotFoundError:
        return None
    except NotRegularFileError as exc:
        raise quarantine(source, str(exc)) from exc
    try:
        return raw.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError as exc:
        raise quarantine(source, f"not UTF-8 text: {exc.reason}") from exc


class NotRegularFileError(OSError):
    """A FIFO, socket or device where IdeA expects one of its files: reading it could block forever."""


def read_regular_file(path: Path) -> bytes:
    """The bytes of a regular file, without ever blocking on anything else found under its name (a FIFO
    opened for reading waits for a writer; O_NONBLOCK makes the open return at once, then it is refused)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)  # O_BINARY: Windows would otherwise translate line ends and stop at Ctrl-Z
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(f"not a regular file (a FIFO, socket or device is named {path.name})")
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


def remove_if_present(path: str | os.PathLike[str]) -> bool:
    """Delete a file; False when there was none."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def quarantine(path: str | os.PathLike[str], reason: str) -> CorruptFileError:
    """Move a broken file to `<name>.corrupt-<epoch ms>` and return the error that tells the user."""
    return CorruptFileError(str(path), reason, set_aside(path))


def set_aside(path: str | os.PathLike[str]) -> str | None:
    """Move a file to `<name>.corrupt-<epoch ms>`; where it went, None when it could not be moved."""
    source = Path(path)
    kept = source.with_name(f"{source.name}.corrupt-{int(time.time() * 1000)}")
    try:
        replace_file(source, kept)
    except OSError:
        return None
    return str(kept)


def _describe(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
    return str(exc)


def fsync_dir(directory: Path) -> None:
    """Make a rename in `directory` durable; where a folder cannot be opened (Windows) there is nothing to do."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read_umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


_UMASK = _read_umask()  # read once at import: os.umask can only be read by setting it, which races
