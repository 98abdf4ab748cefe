#!/usr/bin/env python3
"""Builds every Linux artifact of IdeA from this checkout, with nothing but the package registries:

    dist/idea_ide-<v>-py3-none-any.whl     the wheel (pip / pipx)
    dist/IdeA-<v>-x86_64.AppImage          the AppImage (our runtime + an LZ4 SquashFS of the AppDir)
    dist/idea-<v>-linux-x86_64.tar.gz      the PyInstaller one-dir, to unpack anywhere
    dist/idea-ide_<v>_amd64.deb            the same one-dir in /opt/idea, /usr/bin/idea, menu entry, icons
    dist/SHA256SUMS

Run it through `./dev package`, which first installs the Debian packages the build needs. Steps: build the
wheel; install it (not the checkout) in a fresh venv with PyInstaller; freeze it with
packaging/pyinstaller/idea.spec; check the one-dir (it starts, every library it links to is bundled or comes
from a package the .deb depends on); lay out the AppDir and hand it to packaging/appimage/build-appimage.sh;
pack the .tar.gz and the .deb. Standard library only: it runs before any venv exists.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "linux"
RESOURCES = REPO / "idea" / "resources"
DESKTOP_ID = "io.github.idea"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
APPIMAGE_SCRIPT = REPO / "packaging" / "appimage" / "build-appimage.sh"
APPRUN = REPO / "packaging" / "appimage" / "AppRun"
DEB_PACKAGE = "idea-ide"
DEB_MAINTAINER = "The IdeA authors <idea@users.noreply.invalid>"
# What the one-dir leaves to the system (packaging/pyinstaller/idea.spec, HOST_LIBRARIES), as Debian packages
# (spec 01 §13.12 and the README's list), plus a monospace font for the terminals.
DEB_DEPENDS = (
    "libc6 (>= 2.34)", "libstdc++6", "libgcc-s1", "zlib1g", "libexpat1", "libuuid1", "libcom-err2", "libgl1",
    "libglx0", "libegl1", "libopengl0",
    "libfontconfig1", "libfreetype6", "libharfbuzz0b", "libglib2.0-0", "libdbus-1-3", "libxkbcommon0",
    "libx11-6", "libx11-xcb1", "libxcb1", "libwayland-client0", "libwayland-cursor0", "libwayland-egl1",
    "fonts-dejavu-core | fonts-liberation2 | fonts-noto-mono",
)
# The xcb utility libraries Qt's xcb platform needs and minimal systems lack: the one-dir must carry them.
BUNDLED_XCB = ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-image.so.0",
               "libxcb-render-util.so.0", "libxkbcommon-x11.so.0")


def say(text: str) -> None:
    print(f"\033[1m[package]\033[0m {text}", file=sys.stderr, flush=True)


def run(*argv: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], check=True, text=True, **kwargs)  # type: ignore[call-overload]


def project_version() -> str:
    return str(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def source_date_epoch() -> int:
    """The last commit's time, so two builds of one commit pack identical archives."""
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        out = run("git", "-C", REPO, "log", "-1", "--format=%ct", capture_output=True).stdout.strip()
        return int(out)
    except (subprocess.CalledProcessError, ValueError, FileNotFoundError):
        return int(time.time())


# --- the wheel and the frozen one-dir -------------------------------------------------------------------


