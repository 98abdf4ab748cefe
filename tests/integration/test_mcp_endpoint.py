"""Where a project's endpoint lives (spec 03 §3.1): one private directory, one socket per project."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea.infrastructure.mcp.endpoint import SUN_PATH_SIZE, fits_sockaddr, mcp_endpoint
from tests.fakes import RecordingDiagnostics
from tests.fakes_gateway import PROJECT_ID

SOCKET = "0f3c2a9e6b1d4c1e9d0a2f6f1f7b8c11.sock"


@pytest.fixture
def base() -> Iterator[Path]:
    """A short base: pytest's own tmp_path can push a socket path past the 108 bytes of a sockaddr."""
    path = Path(tempfile.mkdtemp(prefix="idea-e-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_runtime_dir_comes_first_and_the_result_is_stable(base: Path) -> None:
    runtime, temporary = base / "run", base / "tmp"
    runtime.mkdir()
    temporary.mkdir()
    env = {"XDG_RUNTIME_DIR": str(runtime), "TMPDIR": str(temporary)}

    first = mcp_endpoint(PROJECT_ID, env)

    assert first == str(runtime / "idea-mcp" / SOCKET)
    assert mode(runtime / "idea-mcp") == 0o700
    assert mcp_endpoint(PROJECT_ID.replace("-", ""), env) == first


def test_a_missing_runtime_dir_falls_back_to_tmpdir(base: Path) -> None:
    env = {"XDG_RUNTIME_DIR": str(base / "absent"), "TMPDIR": str(base)}

    assert mcp_endpoint(PROJECT_ID, env) == str(base / "idea-mcp" / SOCKET)


def test_without_candidates_in_the_environment_the_system_temp_dir_is_used() -> None:
    assert mcp_endpoint(PROJECT_ID, {}) == os.path.join(tempfile.gettempdir(), "idea-mcp", SOCKET)


def test_a_too_long_path_moves_to_the_next_base_and_says_so(base: Path) -> None:
    deep = base / ("d" * 100)
    deep.mkdir()
    diagnostics = RecordingDiagnostics()

    path = mcp_endpoint(PROJECT_ID, {"XDG_RUNTIME_DIR": str(deep), "TMPDIR": str(base)}, diagnostics=diagnostics)

    assert path == str(base / "idea-mcp" / SOCKET)
    assert diagnostics.lines[0].startswith("[mcp] endpoint path too long: ")
    assert not (deep / "idea-mcp").exists()
    assert not fits_sockaddr("/" + "x" * (SUN_PATH_SIZE - 1)) and fits_sockaddr("/" + "x" * (SUN_PATH_SIZE - 2))


def test_a_loose_directory_of_ours_is_tightened(base: Path) -> None:
    (base / "idea-mcp").mkdir(mode=0o755)
    os.chmod(base / "idea-mcp", 0o755)

    mcp_endpoint(PROJECT_ID, {"XDG_RUNTIME_DIR": str(base)})

    assert mode(base / "idea-mcp") == 0o700


def test_a_planted_symlink_is_not_trusted(base: Path) -> None:
    shared, elsewhere, fallback = base / "shared", base / "elsewhere", base / "fallback"
    for directory in (shared, elsewhere, fallback):
        directory.mkdir()
    (shared / "idea-mcp").symlink_to(elsewhere, target_is_directory=True)

    path = mcp_endpoint(PROJECT_ID, {"XDG_RUNTIME_DIR": str(shared), "TMPDIR": str(fallback)})

    assert path == str(fallback / "idea-mcp" / SOCKET)
