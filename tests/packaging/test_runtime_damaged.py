"""Damaged images: truncated files, the runtime alone, a broken SquashFS superblock, tables or data, and an
image without AppRun. Each gives one clear message and its documented exit code, in every mode, and leaves
neither a mount nor a half-extracted cache entry behind."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from tests.packaging.appimage_support import (
    CACHE_DIR_NAME,
    EXIT_DAMAGED,
    EXIT_NOTFOUND,
    assemble_image,
    elf_payload_offset,
    make_squashfs,
    mounted_points,
    read_superblock,
)
from tests.packaging.conftest import ProbeImage, RuntimeBuild

MODES = {
    "fuse": ([], {}),
    "extract-and-run": ([], {"APPIMAGE_EXTRACT_AND_RUN": "1"}),
    "extract-option": (["--appimage-extract"], {}),
}


def run(image: Path, args: list[str], env: dict[str, str], cwd: Path):
    return subprocess.run(
        [str(image), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=30, check=False
    )


def damage(image: Path, at: int, data: bytes) -> None:
    with open(image, "r+b") as f:
        f.seek(at)
        f.write(data)


def refused(image: Path, mode: str, env: dict[str, str], cwd: Path, code: int = EXIT_DAMAGED) -> str:
    """Runs the image in a mode, expects the exit code and no mount or cache entry left; returns stderr."""
    args, extra = MODES[mode]
    before = mounted_points()
    result = run(image, args, {**env, **extra}, cwd)
    assert result.returncode == code, result.stderr
    assert_nothing_left(env, before)
    return result.stderr


def corrupt_first_data_block(image: Path) -> None:
    """The only file larger than a block (big.txt) has its data right after the 96-byte superblock."""
    damage(image, elf_payload_offset(image.read_bytes()[:64]) + 96, b"\xff" * 64)


def assert_nothing_left(env: dict[str, str], before: set[str]) -> None:
    assert mounted_points() == before
    assert list(Path(env["TMPDIR"]).iterdir()) == [], "a mount point folder is left behind"
    cache = Path(env["XDG_CACHE_HOME"]) / CACHE_DIR_NAME
    if cache.exists():
        assert [p.name for p in cache.iterdir() if p.is_dir() and p.name != "by-file"] == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cut", ["half", "one-byte"])
def test_a_truncated_image(image_copy: Path, env: dict[str, str], tmp_path: Path, mode: str, cut: str) -> None:
    data = image_copy.read_bytes()
    offset = elf_payload_offset(data[:64])
    used = read_superblock(data, offset).bytes_used  # the padding after it may go, not a byte of it
    image_copy.write_bytes(data[: offset + (used // 2 if cut == "half" else used - 1)])
    stderr = refused(image_copy, mode, env, tmp_path)
    assert "this AppImage is damaged: the file is incomplete" in stderr
    assert "Download it again." in stderr
    assert stderr.count("\n") == 1


def test_the_runtime_alone_holds_no_application(runtime_build: RuntimeBuild, tmp_path: Path, env: dict[str, str]) -> None:
    alone = tmp_path / "runtime-only"
    alone.write_bytes(runtime_build.runtime.read_bytes())
    alone.chmod(0o755)
    result = run(alone, [], env, tmp_path)
    assert result.returncode == EXIT_DAMAGED
    assert "holds no application: nothing follows its runtime" in result.stderr
    # The offset is still there for tools that ask.
    offset = run(alone, ["--appimage-offset"], env, tmp_path)
    assert int(offset.stdout) == alone.stat().st_size


@pytest.mark.parametrize("mode", MODES)
def test_a_file_system_that_is_not_squashfs(image_copy: Path, env: dict[str, str], tmp_path: Path, mode: str) -> None:
    damage(image_copy, elf_payload_offset(image_copy.read_bytes()[:64]), b"XXXX")
    stderr = refused(image_copy, mode, env, tmp_path)
    assert "no SquashFS file system where the runtime ends (found bytes 58 58 58 58)" in stderr


@pytest.mark.parametrize("mode", MODES)
def test_a_superblock_pointing_past_the_end(image_copy: Path, env: dict[str, str], tmp_path: Path, mode: str) -> None:
    offset = elf_payload_offset(image_copy.read_bytes()[:64])
    damage(image_copy, offset + 72, (1 << 40).to_bytes(8, "little"))  # directory table start
    assert "its SquashFS superblock is corrupt" in refused(image_copy, mode, env, tmp_path)


@pytest.mark.parametrize("mode", MODES)
def test_an_unreadable_directory_table(image_copy: Path, env: dict[str, str], tmp_path: Path, mode: str) -> None:
    data = image_copy.read_bytes()
    offset = elf_payload_offset(data[:64])
    superblock = read_superblock(data, offset)
    # Garble the compressed directory table right after its metadata header.
    damage(image_copy, offset + superblock.directory_table_start + 2, b"\xff" * 48)
    stderr = refused(image_copy, mode, env, tmp_path)
    assert "this AppImage is damaged" in stderr and "Download it again." in stderr


def test_corrupt_file_data_stops_extraction_and_leaves_no_entry(
    image_copy: Path, env: dict[str, str], tmp_path: Path
) -> None:
    corrupt_first_data_block(image_copy)
    assert "usr/share/probe/big.txt cannot be read from it" in refused(image_copy, "extract-and-run", env, tmp_path)
    cache = Path(env["XDG_CACHE_HOME"]) / CACHE_DIR_NAME
    assert [p.name for p in cache.iterdir() if p.name.startswith(".tmp-")] == []


def test_corrupt_file_data_through_fuse_is_an_io_error_for_the_application(
    image_copy: Path, env: dict[str, str], tmp_path: Path
) -> None:
    corrupt_first_data_block(image_copy)
    before = mounted_points()
    result = run(image_copy, [], {**env, "PROBE_MODE": "read-big"}, tmp_path)
    assert result.returncode == 9  # the probe's own code when cat fails: the runtime neither hangs nor dies
    assert "Input/output error" in result.stderr
    assert_nothing_left(env, before)


@pytest.mark.parametrize("mode", ["fuse", "extract-and-run"])
def test_an_image_without_apprun(
    runtime_build: RuntimeBuild, env: dict[str, str], tmp_path: Path, mode: str
) -> None:
    appdir = tmp_path / "AppDir"
    (appdir / "usr").mkdir(parents=True)
    (appdir / "usr" / "readme").write_text("no AppRun here")
    image = assemble_image(runtime_build.runtime, make_squashfs(appdir, tmp_path / "fs"), tmp_path / "x.AppImage")
    assert "has no AppRun at its root" in refused(image, mode, env, tmp_path, code=EXIT_NOTFOUND)


def test_only_the_padding_after_the_file_system_may_be_missing(image_copy: Path, env: dict[str, str], tmp_path: Path) -> None:
    data = image_copy.read_bytes()
    offset = elf_payload_offset(data[:64])
    image_copy.write_bytes(data[: offset + read_superblock(data, offset).bytes_used])
    result = run(image_copy, [], env, tmp_path)
    assert result.returncode == 0, result.stderr


def test_an_unreadable_apprun_through_fuse(runtime_build: RuntimeBuild, env: dict[str, str], tmp_path: Path) -> None:
    # A small AppRun sits in the fragment block right after the superblock; garbled, exec fails with EIO.
    appdir = tmp_path / "AppDir"
    appdir.mkdir()
    filler = "".join(f"# {hashlib.sha256(str(i).encode()).hexdigest()}\n" for i in range(100))  # several KB
    (appdir / "AppRun").write_text(f"#!/bin/sh\n{filler}echo should not run\n")
    (appdir / "AppRun").chmod(0o755)
    image = assemble_image(runtime_build.runtime, make_squashfs(appdir, tmp_path / "fs"), tmp_path / "x.AppImage")
    corrupt_first_data_block(image)
    stderr = refused(image, "fuse", env, tmp_path)
    assert "this AppImage is damaged: AppRun cannot be read from it. Download it again." in stderr
