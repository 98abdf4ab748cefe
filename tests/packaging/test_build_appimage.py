"""build-appimage.sh: the interface the package build calls. It validates the AppDir, builds (or takes)
the runtime, writes runtime + SquashFS (LZ4 by default, zstd on request), and the result runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.packaging.appimage_support import (
    BUILD_SCRIPT,
    DESKTOP_ENTRY,
    EXIT_DAMAGED,
    clean_env,
    elf_payload_offset,
    make_desktop_appdir,
    read_superblock,
)
from tests.packaging.conftest import RuntimeBuild

SQUASHFS_LZ4 = 5
SQUASHFS_ZSTD = 6


def build(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(BUILD_SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def appdir(tmp_path: Path) -> Path:
    return make_desktop_appdir(tmp_path)


def test_builds_an_image_that_runs_through_fuse(
    appdir: Path, tmp_path: Path, runtime_build: RuntimeBuild
) -> None:
    out = tmp_path / "Probe-1.2.3-x86_64.AppImage"
    result = build(str(appdir), str(out), "--version", "1.2.3", "--runtime", str(runtime_build.runtime))
    assert result.returncode == 0, result.stderr
    assert f"wrote {out}" in result.stderr
    assert os.access(out, os.X_OK)
    data = out.read_bytes()
    runtime = runtime_build.runtime.read_bytes()
    assert data.startswith(runtime)
    assert elf_payload_offset(data[:64]) == len(runtime)
    assert read_superblock(data, len(runtime)).compression == SQUASHFS_LZ4
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".build-appimage")] == []

    (tmp_path / "cache").mkdir()
    (tmp_path / "tmp").mkdir()
    ran = subprocess.run(
        [str(out), "hello"], env=clean_env(tmp_path / "cache", tmp_path / "tmp"), capture_output=True, text=True,
        timeout=20, check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [f"PAYLOAD APPIMAGE={out}", "ARG=hello"]


def test_zstd_on_request_and_nothing_else(appdir: Path, tmp_path: Path, runtime_build: RuntimeBuild) -> None:
    out = tmp_path / "small.AppImage"
    made = build(str(appdir), str(out), "--compression", "zstd", "--runtime", str(runtime_build.runtime))
    assert made.returncode == 0, made.stderr
    runtime_size = runtime_build.runtime.stat().st_size
    assert read_superblock(out.read_bytes(), runtime_size).compression == SQUASHFS_ZSTD
    (tmp_path / "cache").mkdir()
    (tmp_path / "tmp").mkdir()
    ran = subprocess.run([str(out)], env=clean_env(tmp_path / "cache", tmp_path / "tmp"), capture_output=True,
                         text=True, timeout=20, check=False)
    assert ran.returncode == 0 and ran.stdout.startswith("PAYLOAD"), ran.stderr

    refused = build(str(appdir), str(tmp_path / "x.AppImage"), "--compression", "xz")
    assert refused.returncode == 2 and "use lz4 or zstd" in refused.stderr


def test_the_image_gets_a_diricon_and_the_version_the_appdir_stays_untouched(
    appdir: Path, tmp_path: Path, runtime_build: RuntimeBuild
) -> None:
    out = tmp_path / "probe.AppImage"
    assert build(str(appdir), str(out), "--version", "1.2.3", "--runtime", str(runtime_build.runtime)).returncode == 0
    subprocess.run([str(out), "--appimage-extract"], cwd=tmp_path, capture_output=True, check=True)
    root = tmp_path / "squashfs-root"
    assert os.readlink(root / ".DirIcon") == "probe.png"
    entry = (root / "probe.desktop").read_text()
    assert entry.splitlines()[:2] == ["[Desktop Entry]", "X-AppImage-Version=1.2.3"]
    assert entry.count("X-AppImage-Version") == 1
    assert (appdir / "probe.desktop").read_text() == DESKTOP_ENTRY
    assert not (appdir / ".DirIcon").exists()
    assert (root / "usr/lib/idea/idea").stat().st_mode & 0o777 == 0o755
    assert (root / "usr/lib/idea/idea").stat().st_uid == 0  # -root-owned, whoever built it


def test_builds_the_runtime_from_source_when_none_is_given(
    appdir: Path, tmp_path: Path, runtime_build: RuntimeBuild
) -> None:
    # The session's build folder is up to date, so make has nothing to redo; a fresh folder would compile.
    out = tmp_path / "probe.AppImage"
    result = build(str(appdir), str(out), "--build-dir", str(runtime_build.build_dir))
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(runtime_build.runtime.read_bytes())


def remove(path: Path) -> None:
    path.unlink()


BAD_APPDIRS = {
    "no AppRun": (lambda d: remove(d / "AppRun"), "has no AppRun"),
    "AppRun not executable": (lambda d: (d / "AppRun").chmod(0o644), "AppRun is not an executable file"),
    "two desktop entries": (
        lambda d: (d / "other.desktop").write_text(DESKTOP_ENTRY),
        "must hold exactly one .desktop entry at its root (found 2)",
    ),
    "no desktop entry": (lambda d: remove(d / "probe.desktop"), "(found 0)"),
    "no icon file": (lambda d: remove(d / "probe.png"), "has no icon probe.png or probe.svg"),
    "icon with extension": (
        lambda d: (d / "probe.desktop").write_text(DESKTOP_ENTRY.replace("Icon=probe", "Icon=probe.png")),
        "must be a bare name",
    ),
    "desktop entry without Exec": (
        lambda d: (d / "probe.desktop").write_text(DESKTOP_ENTRY.replace("Exec=probe %F\n", "")),
        "has no Exec= key",
    ),
    "desktop entry rejected by desktop-file-validate": (
        lambda d: (d / "probe.desktop").write_text(DESKTOP_ENTRY.replace("Terminal=false", "Terminal=maybe")),
        "does not pass desktop-file-validate",
    ),
    "metainfo rejected by appstreamcli": (
        lambda d: next((d / "usr/share/metainfo").iterdir()).write_text(
            '<?xml version="1.0"?>\n<component type="desktop-application"><name>P</name></component>\n'
        ),
        "does not pass appstreamcli validate",
    ),
}


@pytest.mark.parametrize("case", BAD_APPDIRS)
def test_a_bad_appdir_is_refused_with_the_reason(
    appdir: Path, tmp_path: Path, runtime_build: RuntimeBuild, case: str
) -> None:
    spoil, reason = BAD_APPDIRS[case]
    if "desktop-file-validate" in case and shutil.which("desktop-file-validate") is None:
        pytest.skip("desktop-file-validate (desktop-file-utils) is not installed")
    if "appstreamcli" in case and shutil.which("appstreamcli") is None:
        pytest.skip("appstreamcli (appstream) is not installed")
    spoil(appdir)
    out = tmp_path / "probe.AppImage"
    result = build(str(appdir), str(out), "--runtime", str(runtime_build.runtime))
    assert result.returncode == 1
    assert reason in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "args",
    [[], ["only-one"], ["a", "b", "c"], ["a", "b", "--version"], ["a", "b", "--frobnicate"]],
)
def test_usage_errors(args: list[str]) -> None:
    result = build(*args)
    assert result.returncode == 2
    assert "usage: build-appimage APPDIR OUTPUT" in result.stderr


def test_a_runtime_without_the_magic_is_refused(appdir: Path, tmp_path: Path) -> None:
    fake = tmp_path / "fake-runtime"
    fake.write_bytes(Path("/bin/true").read_bytes())
    fake.chmod(0o755)
    result = build(str(appdir), str(tmp_path / "out.AppImage"), "--runtime", str(fake))
    assert result.returncode == 1
    assert "lacks the AppImage type-2 magic" in result.stderr


def test_a_truncated_build_output_is_caught_by_the_runtime(
    appdir: Path, tmp_path: Path, runtime_build: RuntimeBuild
) -> None:
    # What a user who downloads half of the built file sees.
    out = tmp_path / "probe.AppImage"
    assert build(str(appdir), str(out), "--runtime", str(runtime_build.runtime)).returncode == 0
    out.write_bytes(out.read_bytes()[: len(runtime_build.runtime.read_bytes()) + 200])
    result = subprocess.run([str(out)], capture_output=True, text=True, timeout=20, check=False)
    assert result.returncode == EXIT_DAMAGED
    assert "the file is incomplete" in result.stderr


def test_an_old_glibc_is_reported_through_the_image(appdir: Path, tmp_path: Path, runtime_build: RuntimeBuild) -> None:
    out = tmp_path / "probe.AppImage"
    assert build(str(appdir), str(out), "--runtime", str(runtime_build.runtime)).returncode == 0
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "getconf").write_text("#!/bin/sh\necho 'glibc 2.31'\n")
    (tools / "getconf").chmod(0o755)
    (tmp_path / "cache").mkdir()
    (tmp_path / "tmp").mkdir()
    env = clean_env(tmp_path / "cache", tmp_path / "tmp")
    env["PATH"] = f"{tools}:{env['PATH']}"
    result = subprocess.run([str(out)], env=env, capture_output=True, text=True, timeout=20, check=False)
    assert result.returncode == 78
    assert "glibc) 2.34 or newer; this system has glibc 2.31" in result.stderr
    assert "PAYLOAD" not in result.stdout
