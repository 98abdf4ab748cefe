#!/usr/bin/env python3
"""Smoke-tests the Linux artifacts in dist/ as a user would, and says what it checks:

    python3 packaging/smoke/smoke_linux.py [--dist DIR] [--install-deb] [--only NAME...]

For the AppImage through FUSE, the AppImage with APPIMAGE_EXTRACT_AND_RUN=1 (first start extracts, the
second reuses the cache), the unpacked .tar.gz, the .deb (unpacked, or installed with dpkg under
--install-deb), and the wheel installed (not editable) in a fresh venv:

  1. `idea --version` prints the package's version;
  2. `idea doctor` passes and names the installation;
  3. a project window is drawn offscreen and saved as PNG, and its shell cell's screen, read back, shows a
     command's output and an environment free of the package's own libraries and launcher variables;
  4. `idea hook` and `idea mcp-server` load no Qt library (tests/packaging/test_frozen_subcommands.py);
  5. two fake agents (tests/fake_agent/) delegate a task through the artifact's own bridge and hook relay,
     their run-dir declarations naming the artifact (tests/packaging/test_artifact_ask.py, run with the
     development venv's pytest).

Exits 1 at the first failed check. Needs the development venv (./dev test creates it) for step 4.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MARKER = "smoke-$((6*7))"  # the shell computes it: the readback shows smoke-42 only if the shell ran it
OWN_LIBRARY_PATH = "/opt/users-own/lib"  # the user's LD_LIBRARY_PATH, which children must get back
SHELL_RC = (
    f'echo "{MARKER}"\n'
    'echo "ld=${LD_LIBRARY_PATH:-unset} pyi=$(env | grep -c "^_PYI_") appdir=${APPDIR:-unset} '
    'qt=${QT_PLUGIN_PATH:-unset}"\n'
)
EXPECTED_ENV_LINE = f"ld={OWN_LIBRARY_PATH} pyi=0 appdir=unset qt=unset"
GUI_TIMEOUT_S = 120


@dataclass
class Target:
    name: str
    command: list[str]  # argv prefix that starts this IdeA
    kind: str  # what `idea doctor` must say under "Installed as"
    env: dict[str, str] = field(default_factory=dict)


class Failed(Exception):
    pass


def say(text: str) -> None:
    print(text, flush=True)


def check(target: Target, what: str, action: Callable[[], str]) -> None:
    started = time.monotonic()
    try:
        detail = action()
    except Failed as exc:
        say(f"  FAIL  {target.name}: {what}\n        {exc}")
        raise
    say(f"  ok    {target.name}: {what} ({time.monotonic() - started:.1f} s){' — ' + detail if detail else ''}")


def base_env(home: Path, data: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("APPIMAGE_EXTRACT_AND_RUN", "LD_LIBRARY_PATH", "PYTHONPATH", "VIRTUAL_ENV")}
    env.update(HOME=str(home), IDEA_DATA_DIR=str(data), QT_QPA_PLATFORM="offscreen", PS1="$ ", **extra)
    return env


def run(argv: list[str], env: dict[str, str], timeout: float = 120, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise Failed(f"{' '.join(argv)} did not finish within {timeout:g} s") from exc


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failed(f"{path} is not a PNG")
    return struct.unpack(">II", data[16:24])


def smoke(target: Target, version: str, work: Path, dev_python: Path) -> None:
    home, data = work / "home", work / "data"
    home.mkdir(parents=True)
    for rc in (".bashrc", ".zshrc", ".shrc"):
        (home / rc).write_text(SHELL_RC, encoding="utf-8")
    env = base_env(home, data, {"ENV": str(home / ".shrc"), **target.env})

    def version_check() -> str:
        done = run([*target.command, "--version"], env)
        if done.returncode != 0 or done.stdout.strip() != f"IdeA {version}":
            raise Failed(f"exit {done.returncode}, printed {done.stdout.strip()!r} {done.stderr.strip()[-300:]!r}")
        return done.stdout.strip()

    def doctor_check() -> str:
        done = run([*target.command, "doctor"], env)
        if done.returncode != 0:
            raise Failed(f"exit {done.returncode}:\n{done.stdout}{done.stderr[-500:]}")
        installed = next((line for line in done.stdout.splitlines() if line.startswith("Installed as")), "")
        if target.kind not in installed:
            raise Failed(f"expected the installation to be a {target.kind}, doctor says {installed!r}")
        return installed.split(None, 2)[2]

    def window_check() -> str:
        project = work / "project"
        project.mkdir()
        (data / "settings.json").parent.mkdir(parents=True, exist_ok=True)
        (data / "settings.json").write_text(json.dumps({"version": 1, "firstRunCompleted": True}))
        (data / "profiles.json").write_text(json.dumps({"version": 1, "profiles": []}))
        shot, screens = work / "window.png", work / "screens.txt"
        gui_env = {**env, "LD_LIBRARY_PATH": OWN_LIBRARY_PATH}
        done = run([*target.command, str(project), "--screenshot", str(shot), "--dump-screens", str(screens),
                    "--quit-after", "6000"], gui_env, timeout=GUI_TIMEOUT_S)
        if done.returncode != 0 or not shot.is_file() or not screens.is_file():
            raise Failed(f"exit {done.returncode}: {done.stdout[-300:]} {done.stderr[-800:]}")
        width, height = png_size(shot)
        if width < 600 or height < 400:
            raise Failed(f"the window is {width}x{height}")
        text = screens.read_text(encoding="utf-8")
        if "smoke-42" not in text:
            raise Failed(f"the shell cell's screen does not show the command's output:\n{text}")
        if EXPECTED_ENV_LINE not in text:
            raise Failed(f"the shell got a packaged environment; expected {EXPECTED_ENV_LINE!r} in:\n{text}")
        kept = REPO / "build" / "smoke" / f"{target.name.replace(' ', '-').replace('/', '-')}.png"
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(shot, kept)
        return f"{width}x{height} PNG ({kept.relative_to(REPO)}), shell read back: smoke-42, {EXPECTED_ENV_LINE}"

    def ask_check() -> str:
        ask_env = {key: value for key, value in os.environ.items() if key != "APPIMAGE_EXTRACT_AND_RUN"}
        ask_env.update(target.env, IDEA_SMOKE_COMMAND=json.dumps(target.command), QT_QPA_PLATFORM="offscreen")
        done = run([str(dev_python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "tests/packaging/test_artifact_ask.py"], ask_env, timeout=300, cwd=REPO)
        if done.returncode != 0 or " passed" not in done.stdout:
            raise Failed(done.stdout[-3000:] + done.stderr[-1000:])
        return "Main asked QA through " + " ".join(target.command) + " mcp-server; QA replied"

    def no_qt_in_subcommands() -> str:
        audit_env = {key: value for key, value in os.environ.items() if key != "APPIMAGE_EXTRACT_AND_RUN"}
        audit_env.update(target.env, HOME=str(home), IDEA_SMOKE_COMMAND=json.dumps(target.command))
        done = run([str(dev_python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "tests/packaging/test_frozen_subcommands.py"], audit_env, timeout=300, cwd=REPO)
        if done.returncode != 0 or " passed" not in done.stdout:
            raise Failed(done.stdout[-3000:] + done.stderr[-1000:])
        return "the dynamic loader saw no Qt library in `hook` or `mcp-server`, and saw Qt in the GUI"

    say(f"== {target.name}: {' '.join(target.command)}")
    check(target, "--version", version_check)
    check(target, "doctor passes", doctor_check)
    check(target, "project window drawn, shell cell read back", window_check)
    check(target, "hook and mcp-server load no Qt", no_qt_in_subcommands)
    check(target, "ask between two fake agents through its bridge", ask_check)


# --- the artifacts -----------------------------------------------------------------------------------------


def appimage_targets(dist: Path, version: str, work: Path) -> list[Target]:
    image = dist / f"IdeA-{version}-x86_64.AppImage"
    if not image.is_file():
        raise Failed(f"{image} is missing: build it with ./dev package")
    return [
        Target("AppImage (FUSE)", [str(image)], "AppImage"),
        Target("AppImage (extract-and-run)", [str(image)], "AppImage", {"APPIMAGE_EXTRACT_AND_RUN": "1"}),
    ]


def extract_and_run_reuses_its_cache(image: Path, work: Path) -> None:
    """First start extracts into ~/.cache (keyed by the image's hash), the second reuses it."""
    home = work / "cache-home"
    home.mkdir(parents=True)
    env = base_env(home, work / "cache-data", {"APPIMAGE_EXTRACT_AND_RUN": "1"})
    env.pop("XDG_CACHE_HOME", None)
    timings = []
    for _ in range(2):
        started = time.monotonic()
        done = run([str(image), "--version"], env)
        timings.append(time.monotonic() - started)
        if done.returncode != 0:
            raise Failed(f"extract-and-run failed: {done.stderr[-500:]}")
    caches = [p for p in (home / ".cache").rglob("AppRun")] if (home / ".cache").exists() else []
    if len(caches) != 1:
        raise Failed(f"expected one extracted copy under {home / '.cache'}, found {len(caches)}")
    say(f"  ok    AppImage (extract-and-run): one cached extraction, reused "
        f"(first start {timings[0]:.2f} s, second {timings[1]:.2f} s)")


def tarball_target(dist: Path, version: str, work: Path) -> Target:
    archive = dist / f"idea-{version}-linux-x86_64.tar.gz"
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(work)], check=True)
    return Target(".tar.gz (one-dir)", [str(work / f"idea-{version}" / "idea")], "one-dir")


