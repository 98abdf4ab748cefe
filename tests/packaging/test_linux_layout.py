"""packaging/linux/build.py: what the AppDir, the .tar.gz and the .deb hold, built from a stand-in one-dir
(the real freeze is exercised by `./dev package` and packaging/smoke/smoke_linux.py)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

from idea.infrastructure.resources import ICON_SIZES, METAINFO_FILE, resources_dir

REPO = Path(__file__).resolve().parents[2]
VERSION = "9.8.7"


def load_build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("idea_linux_build", REPO / "packaging" / "linux" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = load_build()


@pytest.fixture
def onedir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(build, "BUILD", tmp_path / "build")
    folder = tmp_path / "pyinstaller" / "idea"
    (folder / "_internal" / "idea").mkdir(parents=True)
    (folder / "idea").write_text("#!/bin/sh\necho IdeA\n")
    (folder / "idea").chmod(0o755)
    (folder / "_internal" / "libQt6Core.so.6").write_bytes(b"\x7fELF")
    return folder


def test_the_appdir_has_apprun_the_entry_its_icon_and_the_one_dir(onedir: Path, tmp_path: Path) -> None:
    appdir = build.make_appdir(onedir, tmp_path / "AppDir")

    assert (appdir / "AppRun").stat().st_mode & 0o111
    assert (appdir / "AppRun").read_text() == (REPO / "packaging" / "appimage" / "AppRun").read_text()
    assert (appdir / "usr" / "lib" / "idea" / "idea").is_file()
    assert [p.name for p in appdir.glob("*.desktop")] == ["io.github.idea.desktop"]
    entry = (appdir / "io.github.idea.desktop").read_text()
    assert "Icon=io.github.idea" in entry and "TryExec" not in entry  # no `idea` on PATH in an AppImage
    assert (appdir / "io.github.idea.png").read_bytes()[:4] == b"\x89PNG"
    assert (appdir / "usr" / "share" / "metainfo" / "io.github.idea.metainfo.xml").is_file()
    for size in ICON_SIZES:
        assert (appdir / "usr" / "share" / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "io.github.idea.png").is_file()


def test_the_tarball_unpacks_into_one_versioned_folder_owned_by_root(onedir: Path, tmp_path: Path) -> None:
    archive = build.make_tarball(onedir, tmp_path / "idea.tar.gz", VERSION, 1_700_000_000)

    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    names = {m.name for m in members}
    assert {f"idea-{VERSION}/idea", f"idea-{VERSION}/README",
            f"idea-{VERSION}/share/applications/io.github.idea.desktop"} <= names
    assert all(m.name.startswith(f"idea-{VERSION}/") for m in members)
    assert all(m.uid == 0 and m.uname == "root" and m.mtime <= 1_700_000_000 for m in members)
    assert next(m for m in members if m.name == f"idea-{VERSION}/idea").mode & 0o111


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not installed")
def test_the_deb_installs_opt_idea_a_command_and_the_menu_entry(onedir: Path, tmp_path: Path) -> None:
    deb = build.make_deb(onedir, tmp_path / "idea.deb", VERSION, 1_700_000_000)

    fields = subprocess.run(["dpkg-deb", "--field", str(deb)], capture_output=True, text=True, check=True).stdout
    assert f"Package: idea-ide\nVersion: {VERSION}\nArchitecture: amd64\n" in fields
    assert "Depends: libc6 (>= 2.34), " in fields and "libxkbcommon0" in fields and "fonts-dejavu-core" in fields
    contents = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True).stdout
    assert "./usr/bin/idea -> /opt/idea/idea" in contents
    for path in ("./opt/idea/idea", "./usr/share/applications/io.github.idea.desktop",
                 "./usr/share/icons/hicolor/256x256/apps/io.github.idea.png",
                 "./usr/share/metainfo/io.github.idea.metainfo.xml", "./usr/share/doc/idea-ide/copyright"):
        assert path in contents
    assert all(" root/root " in line for line in contents.splitlines())
    root = tmp_path / "unpacked"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    assert "TryExec=idea" in (root / "usr" / "share" / "applications" / "io.github.idea.desktop").read_text()


def test_the_desktop_entry_is_valid(tmp_path: Path) -> None:
    validate = shutil.which("desktop-file-validate")
    if validate is None:
        pytest.skip("desktop-file-validate is not installed")
    for try_exec in (True, False):
        entry = tmp_path / f"{try_exec}" / "io.github.idea.desktop"
        entry.parent.mkdir()
        entry.write_text(build.desktop_entry(try_exec=try_exec))
        done = subprocess.run([validate, str(entry)], capture_output=True, text=True)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout


def test_the_appstream_metainfo_validates_and_names_this_version() -> None:
    appstream = shutil.which("appstreamcli")
    if appstream is None:
        pytest.skip("appstreamcli is not installed")
    metainfo = resources_dir() / METAINFO_FILE
    done = subprocess.run([appstream, "validate", "--no-net", str(metainfo)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f'<release version="{build.project_version()}"' in metainfo.read_text()


def test_the_shipped_icons_are_the_svg_rendered_at_each_size(qapp) -> None:  # noqa: ANN001
    from PySide6.QtGui import QImage

    spec = importlib.util.spec_from_file_location("render_icons", REPO / "packaging" / "icons" / "render_icons.py")
    assert spec is not None and spec.loader is not None
    renderer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(renderer)
    for size in ICON_SIZES:
        shipped = QImage(str(resources_dir() / f"icons/hicolor/{size}x{size}/apps/io.github.idea.png"))
        drawn = renderer.render(resources_dir() / "icons" / "idea.svg", size)
        assert shipped.convertToFormat(drawn.format()) == drawn, f"{size}px: run packaging/icons/render_icons.py"
