"""Start-up cost of IdeA's AppImage runtime, against running the same AppRun straight from the AppDir on disk
(the baseline, measured in the same run):

- through FUSE (mount, start AppRun, unmount);
- extract-and-run, first start (a fresh cache each run: hash the file, extract, rename into place);
- extract-and-run, later starts (the extraction reused);
- the runtime alone (`--appimage-offset`: no mount, no child).

The AppRun does nothing (`exit 0`), so the figures are the runtime's own. The small image is the test suite's
probe AppDir; `--payload DIR` adds a second, realistic image holding a copy of DIR (for example the venv's
PySide6 folder, about the size of IdeA's PyInstaller one-dir).

Usage: python bench/appimage_runtime.py [--runs 7] [--payload DIR]
Prints a Markdown report (paste it into bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.packaging.appimage_support import (  # noqa: E402
    RUNTIME_SOURCE,
    assemble_image,
    clean_env,
    make_probe_appdir,
    make_squashfs,
)


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(command: list[str], env: dict[str, str], before=None) -> float:
    if before:
        before()
    started = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def measure(name: str, appdir: Path, runtime: Path, work: Path, runs: int) -> dict[str, object]:
    (appdir / "AppRun").write_text("#!/bin/sh\nexit 0\n")
    (appdir / "AppRun").chmod(0o755)
    started = time.perf_counter()
    squashfs = make_squashfs(appdir, work / f"{name}.squashfs")
    mksquashfs_s = time.perf_counter() - started
    image = assemble_image(runtime, squashfs, work / f"{name}.AppImage")
    cache, tmp = work / f"{name}-cache", work / f"{name}-tmp"
    cache.mkdir()
    tmp.mkdir()
    env = clean_env(cache, tmp)
    extract_env = {**env, "APPIMAGE_EXTRACT_AND_RUN": "1"}

    def fresh_cache() -> None:
        shutil.rmtree(cache)
        cache.mkdir()

    figures: dict[str, list[float]] = {key: [] for key in ("direct", "fuse", "first", "later", "offset")}
    timed([str(image)], extract_env)  # warm the page cache and the extraction
    for _ in range(runs):
        # Interleaved, so that a drift in the machine's speed touches every figure alike.
        figures["direct"].append(timed([str(appdir / "AppRun")], env))
        figures["fuse"].append(timed([str(image)], env))
        figures["later"].append(timed([str(image)], extract_env))
        figures["offset"].append(timed([str(image), "--appimage-offset"], env))
    for _ in range(runs):
        figures["first"].append(timed([str(image)], extract_env, before=fresh_cache))
    payload_bytes = sum(p.stat().st_size for p in appdir.rglob("*") if p.is_file() and not p.is_symlink())
    files = sum(1 for _ in appdir.rglob("*"))
    return {
        "name": name,
        "payload_mb": payload_bytes / 1e6,
        "files": files,
        "image_mb": image.stat().st_size / 1e6,
        "mksquashfs_s": mksquashfs_s,
        **{key: median_ms(values) for key, values in figures.items()},
        "samples": figures,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--payload", type=Path, help="a folder to copy into a second, realistic image")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="appimage-bench-") as scratch:
        work = Path(scratch)
        subprocess.run(["make", "-s", "-C", str(RUNTIME_SOURCE), f"O={work}/build"], check=True)
        runtime = work / "build" / "appimage-runtime"
        results = [measure("small", make_probe_appdir(work / "small"), runtime, work, options.runs)]
        if options.payload:
            appdir = work / "large" / "AppDir"
            shutil.copytree(options.payload, appdir / "usr" / "lib" / "payload", symlinks=True)
            results.append(measure("large", appdir, runtime, work, options.runs))

    print(f"Command: `python bench/appimage_runtime.py --runs {options.runs}"
          + (f" --payload {options.payload}`" if options.payload else "`")
          + f" ({time.strftime('%Y-%m-%d')}; {platform.machine()}, {os.cpu_count()} CPUs, runs as root)\n")
    print("| Image | payload | files | image | mksquashfs |")
    print("|---|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['name']} | {r['payload_mb']:.1f} MB | {r['files']} | {r['image_mb']:.1f} MB | {r['mksquashfs_s']:.1f} s |")
    print("\nMedian wall time of one start (ms), and its ratio to starting AppRun from the AppDir on disk:\n")
    print("| Image | AppRun on disk | FUSE | extract-and-run, first start | extract-and-run, later starts | runtime alone (`--appimage-offset`) |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        base = r["direct"]
        cells = [f"{r['direct']:.1f}"] + [
            f"{r[key]:.1f} ({r[key] / base:.1f}×)" for key in ("fuse", "first", "later", "offset")
        ]
        print(f"| {r['name']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
