"""Fixtures for the AppImage runtime tests: the runtime built once per session from
packaging/appimage/runtime, and a probe image made from a small AppDir."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.packaging.appimage_support import (
    REPO,
    RUNTIME_SOURCE,
    assemble_image,
    clean_env,
    make_probe_appdir,
    make_squashfs,
    missing_build_tools,
)


@dataclass(frozen=True)
class RuntimeBuild:
    build_dir: Path
    runtime: Path
    unit_tests: Path


@pytest.fixture(scope="session")
def runtime_build() -> RuntimeBuild:
    missing = missing_build_tools()
    if missing:
        pytest.skip(
            "the AppImage runtime cannot be built here, missing: "
            + ", ".join(missing)
            + " (./dev test installs libsquashfuse-dev libfuse3-dev libzstd-dev liblz4-dev liblzo2-dev"
            " squashfs-tools fuse3 pkg-config)"
        )
    # The package build's folder: make rebuilds only what changed, so a second session starts at once.
    build_dir = REPO / "build" / "appimage-runtime"
    result = subprocess.run(
        ["make", "-s", "-C", str(RUNTIME_SOURCE), f"O={build_dir}", "all", f"{build_dir}/unit-tests"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"runtime build failed:\n{result.stdout}\n{result.stderr}"
    return RuntimeBuild(build_dir, build_dir / "appimage-runtime", build_dir / "unit-tests")


@dataclass(frozen=True)
class ProbeImage:
    appdir: Path
    squashfs: Path
    image: Path


@pytest.fixture(scope="session")
def probe(runtime_build: RuntimeBuild, tmp_path_factory: pytest.TempPathFactory) -> ProbeImage:
    root = tmp_path_factory.mktemp("probe")
    appdir = make_probe_appdir(root)
    squashfs = make_squashfs(appdir, root / "probe.squashfs")
    image = assemble_image(runtime_build.runtime, squashfs, root / "Probe-x86_64.AppImage")
    return ProbeImage(appdir, squashfs, image)


@pytest.fixture
def image_copy(probe: ProbeImage, tmp_path: Path) -> Path:
    """A private copy of the probe image, for tests that alter, move or replace it."""
    copy = tmp_path / "images" / "Probe-x86_64.AppImage"
    copy.parent.mkdir()
    copy.write_bytes(probe.image.read_bytes())
    copy.chmod(0o755)
    return copy


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A clean environment with this test's own cache (XDG_CACHE_HOME) and TMPDIR (mount points)."""
    (tmp_path / "cache").mkdir()
    (tmp_path / "tmp").mkdir()
    return clean_env(tmp_path / "cache", tmp_path / "tmp")
