"""The runtime's file format: an ELF with the type-2 magic whose section header table ends the file, so the
SquashFS starts exactly where the runtime says; plus its C unit tests and its informational options."""

from __future__ import annotations

import subprocess

from tests.packaging.appimage_support import (
    EXIT_USAGE,
    elf_payload_offset,
    program_header_types,
    read_superblock,
)
from tests.packaging.conftest import ProbeImage, RuntimeBuild

PT_INTERP = 3
SQUASHFS_ZSTD = 6


def test_runtime_is_an_elf_with_the_type2_magic_at_offset_8(runtime_build: RuntimeBuild) -> None:
    header = runtime_build.runtime.read_bytes()[:16]
    assert header[:4] == b"\x7fELF"
    assert header[8:11] == b"AI\x02"


def test_the_section_header_table_ends_the_runtime_file(runtime_build: RuntimeBuild) -> None:
    data = runtime_build.runtime.read_bytes()
    assert elf_payload_offset(data[:64]) == len(data)


def test_runtime_is_static_so_it_starts_before_any_library_check(runtime_build: RuntimeBuild) -> None:
    # No program interpreter: the runtime runs on any Linux, even one whose glibc is too old for the
    # payload, so AppRun gets to say so.
    assert PT_INTERP not in program_header_types(runtime_build.runtime.read_bytes())


def test_offset_option_agrees_with_the_elf_header_and_finds_the_squashfs(probe: ProbeImage) -> None:
    data = probe.image.read_bytes()
    expected = elf_payload_offset(data[:64])
    result = subprocess.run([str(probe.image), "--appimage-offset"], capture_output=True, text=True, check=True)
    assert int(result.stdout) == expected
    superblock = read_superblock(data, expected)
    assert superblock.compression == SQUASHFS_ZSTD
    assert expected + superblock.bytes_used <= len(data)
    assert data[expected:] == probe.squashfs.read_bytes()


def test_c_unit_tests_pass(runtime_build: RuntimeBuild) -> None:
    result = subprocess.run([str(runtime_build.unit_tests)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout
    summary = result.stdout.strip().splitlines()[-1]
    passed = int(summary.split()[0])
    assert summary.endswith(" 0 failed") and passed > 40, summary


def test_version_and_help(probe: ProbeImage) -> None:
    version = subprocess.run([str(probe.image), "--appimage-version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("IdeA AppImage runtime ")
    assert "type 2" in version.stdout and "squashfuse" in version.stdout
    helptext = subprocess.run([str(probe.image), "--appimage-help"], capture_output=True, text=True, check=True)
    for option in ("--appimage-extract", "--appimage-mount", "--appimage-offset", "--appimage-version"):
        assert option in helptext.stdout
    assert "APPIMAGE_EXTRACT_AND_RUN" in helptext.stdout


def test_unknown_appimage_option_is_a_usage_error(probe: ProbeImage) -> None:
    result = subprocess.run([str(probe.image), "--appimage-frobnicate"], capture_output=True, text=True, check=False)
    assert result.returncode == EXIT_USAGE
    assert "unknown option --appimage-frobnicate" in result.stderr
    assert "--appimage-help" in result.stderr
