"""Running without FUSE from the extraction cache (first start extracts, later starts reuse), the fallback
when FUSE is missing or refuses, pruning, and --appimage-extract."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from tests.packaging.appimage_support import (
    CACHE_DIR_NAME,
    EXIT_UNAVAILABLE,
    assemble_image,
    make_squashfs,
    parse_probe,
)
from tests.packaging.conftest import ProbeImage, RuntimeBuild
from tests.packaging.privileged import as_nobody, require_root_tools, with_bind_mount, world_readable_copy

EXTRACT = {"APPIMAGE_EXTRACT_AND_RUN": "1"}
DAY = 24 * 3600


def run(image: Path, *args: str, env: dict[str, str], cwd: Path | None = None):
    return subprocess.run(
        [str(image), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=30, check=False
    )


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cache_root(env: dict[str, str]) -> Path:
    return Path(env["XDG_CACHE_HOME"]) / CACHE_DIR_NAME


def test_first_start_extracts_and_the_second_reuses_it(image_copy: Path, env: dict[str, str]) -> None:
    first = run(image_copy, "a", env={**env, **EXTRACT})
    assert first.returncode == 0, first.stderr
    report = parse_probe(first.stdout)
    appdir = Path(report["APPDIR"])
    assert appdir == cache_root(env) / sha256_of(image_copy)
    assert report["MOUNTED"] == "no"
    assert report["DATA"] == "probe data"
    assert report["APPIMAGE"] == str(image_copy)
    assert report.args == ["a"]
    assert "extract-and-run was asked for; extracting the application to" in first.stderr
    before = (appdir.stat().st_ino, (appdir / "AppRun").stat().st_ino, (appdir / "AppRun").stat().st_ctime_ns)

    second = run(image_copy, "b", env={**env, **EXTRACT})
    assert second.returncode == 0, second.stderr
    assert second.stderr == ""  # nothing extracted, nothing to say
    assert Path(parse_probe(second.stdout)["APPDIR"]) == appdir
    assert parse_probe(second.stdout).args == ["b"]
    after = (appdir.stat().st_ino, (appdir / "AppRun").stat().st_ino, (appdir / "AppRun").stat().st_ctime_ns)
    assert after == before  # the very same files: reused, not extracted again
    leftovers = [p.name for p in cache_root(env).iterdir() if p.name.startswith((".tmp-", ".trash-"))]
    assert leftovers == []


def test_extracted_tree_keeps_modes_links_and_contents(probe: ProbeImage, env: dict[str, str]) -> None:
    result = run(probe.image, "--appimage-extract-and-run", "x", env=env)
    assert result.returncode == 0, result.stderr
    assert parse_probe(result.stdout).args == ["x"]
    appdir = Path(parse_probe(result.stdout)["APPDIR"])
    for inner in ("AppRun", "usr/bin/tool", "usr/share/probe/private.txt", "usr/share/probe/big.txt"):
        extracted, original = appdir / inner, probe.appdir / inner
        assert extracted.read_bytes() == original.read_bytes(), inner
        assert extracted.stat().st_mode & 0o777 == original.stat().st_mode & 0o777, inner
        assert int(extracted.stat().st_mtime) == int(original.stat().st_mtime), inner
    assert os.readlink(appdir / "data-link") == "usr/share/probe/data.txt"
    assert (appdir / "usr/share/empty").is_dir()


def test_a_half_extracted_folder_is_never_used(image_copy: Path, env: dict[str, str]) -> None:
    digest = sha256_of(image_copy)
    root = cache_root(env)
    root.mkdir(mode=0o700)
    unfinished = root / f".tmp-{digest}-Ab12Cd"
    unfinished.mkdir()
    (unfinished / "AppRun").write_text("#!/bin/sh\necho HALF\n")
    (unfinished / "AppRun").chmod(0o755)
    result = run(image_copy, env={**env, **EXTRACT})
    assert result.returncode == 0, result.stderr
    assert "HALF" not in result.stdout
    assert Path(parse_probe(result.stdout)["APPDIR"]) == root / digest
    assert not unfinished.exists()


def test_concurrent_first_starts_share_one_extraction(image_copy: Path, env: dict[str, str]) -> None:
    procs = [
        subprocess.Popen([str(image_copy)], env={**env, **EXTRACT}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=30) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    appdirs = {parse_probe(out.decode())["APPDIR"] for out, _ in outputs}
    assert appdirs == {str(cache_root(env) / sha256_of(image_copy))}
    assert sum(b"extracting the application" in err for _, err in outputs) == 1
    assert not [p for p in cache_root(env).iterdir() if p.name.startswith(".tmp-")]


def test_a_replaced_image_gets_its_own_extraction(
    image_copy: Path, env: dict[str, str], runtime_build: RuntimeBuild, probe: ProbeImage, tmp_path: Path
) -> None:
    run(image_copy, env={**env, **EXTRACT})
    first_digest = sha256_of(image_copy)
    changed = tmp_path / "changed"
    changed_appdir = changed / "AppDir"
    shutil.copytree(probe.appdir, changed_appdir, symlinks=True)
    (changed_appdir / "usr/share/probe/data.txt").write_text("second version")
    new_image = assemble_image(runtime_build.runtime, make_squashfs(changed_appdir, changed / "p.squashfs"), changed / "new")
    os.replace(new_image, image_copy)  # same path, new file: as an updater replaces it

    result = run(image_copy, env={**env, **EXTRACT})
    assert result.returncode == 0, result.stderr
    report = parse_probe(result.stdout)
    assert report["DATA"] == "second version"
    assert Path(report["APPDIR"]).name == sha256_of(image_copy) != first_digest


def test_old_unused_extractions_are_pruned_but_not_ones_in_use(image_copy: Path, env: dict[str, str]) -> None:
    root = cache_root(env)
    root.mkdir(mode=0o700)
    old, recent, held = root / ("a" * 64), root / ("b" * 64), root / ("c" * 64)
    crashed = root / (".tmp-" + "d" * 64 + "-Xy12zW")
    for folder in (old, recent, held, crashed):
        (folder / "usr").mkdir(parents=True)
        (folder / "usr" / "file").write_text("x")
    (old / "usr").chmod(0o555)  # read-only folders are removed too
    forty_days_ago = time.time() - 40 * DAY
    for folder in (old, held):
        os.utime(folder, (forty_days_ago, forty_days_ago))
    (root / "by-file").mkdir()
    (root / "by-file" / "stale-memo").symlink_to("a" * 64)
    with open(root / f"{'c' * 64}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)  # a running start of that version
        result = run(image_copy, env={**env, **EXTRACT})
    assert result.returncode == 0, result.stderr
    assert not old.exists()
    assert recent.exists() and held.exists()
    assert not crashed.exists()
    assert not (root / "by-file" / "stale-memo").is_symlink()
    assert (root / sha256_of(image_copy)).is_dir()


def test_falls_back_to_extraction_when_dev_fuse_is_missing(probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    require_root_tools()
    not_a_device = tmp_path / "not-a-device"
    not_a_device.write_text("")
    result = with_bind_mount(not_a_device, "/dev/fuse", probe.image, env)
    assert result.returncode == 0, result.stderr
    assert parse_probe(result.stdout)["MOUNTED"] == "no"
    assert "FUSE is not available (/dev/fuse is not a device); extracting the application to" in result.stderr


def test_falls_back_to_extraction_when_the_mount_is_refused(probe: ProbeImage, env: dict[str, str]) -> None:
    require_root_tools()
    # /dev/null passes for a device, but the kernel refuses to mount FUSE through it.
    result = with_bind_mount("/dev/null", "/dev/fuse", probe.image, env)
    assert result.returncode == 0, result.stderr
    assert parse_probe(result.stdout)["MOUNTED"] == "no"
    assert "FUSE is not available (mounting through FUSE failed: " in result.stderr
    assert result.stderr.count("\n") == 1  # libfuse's own lines are folded into the one notice


def test_no_fuse_and_no_writable_cache_says_what_to_do(probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run(probe.image, env={**env, **EXTRACT, "XDG_CACHE_HOME": f"{blocker}/cache", "TMPDIR": f"{blocker}/tmp"})
    assert result.returncode == EXIT_UNAVAILABLE
    assert result.stdout == ""
    message = result.stderr
    assert "cannot start: extract-and-run was asked for, and there is no writable place" in message
    assert f"{blocker}/cache/{CACHE_DIR_NAME}: Not a directory" in message
    assert f"{blocker}/tmp/{CACHE_DIR_NAME}-0: Not a directory" in message
    assert "unset APPIMAGE_EXTRACT_AND_RUN" in message
    assert "--appimage-extract" in message


def test_a_read_only_home_falls_back_to_tmpdir_then_fails_clearly(probe: ProbeImage) -> None:
    require_root_tools()
    with world_readable_copy(probe.image) as (image, _):
        read_only_home = image.parent / "locked-home"
        read_only_home.mkdir(mode=0o755)  # owned by root: nobody cannot write there
        result = as_nobody(image, read_only_home, extra_env=EXTRACT)
        assert result.returncode == 0, result.stderr
        assert parse_probe(result.stdout)["APPDIR"].startswith(f"{image.parent}/tmp/{CACHE_DIR_NAME}-65534/")
        assert f"~/.cache/{CACHE_DIR_NAME} cannot be used (Permission denied)" in result.stderr

        (image.parent / "tmp").chmod(0o755)  # and now no writable TMPDIR either
        (image.parent / "tmp" / f"{CACHE_DIR_NAME}-65534").rename(image.parent / "moved-away")
        failed = as_nobody(image, read_only_home, extra_env=EXTRACT)
        assert failed.returncode == EXIT_UNAVAILABLE
        assert f"~/.cache/{CACHE_DIR_NAME}: Permission denied" in failed.stderr
        assert f"{image.parent}/tmp/{CACHE_DIR_NAME}-65534: Permission denied" in failed.stderr


def test_a_cache_folder_owned_by_someone_else_is_not_trusted(probe: ProbeImage) -> None:
    require_root_tools()
    with world_readable_copy(probe.image) as (image, _):
        planted = image.parent / "tmp" / f"{CACHE_DIR_NAME}-65534"
        planted.mkdir(mode=0o777)  # made first by another user (root here) in the shared TMPDIR
        locked_home = image.parent / "locked-home"
        locked_home.mkdir(mode=0o755)  # so the cache must go to TMPDIR
        result = as_nobody(image, locked_home, extra_env=EXTRACT)
        assert result.returncode == EXIT_UNAVAILABLE
        assert f"{planted}: not a private folder of this user" in result.stderr


def test_extract_option_writes_squashfs_root_and_lists_it(probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    result = run(probe.image, "--appimage-extract", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    root = tmp_path / "squashfs-root"
    listed = set(result.stdout.split())
    expected = {
        f"squashfs-root/{p.relative_to(probe.appdir)}" for p in probe.appdir.rglob("*")
    }
    assert listed == expected
    assert (root / "usr/share/probe/big.txt").read_bytes() == (probe.appdir / "usr/share/probe/big.txt").read_bytes()
    assert (root / "AppRun").stat().st_mode & 0o777 == 0o755
    assert os.readlink(root / "data-link") == "usr/share/probe/data.txt"
    # Extracting again over an existing tree replaces the files.
    (root / "usr/share/probe/data.txt").write_text("edited")
    assert run(probe.image, "--appimage-extract", env=env, cwd=tmp_path).returncode == 0
    assert (root / "usr/share/probe/data.txt").read_text() == "probe data"


def test_extract_option_with_a_pattern(probe: ProbeImage, env: dict[str, str], tmp_path: Path) -> None:
    result = run(probe.image, "--appimage-extract", "usr/share/probe/*.txt", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    root = tmp_path / "squashfs-root"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if not p.is_dir())
    assert files == ["usr/share/probe/big.txt", "usr/share/probe/data.txt", "usr/share/probe/private.txt"]
    assert result.stdout.split() == [f"squashfs-root/{f}" for f in files]


def test_a_damaged_extracted_copy_is_explained(image_copy: Path, env: dict[str, str]) -> None:
    first = run(image_copy, env={**env, **EXTRACT})
    appdir = Path(parse_probe(first.stdout)["APPDIR"])
    (appdir / "AppRun").unlink()
    result = run(image_copy, env={**env, **EXTRACT})
    assert result.returncode == 127
    assert f"in its extracted copy {appdir}, which was changed after extraction: remove that folder" in result.stderr


def test_extracting_again_over_read_only_folders_as_a_user(runtime_build: RuntimeBuild, tmp_path: Path) -> None:
    require_root_tools()
    appdir = tmp_path / "AppDir"
    (appdir / "locked").mkdir(parents=True)
    (appdir / "AppRun").write_text("#!/bin/sh\n")
    (appdir / "AppRun").chmod(0o755)
    (appdir / "locked" / "file").write_text("v1")
    (appdir / "locked").chmod(0o555)
    image = assemble_image(runtime_build.runtime, make_squashfs(appdir, tmp_path / "fs"), tmp_path / "ro.AppImage")
    with world_readable_copy(image) as (copy, home):
        for _ in range(2):  # the second run writes into the read-only folder the first one made
            result = as_nobody(copy, home, "--appimage-extract")
            assert result.returncode == 0, result.stderr
        locked = home / "squashfs-root" / "locked"
        assert (locked / "file").read_text() == "v1"
        assert locked.stat().st_mode & 0o777 == 0o555
