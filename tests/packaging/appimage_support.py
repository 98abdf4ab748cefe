"""Helpers for the AppImage runtime tests: building images, reading ELF and SquashFS headers, running
images with a clean environment and reading what the probe AppRun reports."""

from __future__ import annotations

import os
import select
import shutil
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APPIMAGE_DIR = REPO / "packaging" / "appimage"
RUNTIME_SOURCE = APPIMAGE_DIR / "runtime"
BUILD_SCRIPT = APPIMAGE_DIR / "build-appimage.sh"
APPRUN_TEMPLATE = APPIMAGE_DIR / "AppRun"
CACHE_DIR_NAME = "idea-appimage"

# Exit codes the runtime documents (packaging/appimage/README.md).
EXIT_USAGE = 64
EXIT_DAMAGED = 65
EXIT_UNAVAILABLE = 69
EXIT_NOTFOUND = 127

# The probe AppRun reports its environment and arguments, then does what PROBE_MODE asks.
PROBE_APPRUN = r"""#!/bin/sh
echo "APPIMAGE=$APPIMAGE"
echo "APPDIR=$APPDIR"
echo "ARGV0=$ARGV0"
echo "OWD=$OWD"
echo "PWD=$(pwd)"
echo "PID=$$"
echo "LIVE=${IDEA_LIVE_APPDIR:-}"
for a in "$@"; do echo "ARG=$a"; done
if grep -q " $APPDIR " /proc/self/mountinfo; then echo "MOUNTED=yes"; else echo "MOUNTED=no"; fi
echo "DATA=$(cat "$APPDIR/usr/share/probe/data.txt")"
fds=""; for fd in /proc/$$/fd/*; do fds="$fds $(readlink "$fd")"; done; echo "FDS=$fds"
case "${PROBE_MODE:-}" in
  wait)
    trap 'kill $sleeper 2>/dev/null; echo "got TERM"; exit 42' TERM
    trap 'kill $sleeper 2>/dev/null; echo "got INT"; exit 43' INT
    # The sleeper is known before "ready": a signal sent at once must not leave it running (and holding stdout).
    sleep 30 & sleeper=$!
    echo ready
    while :; do wait $sleeper; sleep 30 & sleeper=$!; done ;;
  kill-self) kill -KILL $$ ;;
  stdin) echo "STDIN=$(cat)" ;;
  read-big) cat "$APPDIR/usr/share/probe/big.txt" >/dev/null || exit 9 ;;
esac
exit "${PROBE_EXIT:-0}"
"""