def deb_target(dist: Path, version: str, work: Path, install: bool) -> Target:
    package = dist / f"idea-ide_{version}_amd64.deb"
    fields = subprocess.run(["dpkg-deb", "--field", str(package), "Package", "Version", "Depends"],
                            capture_output=True, text=True, check=True).stdout
    say(f"  ..    .deb control: {' / '.join(line.strip() for line in fields.splitlines()[:2])}")
    if install:
        # As the README says, with apt: it pulls the system libraries the package depends on.
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        done = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", str(package)], env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise Failed(f"apt-get install {package.name} failed:\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
        return Target(".deb (installed)", ["/usr/bin/idea"], "one-dir")
    root = work / "root"
    subprocess.run(["dpkg-deb", "-x", str(package), str(root)], check=True)
    return Target(".deb (unpacked)", [str(root / "opt" / "idea" / "idea")], "one-dir")


def wheel_target(dist: Path, version: str, work: Path) -> Target:
    """A fresh venv and a plain, non-editable `pip install` of the wheel, as `pipx install` does."""
    wheel = dist / f"idea_ide-{version}-py3-none-any.whl"
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise Failed(f"pip install {wheel.name} failed:\n{done.stderr[-2000:]}")
    size = sum(p.stat().st_size for p in venv.rglob("*") if p.is_file() and not p.is_symlink())
    say(f"  ..    wheel: installed in a fresh venv, {size / 2**20:.0f} MiB on disk")
    return Target("wheel (venv)", [str(venv / "bin" / "idea")], "Python package")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=REPO / "dist")
    parser.add_argument("--install-deb", action="store_true", help="install the .deb with dpkg (CI: a throwaway machine)")
    parser.add_argument("--only", nargs="*", choices=["appimage", "tarball", "deb", "wheel"],
                        default=["appimage", "tarball", "deb", "wheel"])
    args = parser.parse_args()
    dist = args.dist.resolve()
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    dev_python = REPO / ".venv" / "bin" / "python"
    if not dev_python.exists():
        say(f"{dev_python} is missing: run ./dev test once first")
        return 1
    started = time.monotonic()
    say(f"Smoke tests of IdeA {version} in {dist}")
    try:
        with tempfile.TemporaryDirectory(prefix="idea-smoke-") as scratch:
            root = Path(scratch)
            targets: list[Target] = []
            if "appimage" in args.only:
                targets += appimage_targets(dist, version, root)
                extract_and_run_reuses_its_cache(Path(targets[0].command[0]), root)
            if "tarball" in args.only:
                targets.append(tarball_target(dist, version, root))
            if "deb" in args.only:
                targets.append(deb_target(dist, version, root, args.install_deb))
            if "wheel" in args.only:
                targets.append(wheel_target(dist, version, root))
            for number, target in enumerate(targets):
                work = root / f"t{number}"
                work.mkdir()
                smoke(target, version, work, dev_python)
    except Failed:
        return 1
    finally:
        if args.install_deb and "deb" in args.only:
            subprocess.run(["dpkg", "--remove", "idea-ide"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)
    say(f"All smoke tests passed in {time.monotonic() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
