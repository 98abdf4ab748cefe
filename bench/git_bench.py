"""The git integration against the `git` command, in the same run:

- status of a 20,000-file repository (50 files modified, 20 untracked): IdeA's pygit2 adapter (the open
  repository reused, as the Git panel does; and a freshly opened one) next to `git status --porcelain`,
  with and without `-uall` (IdeA lists untracked files one by one, as `-uall` does);
- a 10,000-changed-line diff: IdeA computing it (pygit2 + the domain's files, hunks and lines) next to
  `git diff`, and the diff viewer's first screen (rows built, highlighted and painted offscreen).

Runs alternate between the two sides so that the machine's load weighs on both alike.

Usage: python bench/git_bench.py [--runs 15] [--files 20000]
Prints a Markdown report (paste it into bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from idea.domain.git.diff import DiffKind, DiffSpec  # noqa: E402
from idea.infrastructure.git.pygit2_git import Pygit2Git  # noqa: E402

GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.org",
}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, stdout=subprocess.DEVNULL)


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one call; CPU counts this process and the children it waited for (git), so
    the other programs sharing the machine weigh less on it than on the wall clock."""
    wall, cpu, children = time.perf_counter(), time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu + child_cpu) * 1000


def status_repo(root: Path, files: int) -> Path:
    path = root / "status"
    folders = max(1, files // 100)
    for d in range(folders):
        folder = path / f"pkg{d:03d}"
        folder.mkdir(parents=True)
        for f in range(files // folders):
            (folder / f"module_{f:03d}.py").write_text(f"VALUE = {d * 1000 + f}\n" * 8)
    git("init", "-q", "-b", "main", cwd=path)
    git("add", "-A", cwd=path)
    git("commit", "-qm", "import", cwd=path)
    for n in range(50):
        (path / f"pkg{n:03d}" / "module_000.py").write_text("VALUE = 'changed'\n")
    (path / "new").mkdir()
    for n in range(20):
        (path / "new" / f"draft_{n}.py").write_text("x = 1\n")
    time.sleep(1.1)  # out of the racy-timestamp second, then the index's stat data refreshed once for both
    git("update-index", "-q", "--refresh", cwd=path)
    return path


def diff_repo(root: Path) -> Path:
    path = root / "diff"
    path.mkdir()
    (path / "table.py").write_text("".join(f"value_{n} = compute({n}, 'old')\n" for n in range(5000)))
    git("init", "-q", "-b", "main", cwd=path)
    git("add", "-A", cwd=path)
    git("commit", "-qm", "table", cwd=path)
    (path / "table.py").write_text("".join(f"value_{n} = compute({n}, 'new')  # v2\n" for n in range(5000)))
    time.sleep(1.1)
    git("update-index", "-q", "--refresh", cwd=path)
    return path


def git_cli(path: Path, *args: str) -> Callable[[], object]:
    return lambda: subprocess.run(["git", *args], cwd=path, env=GIT_ENV, check=True, stdout=subprocess.DEVNULL)


def alternate(runs: int, sides: dict[str, Callable[[], object]]) -> dict[str, tuple[list[float], list[float]]]:
    """name → (wall samples, CPU samples)."""
    for fn in sides.values():
        fn()  # warm caches once
    samples: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in sides}
    for _ in range(runs):
        for name, fn in sides.items():
            wall, cpu = timed(fn)
            samples[name][0].append(wall)
            samples[name][1].append(cpu)
    return samples


def first_screen(path: Path, runs: int) -> dict[str, list[float]]:
    """The diff viewer's view, offscreen, in a fresh process: the first sample is the cold one (Pygments
    loads and compiles its lexer then)."""
    from PySide6.QtWidgets import QApplication

    from idea.ui.git.diff_view import DiffView

    app = QApplication.instance() or QApplication([])
    port = Pygit2Git()
    repo = port.open(port.discover(str(path)) or "")
    found: dict[str, list[float]] = {"compute": [], "first screen": [], "colours": [], "open": []}
    for _ in range(runs):
        view = DiffView()
        view.resize(1200, 800)
        view.show()
        app.processEvents()
        started = time.perf_counter()
        diff = repo.diff(DiffSpec(DiffKind.UNSTAGED))
        computed = time.perf_counter()
        view.set_diff(diff)
        view.repaint()  # the first screen, painted (its colours are computed right after)
        painted = time.perf_counter()
        view._lex_unlexed()
        view.repaint()
        coloured = time.perf_counter()
        found["compute"].append((computed - started) * 1000)
        found["first screen"].append((painted - computed) * 1000)
        found["colours"].append((coloured - painted) * 1000)
        found["open"].append((painted - started) * 1000)
        view.close()
        view.deleteLater()
        app.processEvents()
    return found


def row(name: str, values: list[float], cpu: list[float] | None = None) -> str:
    cpu_text = f" {statistics.median(cpu):.1f} |" if cpu is not None else " |"
    return f"| {name} | {statistics.median(values):.1f} | {min(values):.1f} | {max(values):.1f} |{cpu_text}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--files", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="idea-git-bench-") as tmp:
        root = Path(tmp)
        status_path = status_repo(root, args.files)
        port = Pygit2Git()
        git_dir = port.discover(str(status_path)) or ""
        kept = port.open(git_dir)
        count = len(kept.status().entries)
        status = alternate(args.runs, {
            "git status --porcelain": git_cli(status_path, "status", "--porcelain"),
            "git status --porcelain -uall": git_cli(status_path, "status", "--porcelain", "-uall"),
            "IdeA status (open repository)": kept.status,
            "IdeA status (opened each time)": lambda: port.open(git_dir).status(),
        })
        diff_path = diff_repo(root)
        diff_repo_open = port.open(port.discover(str(diff_path)) or "")
        changed = diff_repo_open.diff(DiffSpec(DiffKind.UNSTAGED)).changed_lines
        diffs = alternate(args.runs, {
            "git diff": git_cli(diff_path, "diff", "--no-color"),
            "IdeA diff (pygit2 + domain values)": lambda: diff_repo_open.diff(DiffSpec(DiffKind.UNSTAGED)),
        })
        viewer = first_screen(diff_path, args.runs)

    def med(samples: dict[str, tuple[list[float], list[float]]], name: str, which: int) -> float:
        return statistics.median(samples[name][which])

    ours, git_plain, git_all = "IdeA status (open repository)", "git status --porcelain", "git status --porcelain -uall"
    print(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"{args.runs} runs per measure, alternating.\n")
    print(f"### Status of a {args.files:,}-file repository ({count} changed paths)\n")
    print("| Measure | Wall median (ms) | Min | Max | CPU median (ms) |\n|---|---:|---:|---:|---:|")
    for name, (values, cpu) in status.items():
        print(row(name, values, cpu))
    print(f"\nIdeA / `git status`: wall **{med(status, ours, 0) / med(status, git_plain, 0):.2f}×**, CPU "
          f"**{med(status, ours, 1) / med(status, git_plain, 1):.2f}×**; IdeA / `git status -uall`: wall "
          f"**{med(status, ours, 0) / med(status, git_all, 0):.2f}×**, CPU "
          f"**{med(status, ours, 1) / med(status, git_all, 1):.2f}×**\n")
    print(f"### A diff of {changed:,} changed lines\n")
    print("| Measure | Wall median (ms) | Min | Max | CPU median (ms) |\n|---|---:|---:|---:|---:|")
    for name, (values, cpu) in diffs.items():
        print(row(name, values, cpu))
    print(row("Viewer: first screen (rows built, painted)", viewer["first screen"]))
    print(row("Viewer: its colours (Pygments on the lines shown, repainted)", viewer["colours"]))
    print(row("Viewer: open = compute + first screen", viewer["open"]))
    cold = {name: values[0] for name, values in viewer.items()}
    print(f"\nFirst diff of the process (cold): first screen {cold['first screen']:.1f} ms, colours "
          f"{cold['colours']:.1f} ms, open {cold['open']:.1f} ms.")
    ours_diff = "IdeA diff (pygit2 + domain values)"
    print(f"\nIdeA diff / `git diff`: wall **{med(diffs, ours_diff, 0) / med(diffs, 'git diff', 0):.2f}×**, CPU "
          f"**{med(diffs, ours_diff, 1) / med(diffs, 'git diff', 1):.2f}×**")


if __name__ == "__main__":
    main()
