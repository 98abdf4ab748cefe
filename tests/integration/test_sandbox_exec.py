"""Spec 06 §8, acceptance PS-7, for real: `idea sandbox-exec` restricts a shell with Landlock before it runs.

The status comes from the same adapter the launch uses. On a kernel with Landlock a sandboxed shell cannot
write outside its grants and can inside (even as root); on a kernel without it the same code path reports
Unsupported, the command runs with a warning, and the summary says so. The run prints which it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from idea.domain.permissions.model import Capability, Effect, PermissionRule, PermissionSet, resolve
from idea.domain.permissions.projection import ProjectionSupport
from idea.domain.permissions.sandbox import (
    AmbientPaths,
    EnforcementLevel,
    SandboxContext,
    compile_sandbox_plan,
    exec_plan,
)
from idea.domain.permissions.summary import render_permission_summary
from idea.infrastructure.sandbox.enforcer import LandlockSandbox
from idea.infrastructure.sandbox.exec_wrapper import EXIT_REFUSED, MAX_ABI_ENV

pytestmark = pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="sandbox-exec wraps CLIs on Linux")

WRITE_SRC_ONLY = PermissionSet(
    (
        PermissionRule(Capability.READ, Effect.ALLOW, ("**",)),
        PermissionRule(Capability.WRITE, Effect.ALLOW, ("src/**",)),
        PermissionRule(Capability.WRITE, Effect.DENY, ("secrets/**",)),
    ),
    Effect.ALLOW,
)


def report(capsys: pytest.CaptureFixture[str], line: str) -> None:
    """Printed in the test run itself (not captured), so a reader of the log knows which path was exercised."""
    with capsys.disabled():
        print(f"\n{line}")


def write_plan(tmp_path: Path, permissions: PermissionSet) -> tuple[Path, Path, object]:
    root = tmp_path / "proj"
    for folder in ("src", "secrets", "docs", ".ideai/run/agent"):
        (root / folder).mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    effective = resolve(permissions, None)
    assert effective is not None
    run_dir = root / ".ideai" / "run" / "agent"
    plan = compile_sandbox_plan(effective, SandboxContext(str(root), str(run_dir)))
    assert plan is not None
    # Temporary folders are not granted here: the test's own folders live under /tmp.
    ambient = AmbientPaths(run_dir=str(run_dir), home=None, temp_dirs=())
    executable = exec_plan(plan, effective, ambient)
    plan_file = run_dir / "sandbox-plan.json"
    plan_file.write_text(json.dumps(executable.to_json()), encoding="utf-8")
    return root, plan_file, (effective, plan, executable)


def run(argv: tuple[str, ...], env: dict[str, str] | None = None, stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, stdin=stdin, check=False)


def shell_writes(root: Path, outside: Path) -> str:
    return (
        f"echo a > '{root}/src/ok.txt' && echo src-ok; "
        f"echo b > '{root}/docs/no.txt' 2>/dev/null && echo docs-written; "
        f"echo c > '{root}/secrets/no.txt' 2>/dev/null && echo secrets-written; "
        f"echo d > '{outside}/no.txt' 2>/dev/null && echo outside-written; "
        f"rm -f '{root}/src/ok.txt' && echo src-removed; "
        f"echo e > '{root}/.ideai/run/agent/note' && echo run-dir-ok; "
        "echo status=$IDEA_SANDBOX_STATUS sandboxed=${IS_SANDBOX:-no}"
    )


def test_ps7_a_sandboxed_shell_writes_only_inside_its_grants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, plan_file, (effective, plan, executable) = write_plan(tmp_path, WRITE_SRC_ONLY)
    sandbox = LandlockSandbox()
    status = sandbox.status(executable)  # type: ignore[arg-type]
    summary = render_permission_summary(effective, status, ProjectionSupport.ADVISORY, plan, str(root))  # type: ignore[arg-type]
    report(capsys, f"PS-7: Landlock on this kernel: {status.label()} ({status.detail})")

    result = run(sandbox.wrap(("sh", "-c", shell_writes(root, tmp_path / "outside")), str(plan_file)))

    lines = result.stdout.split()
    if status.level is EnforcementLevel.UNSUPPORTED:
        assert "advisory only" in result.stderr
        assert {"src-ok", "docs-written", "outside-written", "sandboxed=no"} <= set(lines)
        assert "advisory only on this system" in summary
        return
    assert lines == ["src-ok", "src-removed", "run-dir-ok", f"status={status.level.value}", "sandboxed=1"], result
    assert not (root / "docs" / "no.txt").exists() and not (root / "secrets" / "no.txt").exists()
    assert not (tmp_path / "outside" / "no.txt").exists()
    assert "enforced by the operating system (Landlock): you may create, modify and delete files only under `src/`" in summary
    if os.geteuid() == 0:
        report(capsys, "PS-7: ran as root; the writes outside the grants were refused all the same")


def test_landlock_restricts_a_root_shell_too(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("this check needs a root shell; PS-7 above covers ordinary users")
    root, plan_file, (_e, _p, executable) = write_plan(tmp_path, WRITE_SRC_ONLY)
    sandbox = LandlockSandbox()
    if not sandbox.status(executable).enforced:  # type: ignore[arg-type]
        pytest.skip("no Landlock on this kernel (PS-7 reports Unsupported)")
    target = tmp_path / "outside" / "root.txt"
    result = run(sandbox.wrap(("sh", "-c", f"id -u; echo x > '{target}'"), str(plan_file)))
    assert result.stdout.split()[0] == "0" and "Permission denied" in result.stderr
    assert not target.exists()


def test_the_unsupported_path_runs_the_command_with_a_warning_or_refuses_when_required(tmp_path: Path) -> None:
    root, plan_file, _ = write_plan(tmp_path, WRITE_SRC_ONLY)
    env = {**os.environ, MAX_ABI_ENV: "0"}
    sandbox = LandlockSandbox(environ=env)
    assert sandbox.status(None).level is EnforcementLevel.UNSUPPORTED
    target = tmp_path / "outside" / "free.txt"
    env["IS_SANDBOX"] = "1"  # inherited from elsewhere: never passed on where nothing is enforced
    script = f"echo x > '{target}' && echo $IDEA_SANDBOX_STATUS ${{IS_SANDBOX:-unset}}"
    result = run(sandbox.wrap(("sh", "-c", script), str(plan_file)), env)
    assert result.returncode == 0 and result.stdout.strip() == "unsupported unset" and target.exists()
    assert "IdeA sandbox: Landlock unavailable (Landlock use is disabled by IDEA_LANDLOCK_MAX_ABI=0): file rules are advisory only" in result.stderr

    strict = json.loads(plan_file.read_text())
    strict["requireEnforcement"] = True
    plan_file.write_text(json.dumps(strict))
    refused = run(sandbox.wrap(("sh", "-c", "echo ran"), str(plan_file)), env)
    assert refused.returncode == EXIT_REFUSED and refused.stdout == ""
    assert "this agent's policy requires the operating system to enforce it" in refused.stderr


def test_the_wrapped_command_gets_the_environment_idea_gave_without_what_packaging_added(tmp_path: Path) -> None:
    # From an AppImage, the runtime, AppRun and the bootloader add their variables to the wrapper's own
    # environment; the CLI must get the one IdeA built (the live mount's name included) back.
    _root, plan_file, _ = write_plan(tmp_path, WRITE_SRC_ONLY)
    added = {"APPDIR": "/tmp/.mount_IdeA", "APPIMAGE": "/home/ada/IdeA.AppImage", "ARGV0": "IdeA.AppImage",
             "OWD": "/home/ada", "_PYI_PARENT_PROCESS_LEVEL": "1", "_PYI_ARCHIVE_FILE": "/tmp/.mount_IdeA/idea",
             "QT_PLUGIN_PATH": "/tmp/.mount_IdeA/plugins"}
    given = {"TMUX": "the user's own", "IDEA_AGENT_ID": "a1", "IDEA_LIVE_APPDIR": "/tmp/.mount_IdeA"}
    env = {**os.environ, **added, **given}
    result = run(LandlockSandbox(environ=env).wrap(("env",), str(plan_file)), env)
    seen = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    assert result.returncode == 0, result.stderr
    assert not added.keys() & seen.keys()
    assert {name: seen.get(name) for name in given} == given


def test_from_an_appimage_the_mount_idea_runs_from_is_readable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Agents' bridges and hook relays start from IdeA's own mount (AppRun at its root) under a plan that
    # restricts reading: it must be granted, and the AppImage file's folder too.
    mount = tmp_path / ".mount_IdeAxyz"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(mount / "usr" / "lib" / "idea" / "idea"))
    image = "/home/ada/Apps/IdeA-0.1.0-x86_64.AppImage"
    env = {"APPIMAGE": image, "APPDIR": str(mount)}
    paths = LandlockSandbox(command_prefix=[image], environ=env).installation_paths()
    assert {str(mount), "/home/ada/Apps"} <= set(paths)
    # A variable inherited from another AppImage application grants nothing.
    other = LandlockSandbox(command_prefix=[image], environ={"APPIMAGE": "/opt/Other.AppImage", "APPDIR": "/tmp/x"})
    assert "/tmp/x" not in other.installation_paths()


def test_a_console_script_in_another_venv_grants_that_venv(tmp_path: Path) -> None:
    # pipx: `idea` is a script in a venv of its own; its bridge imports IdeA from that venv's site-packages.
    venv = tmp_path / "pipx" / "venvs" / "idea-ide"
    (venv / "bin").mkdir(parents=True)
    interpreter = tmp_path / "pythons" / "3.11.7"
    (interpreter / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {interpreter / 'bin'}\ninclude-system-site-packages = false\n")
    script = venv / "bin" / "idea"
    script.write_text("#!/bin/sh\n")
    # Its packages, and the standard library of the interpreter it was made from.
    assert {str(venv), str(interpreter)} <= set(LandlockSandbox(command_prefix=[str(script)]).installation_paths())
    plain = tmp_path / "opt" / "bin" / "idea"  # not in a venv: only its folder
    plain.parent.mkdir(parents=True)
    plain.write_text("#!/bin/sh\n")
    paths = LandlockSandbox(command_prefix=[str(plain)]).installation_paths()
    assert str(plain.parent) in paths and str(plain.parent.parent) not in paths


def test_an_older_abi_is_degraded_and_named(tmp_path: Path) -> None:
    _root, plan_file, (_e, _p, executable) = write_plan(tmp_path, WRITE_SRC_ONLY)
    if not LandlockSandbox().status(None).enforced:
        pytest.skip("no Landlock on this kernel (PS-7 reports Unsupported)")
    env = {**os.environ, MAX_ABI_ENV: "2"}
    sandbox = LandlockSandbox(environ=env)
    status = sandbox.status(executable)  # type: ignore[arg-type]
    assert status.level is EnforcementLevel.DEGRADED and status.detail == "Landlock ABI 2 cannot restrict: truncate files"
    result = run(sandbox.wrap(("sh", "-c", f"echo x > '{tmp_path}/outside/x' || echo refused"), str(plan_file)), env)
    assert "refused" in result.stdout and "file rules enforced partly: Landlock ABI 2" in result.stderr


def test_a_ruleset_error_exits_126_without_running_the_command(tmp_path: Path) -> None:
    sandbox = LandlockSandbox()
    if not sandbox.status(None).enforced:
        pytest.skip("no Landlock on this kernel: no ruleset is built (PS-7 reports Unsupported)")
    plan = {"version": 1, "handled": {"ro": False, "rw": True}, "defaultPosture": "allow",
            "requireEnforcement": False, "grants": [{"path": "/proc/self/fd/0", "access": ["rw"]}]}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    marker = tmp_path / "ran"
    # stdin is a pipe: a pipe cannot be granted, so adding the rule fails.
    result = run(sandbox.wrap(("touch", str(marker)), str(plan_file)), stdin=subprocess.PIPE)
    assert result.returncode == EXIT_REFUSED and not marker.exists()
    assert result.stderr.startswith("IdeA sandbox: granting /proc/self/fd/0 failed")


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read the plan"), ("{", "is not valid JSON"), ('{"version": 9}', "unsupported plan version")],
)
def test_a_missing_or_broken_plan_exits_126(tmp_path: Path, content: str | None, message: str) -> None:
    plan_file = tmp_path / "plan.json"
    if content is not None:
        plan_file.write_text(content)
    marker = tmp_path / "ran"
    result = run(LandlockSandbox().wrap(("touch", str(marker)), str(plan_file)))
    assert result.returncode == EXIT_REFUSED and message in result.stderr and not marker.exists()


def test_bad_usage_exits_126() -> None:
    result = run((*LandlockSandbox().wrap((), "x")[:-3], "true"))
    assert result.returncode == EXIT_REFUSED and "usage: idea sandbox-exec" in result.stderr


def test_sandbox_exec_imports_nothing_heavy() -> None:
    """It runs before every sandboxed CLI: no Qt, no pydantic, not even dataclasses or typing."""
    probe = (
        "import sys; import idea.__main__, idea.infrastructure.sandbox.exec_wrapper; "
        "print(sorted(m for m in ('PySide6', 'pydantic', 'mcp', 'asyncio', 'dataclasses', 'typing', "
        "'idea.domain.permissions.model', 'idea.domain.permissions.sandbox') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert loaded.stdout.strip() == "[]"
