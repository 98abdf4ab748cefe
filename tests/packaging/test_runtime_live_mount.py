"""Starting from the mount of a copy that already runs (IDEA_LIVE_APPDIR, which that copy names for its
children): the subcommands agent CLIs start (hook, mcp-server, sandbox-exec) run AppRun straight from it,
also inside a Landlock sandbox where FUSE cannot mount; anything that is not a live mount of the same image
made by this user is not used."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea.domain.permissions.sandbox_file import ExecGrant, ExecPlan
from idea.infrastructure.sandbox.landlock import abi_version
from tests.packaging.appimage_support import (
    CACHE_DIR_NAME,
    assemble_image,
    make_probe_appdir,
    make_squashfs,
    mounted_points,
    parse_probe,
    read_line_with,
)
from tests.packaging.conftest import ProbeImage, RuntimeBuild
from tests.packaging.privileged import fuse_node, require_root_tools, world_readable_copy

LIVE = "IDEA_LIVE_APPDIR"
REPO = Path(__file__).resolve().parents[2]


def run(image: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(image), *args], env=env, capture_output=True, text=True, timeout=30, check=False)


@pytest.fixture
def live_mount(probe: ProbeImage, env: dict[str, str]) -> Iterator[str]:
    """The probe image mounted by a runtime that keeps running (as IdeA's does while it is open)."""
    proc = subprocess.Popen([str(probe.image), "--appimage-mount"], env=env, stdout=subprocess.PIPE)
    point = read_line_with(proc, b"\n").decode().strip()
    try:
        yield point
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


def mounts_under(folder: str) -> list[str]:
    return sorted(point for point in mounted_points() if point.startswith(folder + "/"))


def test_a_subcommand_runs_apprun_from_the_live_mount_in_its_own_process(
    probe: ProbeImage, env: dict[str, str], live_mount: str
) -> None:
    proc = subprocess.Popen(
        [str(probe.image), "hook", "--source", "claude"], env={**env, LIVE: live_mount, "PROBE_MODE": "wait"},
        stdout=subprocess.PIPE,
    )
    try:
        report = parse_probe(read_line_with(proc, b"ready").decode())
        assert report["APPDIR"] == live_mount and report["MOUNTED"] == "yes"
        assert report["LIVE"] == live_mount  # passed on as it was
        assert report["APPIMAGE"] == str(probe.image)
        assert report.args == ["hook", "--source", "claude"]
        assert report["DATA"] == "probe data"
        assert int(report["PID"]) == proc.pid  # the runtime became AppRun: nothing to serve, nothing to wait for
        assert mounts_under(env["TMPDIR"]) == [live_mount]  # nothing mounted again
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert live_mount in mounted_points()  # and the mount stays with its own runtime


@pytest.mark.parametrize("args", [["mcp-server", "--endpoint", "x"], ["sandbox-exec", "--plan", "p", "--", "true"]])
def test_every_subcommand_that_ends_with_the_application_uses_it(
    probe: ProbeImage, env: dict[str, str], live_mount: str, args: list[str]
) -> None:
    result = run(probe.image, *args, env={**env, LIVE: live_mount})
    assert result.returncode == 0, result.stderr
    assert parse_probe(result.stdout)["APPDIR"] == live_mount
    assert result.stderr == ""


@pytest.mark.parametrize("args", [[], ["doctor"], ["/home/ada/project"], ["--appimage-extract-and-run", "hook"]])
def test_the_application_itself_and_other_commands_start_on_their_own(
    probe: ProbeImage, env: dict[str, str], live_mount: str, args: list[str]
) -> None:
    # A second window opened from a terminal of the first must not die with the first one's mount.
    result = run(probe.image, *args, env={**env, LIVE: live_mount})
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["APPDIR"] != live_mount
    assert report["LIVE"] == live_mount  # the runtime leaves the variable to the application


def test_extract_and_run_asked_for_is_honoured(probe: ProbeImage, env: dict[str, str], live_mount: str) -> None:
    result = run(probe.image, "hook", env={**env, LIVE: live_mount, "APPIMAGE_EXTRACT_AND_RUN": "1"})
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["MOUNTED"] == "no" and report["APPDIR"].startswith(env["XDG_CACHE_HOME"])


def test_a_copy_of_the_same_image_elsewhere_uses_the_mount(
    image_copy: Path, env: dict[str, str], live_mount: str
) -> None:
    result = run(image_copy, "hook", env={**env, LIVE: live_mount})
    report = parse_probe(result.stdout)
    assert report["APPDIR"] == live_mount and report["APPIMAGE"] == str(image_copy)


def test_a_stale_variable_falls_back_to_a_mount_of_its_own(probe: ProbeImage, env: dict[str, str]) -> None:
    proc = subprocess.Popen([str(probe.image), "--appimage-mount"], env=env, stdout=subprocess.PIPE)
    gone = read_line_with(proc, b"\n").decode().strip()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)
    result = run(probe.image, "hook", env={**env, LIVE: gone})
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["APPDIR"] != gone and report["MOUNTED"] == "yes" and report["DATA"] == "probe data"
    assert result.stderr == ""


