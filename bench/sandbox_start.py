"""Start-time cost of `idea sandbox-exec` around a CLI, against starting the CLI directly, in the same run.

For each program, direct and wrapped starts alternate (so load changes hit both alike); each start is timed
from spawn to exit. The wrapper runs exactly as a launch runs it (IdeA's own command prefix, the Reviewer
preset's plan with the ambient grants computed for this machine, Landlock applied when the kernel has it).

    python bench/sandbox_start.py [--runs N] [--cli claude --cli codex ...]
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
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from idea.domain.permissions.model import resolve  # noqa: E402
from idea.domain.permissions.sandbox import AmbientPaths, SandboxContext, compile_sandbox_plan, exec_plan  # noqa: E402
from idea.domain.permissions.view import preset  # noqa: E402
from idea.infrastructure.sandbox.enforcer import LandlockSandbox  # noqa: E402

PROGRAMS = {
    "true": ["/bin/true"],
    "sh -c exit": ["/bin/sh", "-c", "exit 0"],
    "claude --version": ["claude", "--version"],
    "codex --version": ["codex", "--version"],
    "gemini --version": ["gemini", "--version"],
}


def reviewer_plan(folder: Path) -> Path:
    root = folder / "proj"
    run_dir = root / ".ideai" / "run" / "agent"
    run_dir.mkdir(parents=True)
    effective = resolve(preset("reviewer").permissions, None)
    assert effective is not None
    plan = compile_sandbox_plan(effective, SandboxContext(str(root), str(run_dir)))
    assert plan is not None
    home = os.environ.get("HOME")
    ambient = AmbientPaths(run_dir=str(run_dir), home=home, temp_dirs=(tempfile.gettempdir(),), cli_family=None)
    path = run_dir / "sandbox-plan.json"
    path.write_text(json.dumps(exec_plan(plan, effective, ambient).to_json()), encoding="utf-8")
    return path


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--program", action="append", choices=sorted(PROGRAMS), help="default: all found")
    args = parser.parse_args()
    sandbox = LandlockSandbox()
    with tempfile.TemporaryDirectory() as folder:
        plan_file = reviewer_plan(Path(folder))
        status = sandbox.status(None)
        print(f"Landlock on this kernel: {status.label()} ({status.detail}); {args.runs} runs each, alternating\n")
        print("| Program | direct p50 (ms) | wrapped p50 (ms) | added p50 (ms) | direct p90 | wrapped p90 | ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name in args.program or list(PROGRAMS):
            argv = list(PROGRAMS[name])
            found = shutil.which(argv[0])
            if found is None:
                print(f"| {name} | not installed | | | | | |")
                continue
            argv[0] = found
            wrapped = list(sandbox.wrap(argv, str(plan_file)))
            timed(argv), timed(wrapped)  # warm the page cache
            direct_ms, wrapped_ms = [], []
            for _ in range(args.runs):
                direct_ms.append(timed(argv))
                wrapped_ms.append(timed(wrapped))
            d50, w50 = statistics.median(direct_ms), statistics.median(wrapped_ms)
            d90 = statistics.quantiles(direct_ms, n=10)[-1]
            w90 = statistics.quantiles(wrapped_ms, n=10)[-1]
            print(f"| {name} | {d50:.1f} | {w50:.1f} | {w50 - d50:.1f} | {d90:.1f} | {w90:.1f} | {w50 / d50:.2f} |")


if __name__ == "__main__":
    main()