def elf_payload_offset(header: bytes) -> int:
    """End of the section header table, computed independently of the runtime's C code."""
    assert header[:4] == b"\x7fELF", "not an ELF file"
    order = "<" if header[5] == 1 else ">"
    if header[4] == 2:  # 64-bit
        (shoff,) = struct.unpack_from(order + "Q", header, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", header, 0x3A)
    else:
        (shoff,) = struct.unpack_from(order + "I", header, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", header, 0x2E)
    return shoff + shentsize * shnum


def program_header_types(data: bytes) -> list[int]:
    """The p_type of every program header of a 64-bit little-endian ELF."""
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    return [struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)]


@dataclass(frozen=True)
class Superblock:
    compression: int
    bytes_used: int
    inode_table_start: int
    directory_table_start: int


def read_superblock(data: bytes, offset: int) -> Superblock:
    assert data[offset : offset + 4] == b"hsqs", "no SquashFS magic"
    (compression,) = struct.unpack_from("<H", data, offset + 20)
    (bytes_used,) = struct.unpack_from("<Q", data, offset + 40)
    inode_start, directory_start = struct.unpack_from("<QQ", data, offset + 64)
    return Superblock(compression, bytes_used, inode_start, directory_start)


def make_probe_appdir(root: Path) -> Path:
    """A small AppDir: the probe AppRun, a text file, a compressible file larger than one SquashFS block,
    an executable, a private file, a symlink and an empty folder."""
    appdir = root / "AppDir"
    share = appdir / "usr" / "share" / "probe"
    share.mkdir(parents=True)
    (appdir / "AppRun").write_text(PROBE_APPRUN)
    (appdir / "AppRun").chmod(0o755)
    (share / "data.txt").write_text("probe data")
    lines = "".join(f"line {i} of a file that spans several SquashFS blocks\n" for i in range(12000))
    (share / "big.txt").write_text(lines)
    (appdir / "usr" / "bin").mkdir()
    (appdir / "usr" / "bin" / "tool").write_text("#!/bin/sh\necho tool\n")
    (appdir / "usr" / "bin" / "tool").chmod(0o755)
    (share / "private.txt").write_text("secret")
    (share / "private.txt").chmod(0o600)
    (appdir / "usr" / "share" / "empty").mkdir()
    (appdir / "data-link").symlink_to("usr/share/probe/data.txt")
    return appdir


def make_squashfs(appdir: Path, out: Path) -> Path:
    subprocess.run(
        ["mksquashfs", str(appdir), str(out), "-root-owned", "-noappend", "-comp", "zstd", "-quiet", "-no-progress"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


def assemble_image(runtime: Path, squashfs: Path, out: Path) -> Path:
    out.write_bytes(runtime.read_bytes() + squashfs.read_bytes())
    out.chmod(0o755)
    return out


def mounted_points() -> set[str]:
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        return {line.split()[4] for line in f}


@dataclass
class ProbeReport:
    values: dict[str, str] = field(default_factory=dict)
    args: list[str] = field(default_factory=list)

    def __getitem__(self, key: str) -> str:
        return self.values[key]


def parse_probe(stdout: str) -> ProbeReport:
    report = ProbeReport()
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        if key == "ARG":
            report.args.append(value)
        else:
            report.values.setdefault(key, value)
    return report


def clean_env(cache: Path, tmpdir: Path, **extra: str) -> dict[str, str]:
    """The test's environment without anything an AppImage reads, with its own cache and temp folders."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"APPIMAGE", "APPDIR", "ARGV0", "OWD", "APPIMAGE_EXTRACT_AND_RUN", "TARGET_APPIMAGE"}
    }
    env["XDG_CACHE_HOME"] = str(cache)
    env["TMPDIR"] = str(tmpdir)
    env.update(extra)
    return env


def read_line_with(proc: subprocess.Popen[bytes], marker: bytes, timeout: float = 10.0) -> bytes:
    """Reads the process's stdout until a line containing marker arrives; fails on timeout or EOF."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} within {timeout}s; got {seen!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            assert chunk, f"stdout closed before {marker!r}; got {seen!r}"
            seen += chunk
    return seen


def missing_build_tools() -> list[str]:
    """What the runtime build and the image tools need and this machine lacks."""
    missing = [tool for tool in ("cc", "make", "pkg-config", "mksquashfs") if shutil.which(tool) is None]
    if shutil.which("pkg-config") is not None:
        for lib in ("fuse3", "squashfuse_ll", "libzstd"):
            if subprocess.run(["pkg-config", "--exists", lib], check=False).returncode != 0:
                missing.append(f"{lib} (pkg-config)")
    return missing


def write_png(path: Path, size: int = 64) -> Path:
    """A plain square PNG (an opaque teal square), enough for an icon file."""
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    row = b"\x00" + bytes([0, 128, 128, 255]) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * size)) + chunk(b"IEND", b"")
    )
    return path


DESKTOP_ENTRY = """[Desktop Entry]
Type=Application
Name=Probe
Comment=Reports what the AppImage runtime gives it
Exec=probe %F
Icon=probe
Terminal=false
Categories=Development;
"""

METAINFO = """<?xml version="1.0" encoding="UTF-8"?>
<component type="desktop-application">
  <id>io.github.example.probe</id>
  <metadata_license>CC0-1.0</metadata_license>
  <project_license>MIT</project_license>
  <name>Probe</name>
  <summary>Reports what the AppImage runtime gives it</summary>
  <description>
    <p>Probe is a small application that prints what the AppImage runtime hands to it, used to test builds.</p>
  </description>
  <launchable type="desktop-id">probe.desktop</launchable>
  <url type="homepage">https://example.org/probe</url>
  <content_rating type="oars-1.1"/>
  <releases>
    <release version="1.2.3" date="2026-11-01"/>
  </releases>
</component>
"""


def make_desktop_appdir(root: Path) -> Path:
    """An AppDir as the IdeA build lays it out: the AppRun template, a payload at usr/lib/idea/idea (a script
    that reports its arguments), a desktop entry, an icon and AppStream metainfo."""
    appdir = root / "AppDir"
    payload = appdir / "usr" / "lib" / "idea" / "idea"
    payload.parent.mkdir(parents=True)
    payload.write_text('#!/bin/sh\necho "PAYLOAD APPIMAGE=$APPIMAGE"\nfor a in "$@"; do echo "ARG=$a"; done\n')
    payload.chmod(0o755)
    shutil.copyfile(APPRUN_TEMPLATE, appdir / "AppRun")
    (appdir / "AppRun").chmod(0o755)
    (appdir / "probe.desktop").write_text(DESKTOP_ENTRY)
    write_png(appdir / "probe.png")
    metainfo = appdir / "usr" / "share" / "metainfo" / "io.github.example.probe.metainfo.xml"
    metainfo.parent.mkdir(parents=True)
    metainfo.write_text(METAINFO)
    return appdir