def planted_appdir(folder: Path) -> Path:
    """A folder that looks like the image's tree but whose AppRun is not the image's."""
    (folder / "usr" / "share" / "probe").mkdir(parents=True)
    (folder / "AppRun").write_text("#!/bin/sh\necho PLANTED\n")
    (folder / "AppRun").chmod(0o755)
    return folder


def test_a_plain_folder_is_never_run(probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    planted = planted_appdir(tmp_path / "looks-like-a-mount")
    for named in (str(planted), f"{planted}/", "looks-like-a-mount"):  # as written, with a slash, relative
        result = subprocess.run([str(probe.image), "hook"], env={**env, LIVE: named}, cwd=tmp_path,
                                capture_output=True, text=True, timeout=30, check=False)
        assert "PLANTED" not in result.stdout
        assert parse_probe(result.stdout)["DATA"] == "probe data"


def test_a_folder_inside_the_live_mount_is_not_the_mount(
    probe: ProbeImage, env: dict[str, str], live_mount: str
) -> None:
    result = run(probe.image, "hook", env={**env, LIVE: f"{live_mount}/usr"})
    assert parse_probe(result.stdout)["APPDIR"] != f"{live_mount}/usr"


def test_a_mount_of_another_image_is_not_used(
    runtime_build: RuntimeBuild, probe: ProbeImage, env: dict[str, str], tmp_path: Path
) -> None:
    # Another build (a newer version under the same file name, say): a different identity.
    other_dir = make_probe_appdir(tmp_path / "other")
    (other_dir / "usr" / "share" / "probe" / "data.txt").write_text("other data")
    other = assemble_image(runtime_build.runtime, make_squashfs(other_dir, tmp_path / "other.squashfs"),
                           tmp_path / "Probe-x86_64.AppImage")
    proc = subprocess.Popen([str(other), "--appimage-mount"], env=env, stdout=subprocess.PIPE)
    try:
        point = read_line_with(proc, b"\n").decode().strip()
        result = run(probe.image, "hook", env={**env, LIVE: point})
        report = parse_probe(result.stdout)
        assert report["APPDIR"] != point and report["DATA"] == "probe data"
        # The same image started through that variable does use it.
        assert parse_probe(run(other, "hook", env={**env, LIVE: point}).stdout)["APPDIR"] == point
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


def test_the_mount_table_names_the_image_it_serves(probe: ProbeImage, live_mount: str) -> None:
    with open("/proc/self/mountinfo", encoding="utf-8") as table:
        entry = next(line.split() for line in table if line.split()[4] == live_mount)
    fstype, source, options = entry[entry.index("-") + 1 :][:3]
    assert fstype == "fuse.appimage"
    name, identity = source.rsplit("@", 1)
    assert name == probe.image.name and len(identity) == 32 and int(identity, 16) >= 0
    assert f"user_id={os.getuid()}" in options.split(",")


def test_another_users_mount_is_not_used(probe: ProbeImage) -> None:
    """Root mounts the image; nobody, given the variable, must mount its own (through fusermount3)."""
    require_root_tools()
    with world_readable_copy(probe.image) as (image, home):
        node = fuse_node(image.parent)
        tmp = image.parent / "tmp"
        script = (
            f"mount --bind {node} /dev/fuse || exit 1; "
            f'TMPDIR={tmp} "$0" --appimage-mount > {tmp}/point & mounter=$!; '
            f"while [ ! -s {tmp}/point ]; do sleep 0.05; done; "
            f"point=$(cat {tmp}/point); echo ROOT_MOUNT=$point; "
            f'setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME={home} PATH="$PATH" TMPDIR={tmp} '
            f'{LIVE}="$point" "$0" hook; kill $mounter; wait $mounter'
        )
        result = subprocess.run(["unshare", "-m", "sh", "-c", script, str(image)], cwd=home, capture_output=True,
                                text=True, timeout=60, check=False)
    report = parse_probe(result.stdout)
    assert report["ROOT_MOUNT"] and report["APPDIR"] != report["ROOT_MOUNT"], result.stdout + result.stderr
    assert report["MOUNTED"] == "yes" and report["DATA"] == "probe data"


# --- inside a Landlock sandbox, as agent CLIs run under `idea sandbox-exec` ------------------------------


def sandboxed(argv: list[str], plan: ExecPlan, env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    plan_file = tmp_path / "sandbox-plan.json"
    plan_file.write_text(json.dumps(plan.to_json()))
    return subprocess.run(
        [sys.executable, "-m", "idea", "sandbox-exec", "--plan", str(plan_file), "--", *argv],
        env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=60, check=False,
    )


def require_landlock() -> None:
    abi, reason = abi_version()
    if abi < 1:
        pytest.skip(f"no Landlock here: {reason}")


def writes_only(*paths: str) -> ExecPlan:
    """As the Reviewer preset's plan: writing is handled (allowed only where granted), reading is not."""
    grants = tuple(ExecGrant(path, True, True) for path in ("/dev/null", *paths))
    return ExecPlan(handled_ro=False, handled_rw=True, grants=grants, default_posture="allow",
                    require_enforcement=True)


def test_in_a_sandbox_fuse_cannot_mount_and_the_live_mount_is_the_way(
    probe: ProbeImage, env: dict[str, str], live_mount: str, tmp_path: Path
) -> None:
    require_landlock()
    plan = writes_only(env["TMPDIR"], env["XDG_CACHE_HOME"])
    # Without the variable: the mount is refused inside the Landlock domain, so the image is extracted.
    alone = sandboxed([str(probe.image), "hook"], plan, env, tmp_path)
    assert alone.returncode == 0, alone.stderr
    assert parse_probe(alone.stdout)["MOUNTED"] == "no" and "FUSE is not available" in alone.stderr
    assert (Path(env["XDG_CACHE_HOME"]) / CACHE_DIR_NAME).is_dir()
    shutil.rmtree(Path(env["XDG_CACHE_HOME"]) / CACHE_DIR_NAME)
    # With it: AppRun runs from the live mount, nothing is mounted or extracted.
    reused = sandboxed([str(probe.image), "hook"], plan, {**env, LIVE: live_mount}, tmp_path)
    assert reused.returncode == 0, reused.stderr
    report = parse_probe(reused.stdout)
    assert report["APPDIR"] == live_mount and report["DATA"] == "probe data"
    assert not (Path(env["XDG_CACHE_HOME"]) / CACHE_DIR_NAME).exists() and reused.stderr == ""


def test_a_sandbox_that_restricts_reading_needs_the_live_mount_granted(
    probe: ProbeImage, env: dict[str, str], live_mount: str, tmp_path: Path
) -> None:
    require_landlock()
    system = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/dev", str(Path(sys.executable).parent),
              str(Path(sys.prefix)), sys.base_prefix, str(REPO), str(probe.image.parent))
    readable = tuple(ExecGrant(path, True, False) for path in system)

    scratch = tmp_path / "scratch"  # the only writable folder: neither the cache nor TMPDIR is under it
    scratch.mkdir()

    def plan(*more: str) -> ExecPlan:
        extra = tuple(ExecGrant(path, True, False) for path in more)
        return ExecPlan(handled_ro=True, handled_rw=True, grants=(*readable, *extra,
                        ExecGrant(str(scratch), True, True)), default_posture="allow", require_enforcement=True)

    granted = sandboxed([str(probe.image), "hook"], plan(live_mount), {**env, LIVE: live_mount}, tmp_path)
    assert granted.returncode == 0, granted.stderr
    assert parse_probe(granted.stdout)["APPDIR"] == live_mount
    # Not granted: the live mount cannot be read, FUSE cannot mount, and there is nowhere to extract.
    refused = sandboxed([str(probe.image), "hook"], plan(), {**env, LIVE: live_mount}, tmp_path)
    assert refused.returncode == 69 and "no writable place to extract" in refused.stderr
