"""The Linux artifacts side by side, in one run (issue: install IdeA like a desktop app):

- sizes: the AppImage, the .deb, the .tar.gz, the wheel and the wheel installed in a fresh venv;
- time to the first painted window: the AppImage (FUSE), the AppImage extracted and cached, the frozen
  one-dir, and the venv's console script (`idea --quit-at-first-paint`, offscreen, no project);
- start of `idea hook` (run by agent CLIs on every turn): frozen one-dir, AppImage (while IdeA runs from the
  same image, whose mount it names in IDEA_LIVE_APPDIR, and with none running), venv;
- the extract-and-run fallback: first start (extracts) and second start (reuses the cache).

Runs alternate between the variants (A B C A B C ...) so a drift of the machine's speed touches them alike;
medians are quoted, with ratios against the venv measured in the same run.

    python bench/packaging_bench.py [--dist dist] [--runs 7]

Needs `./dev package` first (dist/ and build/linux/pyinstaller/idea) and the development venv.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOOK_ARGS = ["hook", "--source", "codex", "--endpoint", "/nonexistent/idea-bench.sock", "--project", "0" * 32,
             "--agent", "bench", '{"type": "agent-turn-complete"}']


def tree_size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*"))


def mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def fresh_data_dir(root: Path) -> dict[str, str]:
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "settings.json").write_text(json.dumps({"version": 1, "firstRunCompleted": True}))
    (data / "profiles.json").write_text(json.dumps({"version": 1, "profiles": []}))
    inherited = ("APPIMAGE_EXTRACT_AND_RUN", "LD_LIBRARY_PATH", "IDEA_LIVE_APPDIR")
    env = {k: v for k, v in os.environ.items() if k not in inherited}
    env.update(IDEA_DATA_DIR=str(data), QT_QPA_PLATFORM="offscreen")
    return env


def first_paint_s(command: list[str], env: dict[str, str]) -> float:
    started = time.time()
    done = subprocess.run([*command, "--quit-at-first-paint"], env=env, capture_output=True, text=True, timeout=120)
    line = next((line for line in done.stdout.splitlines() if line.startswith("first-paint ")), None)
    if line is None:
        raise SystemExit(f"{command} painted nothing: {done.stderr[-500:]}")
    return float(line.split()[1]) - started


def wall_s(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, capture_output=True, timeout=60, check=False)
    return time.perf_counter() - started


def alternate(variants: dict[str, Callable[[], float]], runs: int) -> dict[str, list[float]]:
    for measure in variants.values():  # warm-up: page cache, extraction cache
        measure()
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, measure in variants.items():
            samples[name].append(measure())
    return samples


def table(title: str, samples: dict[str, list[float]], baseline: str) -> None:
    print(f"\n| {title} | median | min | max | / {baseline} |\n|---|---:|---:|---:|---:|")
    base = statistics.median(samples[baseline])
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"| {name} | {median * 1000:.0f} ms | {min(values) * 1000:.0f} | {max(values) * 1000:.0f} "
              f"| {median / base:.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist", type=Path, default=REPO / "dist")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    dist = args.dist.resolve()
    image = dist / f"IdeA-{version}-x86_64.AppImage"
    wheel = dist / f"idea_ide-{version}-py3-none-any.whl"
    onedir = REPO / "build" / "linux" / "pyinstaller" / "idea" / "idea"
    for needed in (image, wheel, onedir):
        if not needed.exists():
            raise SystemExit(f"{needed} is missing: run ./dev package first")

    with tempfile.TemporaryDirectory(prefix="idea-bench-") as scratch:
        root = Path(scratch)
        venv = root / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], check=True)
        installed = tree_size(venv)

        print(f"IdeA {version}, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        print("\n| Artifact | Size |\n|---|---:|")
        for path in sorted(dist.glob(f"*{version}*")):
            print(f"| `{path.name}` | {mib(path.stat().st_size)} |")
        print(f"| wheel installed in a fresh venv (with PySide6, Addons included) | {mib(installed)} |")
        print(f"| frozen one-dir, unpacked | {mib(tree_size(onedir.parent))} |")

        env = fresh_data_dir(root / "gui")
        cached_home = root / "cached-home"
        cached_home.mkdir()
        cached = {**env, "APPIMAGE_EXTRACT_AND_RUN": "1", "HOME": str(cached_home)}
        paint = alternate({
            "AppImage (FUSE)": lambda: first_paint_s([str(image)], env),
            "AppImage (extract-and-run, cached)": lambda: first_paint_s([str(image)], cached),
            "frozen one-dir": lambda: first_paint_s([str(onedir)], env),
            "venv console script": lambda: first_paint_s([str(venv / "bin" / "idea")], env),
        }, args.runs)
        table("Time to first painted window", paint, "venv console script")

        # The mount an IdeA started from the image has, named for its children as that IdeA names it.
        mounter = subprocess.Popen([str(image), "--appimage-mount"], stdout=subprocess.PIPE, text=True, env=env)
        try:
            assert mounter.stdout is not None
            live = {**env, "IDEA_LIVE_APPDIR": mounter.stdout.readline().strip()}
            hook = alternate({
                "frozen one-dir": lambda: wall_s([str(onedir), *HOOK_ARGS], env),
                "AppImage, IdeA running from it": lambda: wall_s([str(image), *HOOK_ARGS], live),
                "AppImage, none running (mounts)": lambda: wall_s([str(image), *HOOK_ARGS], env),
                "venv console script": lambda: wall_s([str(venv / "bin" / "idea"), *HOOK_ARGS], env),
            }, args.runs)
        finally:
            mounter.terminate()
            mounter.wait(timeout=30)
        table("`idea hook` start to exit", hook, "venv console script")

        first, second = [], []
        for run in range(args.runs):
            home = root / f"extract-{run}"
            home.mkdir()
            extract_env = {**env, "APPIMAGE_EXTRACT_AND_RUN": "1", "HOME": str(home)}
            first.append(wall_s([str(image), "--version"], extract_env))
            second.append(wall_s([str(image), "--version"], extract_env))
            shutil.rmtree(home)
        table("Extract-and-run `--version`", {"first start (extracts)": first, "second start (cached)": second},
              "second start (cached)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