def build_wheel(dist: Path) -> Path:
    target = BUILD / "wheel"
    shutil.rmtree(target, ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", target, REPO)
    [wheel] = target.glob("idea_ide-*.whl")
    shutil.copy2(wheel, dist / wheel.name)
    return dist / wheel.name


def freeze(wheel: Path) -> Path:
    """The wheel installed in a fresh venv with PyInstaller, then frozen: the one-dir holds what the wheel
    ships, never the checkout."""
    venv = BUILD / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(python, "-m", "pip", "install", "--quiet", "-c", REPO / "constraints.txt", f"{wheel}[package]")
    work, out = BUILD / "pyinstaller-work", BUILD / "pyinstaller"
    shutil.rmtree(out, ignore_errors=True)
    run(python, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--distpath", out, "--workpath", work,
        REPO / "packaging" / "pyinstaller" / "idea.spec", cwd=BUILD)
    return out / "idea"


def check_onedir(onedir: Path, version: str) -> None:
    """It starts and says its version; every library it links to is inside it or comes from a Debian
    package the .deb depends on; the xcb libraries minimal systems lack are inside."""
    done = run(onedir / "idea", "--version", capture_output=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    if done.stdout.strip() != f"IdeA {version}":
        raise SystemExit(f"the frozen idea says {done.stdout.strip()!r}, expected 'IdeA {version}'")
    internal = onedir / "_internal"
    bundled = {path.name for path in internal.rglob("*.so*")}
    missing_xcb = [name for name in BUNDLED_XCB if name not in bundled]
    if missing_xcb:
        raise SystemExit(f"the one-dir lacks {', '.join(missing_xcb)}: install the xcb packages of ./dev first")
    from_system: dict[str, set[str]] = {}
    for path in [onedir / "idea", *internal.rglob("*.so*")]:
        if path.is_symlink() or not _is_elf(path):
            continue
        for name in _needed(path):
            if name not in bundled:
                from_system.setdefault(name, set()).add(str(path.relative_to(onedir)))
    allowed = {dep.split()[0] for alternatives in DEB_DEPENDS for dep in alternatives.split(" | ")}
    problems = []
    for soname, users in sorted(from_system.items()):
        package = _debian_package_of(soname)
        if package is None:
            problems.append(f"{soname} (needed by {sorted(users)[0]}) is neither bundled nor installed here")
        elif package not in allowed and not package.startswith("libc6"):
            problems.append(f"{soname} comes from {package}, which the .deb does not depend on")
    if problems:
        raise SystemExit("the one-dir is not self-consistent:\n  " + "\n  ".join(problems))


def _is_elf(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(4) == b"\x7fELF"


def _needed(path: Path) -> list[str]:
    dump = run("objdump", "-p", path, capture_output=True).stdout
    return [line.split()[1] for line in dump.splitlines() if line.strip().startswith("NEEDED")]


def _debian_package_of(soname: str) -> str | None:
    done = subprocess.run(["dpkg-query", "-S", f"*/{soname}"], capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout.split(":", 1)[0].split(",")[0].strip()


# --- shared pieces of the AppDir, the .deb and the .tar.gz -----------------------------------------------


def desktop_entry(*, try_exec: bool) -> str:
    """The shipped entry; without TryExec where `idea` is not on PATH (inside the AppImage, the tarball)."""
    text = (RESOURCES / "desktop" / f"{DESKTOP_ID}.desktop").read_text(encoding="utf-8")
    return text if try_exec else "".join(line for line in text.splitlines(True) if not line.startswith("TryExec="))


def install_share(share: Path, *, try_exec: bool) -> None:
    """`<share>/applications`, `<share>/icons/hicolor`, `<share>/metainfo`: the freedesktop layout."""
    (share / "applications").mkdir(parents=True, exist_ok=True)
    (share / "applications" / f"{DESKTOP_ID}.desktop").write_text(desktop_entry(try_exec=try_exec), encoding="utf-8")
    for size in ICON_SIZES:
        relative = Path("hicolor") / f"{size}x{size}" / "apps" / f"{DESKTOP_ID}.png"
        (share / "icons" / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(RESOURCES / "icons" / relative, share / "icons" / relative)
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copy2(RESOURCES / "icons" / "idea.svg", scalable / f"{DESKTOP_ID}.svg")
    (share / "metainfo").mkdir(parents=True, exist_ok=True)
    shutil.copy2(RESOURCES / "desktop" / f"{DESKTOP_ID}.metainfo.xml", share / "metainfo")


def copy_onedir(onedir: Path, target: Path) -> None:
    shutil.copytree(onedir, target, symlinks=True)


# --- AppImage ---------------------------------------------------------------------------------------------


def make_appdir(onedir: Path, appdir: Path) -> Path:
    """AppRun, the entry and its icon at the root, the one-dir in usr/lib/idea, usr/share as installed."""
    shutil.rmtree(appdir, ignore_errors=True)
    appdir.mkdir(parents=True)
    shutil.copy2(APPRUN, appdir / "AppRun")
    (appdir / "AppRun").chmod(0o755)
    copy_onedir(onedir, appdir / "usr" / "lib" / "idea")
    install_share(appdir / "usr" / "share", try_exec=False)
    (appdir / f"{DESKTOP_ID}.desktop").write_text(desktop_entry(try_exec=False), encoding="utf-8")
    shutil.copy2(RESOURCES / "icons" / "hicolor" / "256x256" / "apps" / f"{DESKTOP_ID}.png", appdir)
    return appdir


def make_appimage(appdir: Path, target: Path, version: str) -> Path:
    if not APPIMAGE_SCRIPT.is_file():
        raise SystemExit(f"{APPIMAGE_SCRIPT.relative_to(REPO)} is missing: the AppImage runtime is not in this tree")
    run("bash", APPIMAGE_SCRIPT, appdir, target, "--version", version, "--build-dir", BUILD / "appimage-runtime")
    return target


# --- .tar.gz ------------------------------------------------------------------------------------------------


TARBALL_README = """IdeA {version}

Start it:                        ./idea [PROJECT_DIR...]
Check what it finds:             ./idea doctor
Add it to the applications menu: Help > Add IdeA to the applications menu (points at this folder's ./idea;
                                 start it once from the new place if you move the folder)

Needs glibc 2.34 or newer and the usual desktop libraries (OpenGL/EGL, fontconfig, xkbcommon, D-Bus).
"""


def make_tarball(onedir: Path, target: Path, version: str, epoch: int) -> Path:
    top = f"idea-{version}"
    stage = BUILD / "tarball" / top
    shutil.rmtree(stage.parent, ignore_errors=True)
    copy_onedir(onedir, stage)
    install_share(stage / "share", try_exec=False)
    (stage / "README").write_text(TARBALL_README.format(version=version), encoding="utf-8")

    def normalize(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = min(info.mtime, epoch)
        return info

    with tarfile.open(target, "w:gz", compresslevel=9) as archive:
        for path in sorted(stage.rglob("*")):
            archive.add(path, arcname=f"{top}/{path.relative_to(stage)}", recursive=False, filter=normalize)
    return target


# --- .deb ---------------------------------------------------------------------------------------------------


DEB_DESCRIPTION = """Desktop IDE to manage a team of AI coding agents
 IdeA opens each project in a tab holding a spreadsheet-like grid of real
 terminals; each terminal runs a shell or an agent CLI (Claude Code, Codex,
 Gemini CLI, Aider or any command) with its own persona. Agents delegate to
 one another through IdeA's own MCP tools, always in bounded time."""

DEB_COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: IdeA

Files: *
Copyright: The IdeA authors
License: GPL-3.0-or-later
 On Debian systems the full text is in /usr/share/common-licenses/GPL-3.

Files: opt/idea/_internal/pyside6_qtermwidget/*
Copyright: The LXQt team and the QTermWidget contributors
License: GPL-2.0-or-later
"""


def make_deb(onedir: Path, target: Path, version: str, epoch: int) -> Path:
    root = BUILD / "deb"
    shutil.rmtree(root, ignore_errors=True)
    copy_onedir(onedir, root / "opt" / "idea")
    (root / "usr" / "bin").mkdir(parents=True)
    os.symlink("/opt/idea/idea", root / "usr" / "bin" / "idea")  # the bootloader finds _internal from its real path
    install_share(root / "usr" / "share", try_exec=True)
    doc = root / "usr" / "share" / "doc" / DEB_PACKAGE
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(DEB_COPYRIGHT, encoding="utf-8")
    installed_kib = sum(p.lstat().st_size for p in root.rglob("*")) // 1024 + 1
    control = root / "DEBIAN" / "control"
    control.parent.mkdir()
    control.write_text(
        f"Package: {DEB_PACKAGE}\n"
        f"Version: {version}\n"
        "Architecture: amd64\n"
        f"Maintainer: {DEB_MAINTAINER}\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {', '.join(DEB_DEPENDS)}\n"
        "Section: devel\n"
        "Priority: optional\n"
        f"Description: {DEB_DESCRIPTION}\n",
        encoding="utf-8",
    )
    run("dpkg-deb", "--root-owner-group", "-Zzstd", "--build", root, target,
        env={**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}, stdout=subprocess.DEVNULL)
    return target


# --- all of it ------------------------------------------------------------------------------------------------


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build IdeA's Linux artifacts into dist/.")
    parser.add_argument("--dist", type=Path, default=REPO / "dist", help="output folder (default: dist/)")
    parser.add_argument("--no-appimage", action="store_true", help="skip the AppImage")
    args = parser.parse_args(argv)
    version, epoch = project_version(), source_date_epoch()
    dist = args.dist.resolve()
    dist.mkdir(parents=True, exist_ok=True)
    BUILD.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    say(f"IdeA {version}: wheel")
    artifacts = [build_wheel(dist)]
    say("frozen one-dir (PyInstaller, from the wheel in a fresh venv)")
    onedir = freeze(artifacts[0])
    check_onedir(onedir, version)
    if not args.no_appimage:
        say("AppImage")
        appdir = make_appdir(onedir, BUILD / "AppDir")
        artifacts.append(make_appimage(appdir, dist / f"IdeA-{version}-x86_64.AppImage", version))
    say(".tar.gz")
    artifacts.append(make_tarball(onedir, dist / f"idea-{version}-linux-x86_64.tar.gz", version, epoch))
    say(".deb")
    artifacts.append(make_deb(onedir, dist / f"{DEB_PACKAGE}_{version}_amd64.deb", version, epoch))

    (dist / "SHA256SUMS").write_text("".join(f"{sha256(p)}  {p.name}\n" for p in artifacts), encoding="utf-8")
    onedir_mib = sum(p.lstat().st_size for p in onedir.rglob("*")) / 2**20
    say(f"done in {time.monotonic() - started:.0f} s; one-dir {onedir_mib:.0f} MiB unpacked")
    for path in artifacts:
        print(f"{path.stat().st_size / 2**20:8.1f} MiB  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
