"""The repository keeps its promises: README's two commands are what CI runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_quick_start_has_exactly_two_commands() -> None:
    commands = quick_start_commands()
    assert commands == ["./dev run", "./dev test"]


def test_ci_runs_the_readme_test_command() -> None:
    test_command = next(c for c in quick_start_commands() if "test" in c)
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_test_command_fails_when_no_test_is_collected() -> None:
    # pytest exits with 5 when it collects nothing; a green run would then hide a broken suite.
    done = subprocess.run(
        ["./dev", "test", "-q", "-k", "no_test_has_this_name_4f1c"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pytest collected no tests" in done.stderr
