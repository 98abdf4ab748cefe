"""Running an image through FUSE: the environment AppRun gets, arguments, exit codes, signals, the mount's
lifetime, --appimage-mount, and the non-root path through fusermount3."""

from __future__ import annotations

import os
import shutil
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.packaging.appimage_support import mounted_points, parse_probe, read_line_with
from tests.packaging.conftest import ProbeImage, RuntimeBuild
from tests.packaging.privileged import (
    as_nobody_with_fuse,
    require_root_tools,
    with_bind_mount,
    world_readable_copy,
)


def run(image: Path | str, *args: str, env: dict[str, str], cwd: Path | None = None, **kw: object):
    return subprocess.run(
        [str(image), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=20, check=False, **kw
    )


def assert_unmounted(appdir: str) -> None:
    assert appdir not in mounted_points()
    assert not Path(appdir).exists(), "the mount point folder is left behind"


def test_apprun_runs_from_a_private_read_only_mount(probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    result = run(probe.image, "one", "two words", "", "ünï", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["APPIMAGE"] == str(probe.image)
    assert report["ARGV0"] == str(probe.image)
    assert report["OWD"] == str(tmp_path) == report["PWD"]
    assert report.args == ["one", "two words", "", "ünï"]
    assert report["MOUNTED"] == "yes"
    assert report["DATA"] == "probe data"
    # Nothing of the runtime's leaks into the application: no FUSE device, no socket to fusermount3.
    leaked = [fd for fd in report["FDS"].split() if fd.startswith(("socket:", "/dev/fuse", "/memfd:"))]
    assert leaked == []
    appdir = report["APPDIR"]
    assert Path(appdir).parent == Path(env["TMPDIR"]) and Path(appdir).name.startswith(".mount_")
    assert_unmounted(appdir)
    assert result.stderr == ""


def test_the_mount_is_read_only_and_keeps_modes(probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    proc = subprocess.Popen([str(probe.image)], env={**env, "PROBE_MODE": "wait"}, stdout=subprocess.PIPE)
    try:
        appdir = Path(parse_probe(read_line_with(proc, b"ready").decode())["APPDIR"])
        assert (appdir / "usr/bin/tool").stat().st_mode & 0o777 == 0o755
        assert (appdir / "usr/share/probe/private.txt").stat().st_mode & 0o777 == 0o600
        assert os.readlink(appdir / "data-link") == "usr/share/probe/data.txt"
        with pytest.raises(OSError):
            (appdir / "new-file").write_text("x")
        assert mode_of_mount(str(appdir)).startswith("ro")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def mode_of_mount(point: str) -> str:
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if fields[4] == point:
                return fields[5]
    raise AssertionError(f"{point} is not mounted")


def test_appimage_is_absolute_through_a_relative_path_and_a_symlink(
    image_copy: Path, env: dict[str, str], tmp_path: Path
) -> None:
    relative = run(f"./images/{image_copy.name}", env=env, cwd=tmp_path)
    assert relative.returncode == 0, relative.stderr
    assert parse_probe(relative.stdout)["APPIMAGE"] == str(image_copy)
    assert parse_probe(relative.stdout)["ARGV0"] == f"./images/{image_copy.name}"

    links = tmp_path / "bin"
    links.mkdir()
    (links / "probe").symlink_to(image_copy)
    through_link = subprocess.run(
        ["probe"], env={**env, "PATH": f"{links}:{env['PATH']}"}, capture_output=True, text=True, check=False,
        cwd=links, timeout=20,
    )
    assert through_link.returncode == 0, through_link.stderr
    assert parse_probe(through_link.stdout)["APPIMAGE"] == str(image_copy)
    assert parse_probe(through_link.stdout)["ARGV0"] == "probe"


def test_exit_code_and_stdin_pass_through(probe: ProbeImage, env: dict[str, str]) -> None:
    result = run(probe.image, env={**env, "PROBE_EXIT": "7"})
    assert result.returncode == 7
    assert_unmounted(parse_probe(result.stdout)["APPDIR"])
    piped = run(probe.image, env={**env, "PROBE_MODE": "stdin"}, input="from the pipe")
    assert parse_probe(piped.stdout)["STDIN"] == "from the pipe"


@pytest.mark.parametrize(("sig", "code", "said"), [(signal.SIGTERM, 42, b"got TERM"), (signal.SIGINT, 43, b"got INT")])
def test_signals_reach_the_application_and_the_mount_goes(
    probe: ProbeImage, env: dict[str, str], sig: int, code: int, said: bytes
) -> None:
    proc = subprocess.Popen([str(probe.image)], env={**env, "PROBE_MODE": "wait"}, stdout=subprocess.PIPE)
    seen = read_line_with(proc, b"ready")
    appdir = parse_probe(seen.decode())["APPDIR"]
    assert appdir in mounted_points()
    proc.send_signal(sig)
    assert proc.wait(timeout=10) == code
    assert proc.stdout is not None
    assert said in seen + proc.stdout.read()
    assert_unmounted(appdir)


def test_a_child_killed_by_a_signal_is_reported_the_same_way(probe: ProbeImage, env: dict[str, str]) -> None:
    result = run(probe.image, env={**env, "PROBE_MODE": "kill-self"})
    assert result.returncode == -signal.SIGKILL
    assert_unmounted(parse_probe(result.stdout)["APPDIR"])


def test_a_runtime_killed_outright_takes_the_application_and_the_mount_with_it(
    probe: ProbeImage, env: dict[str, str]
) -> None:
    if shutil.which("fusermount3") is None:
        pytest.skip("the automatic unmount needs fusermount3 (package fuse3)")
    proc = subprocess.Popen([str(probe.image)], env={**env, "PROBE_MODE": "wait"}, stdout=subprocess.PIPE)
    seen = read_line_with(proc, b"ready")
    appdir = parse_probe(seen.decode())["APPDIR"]
    proc.kill()
    proc.wait(timeout=10)
    # The application is told to stop (SIGTERM as the runtime dies); fusermount3 unmounts, and the runtime's
    # guard process unmounts what fusermount3 left (it sometimes leaves the mount) and removes the folder.
    assert b"got TERM" in seen or b"got TERM" in read_line_with(proc, b"got TERM")
    deadline = time.monotonic() + 10
    while appdir in mounted_points():
        assert time.monotonic() < deadline, "the mount outlived its runtime"
        time.sleep(0.02)
    while Path(appdir).exists():
        assert time.monotonic() < deadline, "the mount point folder outlived its runtime"
        time.sleep(0.02)


def test_ctrl_c_in_a_terminal_stops_the_application_and_unmounts(probe: ProbeImage, env: dict[str, str]) -> None:
    ptyprocess = pytest.importorskip("ptyprocess")
    child = ptyprocess.PtyProcess.spawn([str(probe.image)], env={**env, "PROBE_MODE": "wait"})
    try:
        seen = b""
        deadline = time.monotonic() + 10
        while b"ready" not in seen:
            assert time.monotonic() < deadline, seen
            seen += child.read(4096)
        child.write(b"\x03")  # the terminal sends SIGINT to the whole foreground process group
        # Read to the terminal's end, not while the child lives: what it wrote before it exited is read after.
        while time.monotonic() < deadline + 10:
            if not select.select([child.fd], [], [], 0.2)[0]:
                continue
            try:
                seen += child.read(4096)
            except EOFError:
                break
        assert not child.isalive(), f"still running after Ctrl+C: {seen!r}"
        child.wait()
        assert child.exitstatus == 43, seen
        assert b"got INT" in seen
        appdir = parse_probe(seen.decode().replace("\r", ""))["APPDIR"]
        assert_unmounted(appdir)
    finally:
        if child.isalive():
            child.kill(signal.SIGKILL)


def test_mount_option_prints_the_mount_point_and_unmounts_on_sigterm(probe: ProbeImage, env: dict[str, str]) -> None:
    proc = subprocess.Popen([str(probe.image), "--appimage-mount"], env=env, stdout=subprocess.PIPE)
    point = read_line_with(proc, b"\n").decode().strip()
    try:
        assert point in mounted_points()
        assert (Path(point) / "usr/share/probe/data.txt").read_text() == "probe data"
        assert sorted(p.name for p in Path(point).iterdir()) == ["AppRun", "data-link", "usr"]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    assert_unmounted(point)


def test_a_user_without_root_mounts_through_fusermount3(probe: ProbeImage, tmp_path: Path) -> None:
    require_root_tools()
    with world_readable_copy(probe.image) as (image, home):
        result = as_nobody_with_fuse(image, home)
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["MOUNTED"] == "yes"
    assert report["DATA"] == "probe data"
    assert not Path(report["APPDIR"]).exists()


def test_root_without_fusermount3_mounts_directly(probe: ProbeImage, env: dict[str, str]) -> None:
    require_root_tools()
    # In a private mount namespace fusermount3 is hidden; root then mounts with mount(2) itself.
    result = with_bind_mount("/dev/null", "/usr/bin/fusermount3", probe.image, env)
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["MOUNTED"] == "yes"
    assert not Path(report["APPDIR"]).exists()


def test_target_appimage_runs_another_image(runtime_build: RuntimeBuild, probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    # A static runtime honours TARGET_APPIMAGE (AppImage specification): here the bare runtime runs the probe.
    bare = tmp_path / "runtime"
    bare.write_bytes(runtime_build.runtime.read_bytes())
    bare.chmod(0o755)
    result = run(bare, "z", env={**env, "TARGET_APPIMAGE": str(probe.image)})
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["APPIMAGE"] == str(probe.image)
    assert report["DATA"] == "probe data"
    assert report.args == ["z"]
