"""The Windows installer's build steps that need no network or Wine: the Windows lock is pyproject's current
dependencies resolved for Windows, wheels unpack as an installer would, the trim keeps what a widgets
application loads, the payload is compiled to bytecode, the icon is a valid .ico, the launchers compile. (The installer itself is exercised
under Wine by packaging/windows/smoke.sh in .ci/run.)"""

from __future__ import annotations

import importlib.util
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("windows_build", REPO / "packaging" / "windows" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["windows_build"] = module
    spec.loader.exec_module(module)
    return module


build = load_build()


def locked() -> dict[str, str]:
    names = {}
    for line in build.LOCK.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith(("#", " ")):
            name, version = line.split(" ")[0].split("==")
            names[build._normal(name)] = version
    return names


def test_the_windows_lock_is_for_the_current_dependencies() -> None:
    first = build.LOCK.read_text(encoding="utf-8").splitlines()[0]
    assert first == build.LOCK_HEADER + build.dependencies_digest(), (
        "pyproject's dependencies changed: run `./dev package windows --relock` and commit the lock"
    )


def test_the_lock_has_the_windows_only_dependencies_and_none_of_the_posix_ones() -> None:
    names = locked()
    # pywin32 (mcp's Windows dependency) is what `pip download --platform` alone would have missed.
    for windows_only in ("pywin32", "pywinpty", "pyside6_essentials", "shiboken6", "mcp", "pydantic_core"):
        assert windows_only in names, windows_only
    for posix_only in ("pyside6_qtermwidget", "pyside6_addons", "pyside6", "ptyprocess"):
        assert posix_only not in names, posix_only
    assert names["pyside6_essentials"] == "6.11.2"


def test_every_locked_requirement_is_hash_pinned() -> None:
    text = build.LOCK.read_text(encoding="utf-8")
    blocks = [block for block in text.split("\n") if block and not block.startswith(("#", " "))]
    assert blocks and all(block.endswith("\\") for block in blocks)
    assert text.count("--hash=sha256:") >= len(blocks)


def test_a_wheel_unpacks_its_platlib_data_and_skips_scripts(tmp_path: Path) -> None:
    wheel = tmp_path / "demo-1.0-cp313-cp313-win_amd64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("demo/__init__.py", "x = 1\n")
        archive.writestr("demo-1.0.dist-info/METADATA", "Name: demo\n")
        archive.writestr("demo-1.0.data/platlib/demo_native.pyd", b"MZ")
        archive.writestr("demo-1.0.data/scripts/demo.exe", b"MZ")
        archive.writestr("demo.pth", "import demo\n")
    site = tmp_path / "site"

    build.install_wheel(wheel, site)

    assert (site / "demo" / "__init__.py").read_text() == "x = 1\n"
    assert (site / "demo_native.pyd").read_bytes() == b"MZ"
    assert (site / "demo.pth").exists() and (site / "demo-1.0.dist-info" / "METADATA").exists()
    assert not list(site.rglob("demo.exe"))


def test_the_trim_keeps_what_widgets_load_and_removes_quick_qml_tools_unused_modules_and_libraries(
    tmp_path: Path,
) -> None:
    pyside = tmp_path / "PySide6"
    links = {
        "QtCore.pyd": ["Qt6Core.dll", "pyside6.abi3.dll", "KERNEL32.dll"],
        "QtGui.pyd": ["Qt6Gui.dll", "Qt6Core.dll"],
        "QtWidgets.pyd": ["Qt6Widgets.dll"],
        "QtSvg.pyd": ["Qt6Svg.dll"],
        "Qt6Widgets.dll": ["Qt6Gui.dll", "Qt6Core.dll", "MSVCP140.dll"],
        "Qt6Gui.dll": ["Qt6Core.dll"],
        "Qt6Svg.dll": ["Qt6Gui.dll"],
        "qwindows.dll": ["Qt6Gui.dll", "Qt6Core.dll"],
        "QtNetwork.pyd": ["Qt6Network.dll"],
    }
    kept = ["Qt6Core.dll", "Qt6Gui.dll", "Qt6Widgets.dll", "Qt6Svg.dll", "QtCore.pyd", "QtGui.pyd",
            "QtWidgets.pyd", "QtSvg.pyd", "pyside6.abi3.dll", "msvcp140.dll", "plugins/platforms/qwindows.dll",
            "translations/qtbase_fr.qm"]
    removed = ["Qt6Quick.dll", "Qt6Qml.dll", "QtQuick.pyd", "opengl32sw.dll", "designer.exe", "qml/QtQuick/x.qml",
               "translations/qtdeclarative_fr.qm", "plugins/qmltooling/q.dll", "Qt6Pdf.dll", "__pycache__/a.pyc",
               "QtNetwork.pyd", "Qt6Network.dll", "Qt6Sql.dll", "QtCore.pyi", "vcamp140.dll"]
    for name in kept + removed:
        (pyside / name).parent.mkdir(parents=True, exist_ok=True)
        (pyside / name).write_bytes(b"x" * 10)

    saved = build.trim_pyside(tmp_path, imports_of=lambda path: links.get(path.name, []))

    assert saved == 10 * len(removed)
    assert [name for name in kept if not (pyside / name).exists()] == []
    assert [name for name in removed if (pyside / name).exists()] == []


def embeddable_home(tmp_path: Path, magic: bytes) -> Path:
    home = tmp_path / "python"
    (home / "Lib" / "site-packages" / "demo").mkdir(parents=True)
    with zipfile.ZipFile(home / f"python{build.PYTHON_TAG}.zip", "w") as archive:
        archive.writestr("os.pyc", magic + bytes(12))
    return home


def test_the_payload_is_compiled_to_bytecode_that_the_installed_interpreter_uses_unchecked(tmp_path: Path) -> None:
    home = embeddable_home(tmp_path, importlib.util.MAGIC_NUMBER)
    site = home / "Lib" / "site-packages"
    (site / "demo" / "__init__.py").write_text("ANSWER = 42\n")
    (site / "py2_only.py").write_text("print 'hello'\n")  # cannot compile: left as it is

    build.compile_bytecode(home)

    cached = Path(importlib.util.cache_from_source(str(site / "demo" / "__init__.py")))
    data = cached.read_bytes()
    assert data[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(data[4:8], "little") == 0b01  # hash-based, source never checked
    assert not list(site.rglob("py2_only*.pyc"))


def test_bytecode_of_another_python_version_is_refused_with_what_to_do(tmp_path: Path) -> None:
    home = embeddable_home(tmp_path, b"\x00\x00\r\n")
    (home / "Lib" / "site-packages" / "demo" / "__init__.py").write_text("ANSWER = 42\n")

    with pytest.raises(SystemExit) as refused:
        build.compile_bytecode(home)

    assert "must be compiled by Python 3.13" in str(refused.value) and "IDEA_PYTHON" in str(refused.value)
    assert not list(home.rglob("*.pyc"))


def test_the_icon_is_an_ico_of_every_size(tmp_path: Path) -> None:
    icon = tmp_path / "idea.ico"
    build.make_icon(icon)
    data = icon.read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind, count) == (0, 1, len(build.ICON_SIZES))
    for index in range(count):
        width, _, _, _, planes, bits, size, offset = struct.unpack("<BBBBHHII", data[6 + 16 * index : 22 + 16 * index])
        assert data[offset : offset + 8] == b"\x89PNG\r\n\x1a\n" and planes == 1 and bits == 32
        assert width == (build.ICON_SIZES[index] if build.ICON_SIZES[index] < 256 else 0)


@pytest.mark.skipif(shutil.which(build.MINGW_CC) is None, reason="./dev package windows installs MinGW-w64")
def test_the_launchers_compile_as_console_and_gui_programs(tmp_path: Path) -> None:
    for extra, name, subsystem in (((), "idea.exe", 3), (("-mwindows", "-DIDEA_GUI"), "IdeA.exe", 2)):
        subprocess.run([build.MINGW_CC, "-O2", "-Wall", "-Werror", *extra, "-o", tmp_path / name, build.LAUNCHER],
                       check=True)
        exe = (tmp_path / name).read_bytes()
        pe = struct.unpack("<I", exe[0x3C:0x40])[0]
        assert exe[pe : pe + 4] == b"PE\0\0"
        assert struct.unpack("<H", exe[pe + 24 + 68 : pe + 24 + 70])[0] == subsystem  # 3 console, 2 GUI
