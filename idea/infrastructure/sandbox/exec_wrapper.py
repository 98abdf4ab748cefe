"""`idea sandbox-exec --plan <runDir>/sandbox-plan.json -- <command> <args…>` (spec 06 §8).

The terminal widget forks and execs the CLI itself, so IdeA cannot run code in the child before `exec`;
the launch runs this wrapper instead, which restricts itself with Landlock and then execs the CLI, which
inherits the restriction. Fail-closed: any error while reading the plan or building the ruleset prints
`IdeA sandbox: <reason>` and exits 126 without running the command.

No Qt, no third-party import: it starts in a few tens of milliseconds.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

from idea.domain.permissions.sandbox_file import DEGRADED, ENFORCED, UNSUPPORTED, ExecPlan, exec_plan_from_json
from idea.domain.spawn_env import user_environment
from idea.infrastructure.sandbox import landlock

EXIT_REFUSED = 126  # like a shell's "cannot execute": the command was not run
EXIT_NOT_FOUND = 127
MAX_ABI_ENV = "IDEA_LANDLOCK_MAX_ABI"
STATUS_ENV = "IDEA_SANDBOX_STATUS"  # what the wrapped CLI (and a curious agent) can read
# The convention CLIs read to know they run in a deliberate sandbox (Claude Code then accepts
# bypassPermissions for root); set only once Landlock really restricts the process.
SANDBOXED_ENV = "IS_SANDBOX"
PREFIX = "IdeA sandbox: "
USAGE = "usage: idea sandbox-exec --plan PLAN.json -- COMMAND [ARGS...]"


def max_abi_override(environ: Mapping[str, str]) -> int | None:
    value = environ.get(MAX_ABI_ENV, "").strip()
    return int(value) if value.isdigit() else None


def kernel_check(plan: ExecPlan | None, environ: Mapping[str, str]) -> tuple[str, str, int]:
    """(level, detail, ABI): what Landlock on this machine can do for `plan` (None: for any plan IdeA writes)."""
    abi, reason = landlock.abi_version(max_abi_override(environ))
    if abi < 1:
        return UNSUPPORTED, reason, 0
    wanted = _wanted_handled(plan) if plan is not None else landlock.RW_CLASS | landlock.RO_CLASS
    missing = wanted & ~landlock.rights_for_abi(abi)
    if missing:
        return DEGRADED, f"Landlock ABI {abi} cannot restrict: {landlock.describe_rights(missing)}", abi
    return ENFORCED, f"Landlock ABI {abi}", abi


def _wanted_handled(plan: ExecPlan) -> int:
    return (landlock.RW_CLASS if plan.handled_rw else 0) | (landlock.RO_CLASS if plan.handled_ro else 0)


def _grants(plan: ExecPlan) -> list[landlock.Grant]:
    grants = []
    for grant in plan.grants:
        rights = (landlock.RW_CLASS if grant.rw else 0) | (landlock.RO_CLASS if grant.ro else 0)
        grants.append(landlock.Grant(grant.path, rights))
    return grants


def _refuse(reason: str) -> int:
    sys.stderr.write(f"{PREFIX}{reason}\n")
    sys.stderr.flush()
    return EXIT_REFUSED


def _split(argv: list[str]) -> tuple[str, list[str]] | str:
    if "--" not in argv:
        return USAGE
    cut = argv.index("--")
    options, command = argv[:cut], argv[cut + 1 :]
    if len(options) != 2 or options[0] != "--plan" or not command:
        return USAGE
    return options[1], command


def load_plan(path: str) -> ExecPlan:
    try:
        with open(path, "rb") as handle:
            raw = json.loads(handle.read().decode("utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read the plan {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"the plan {path} is not valid JSON: {exc}") from None
    try:
        return exec_plan_from_json(raw)
    except ValueError as exc:
        raise ValueError(f"the plan {path} is invalid: {exc}") from None


def _create_state_locations(plan: ExecPlan) -> None:
    """A path that does not exist cannot be granted: create the CLI's own state folder or file first."""
    for grant in plan.grants:
        if grant.create is None or os.path.lexists(grant.path):
            continue
        try:
            if grant.create == "dir":
                os.makedirs(grant.path, mode=0o700, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(grant.path), mode=0o700, exist_ok=True)
                descriptor = os.open(grant.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
                with os.fdopen(descriptor, "w") as handle:
                    handle.write("{}\n" if grant.path.endswith(".json") else "")
        except OSError:
            pass  # the grant is then skipped as missing; the CLI reports what it cannot do


def run_sandbox_exec(argv: list[str]) -> int:
    parsed = _split(argv)
    if isinstance(parsed, str):
        return _refuse(parsed)
    plan_path, command = parsed
    try:
        plan = load_plan(plan_path)
    except ValueError as exc:
        return _refuse(str(exc))
    # IdeA gave this wrapper the CLI's environment; what launching the wrapper added (an AppImage's APPDIR,
    # the bootloader's LD_LIBRARY_PATH and state) must not reach the CLI.
    environ = user_environment(os.environ, frozen=bool(getattr(sys, "frozen", False)), deny=())
    level, detail, abi = kernel_check(plan, environ)
    if level == UNSUPPORTED:
        if plan.require_enforcement:
            return _refuse(f"Landlock unavailable ({detail}); this agent's policy requires the operating "
                           "system to enforce it, so it was not started")
        sys.stderr.write(f"{PREFIX}Landlock unavailable ({detail}): file rules are advisory only\n")
    else:
        _create_state_locations(plan)
        try:
            landlock.restrict_self(abi, _wanted_handled(plan), _grants(plan))
        except landlock.LandlockError as exc:
            return _refuse(str(exc.strerror or exc))
        if level == DEGRADED:
            sys.stderr.write(f"{PREFIX}file rules enforced partly: {detail}\n")
    sys.stderr.flush()
    environ[STATUS_ENV] = level
    if level != UNSUPPORTED:
        environ[SANDBOXED_ENV] = "1"
    else:
        environ.pop(SANDBOXED_ENV, None)  # never claim a sandbox that is not there
    try:
        os.execvpe(command[0], command, environ)
    except OSError as exc:
        sys.stderr.write(f"{PREFIX}cannot run {command[0]}: {exc.strerror}\n")
        return EXIT_NOT_FOUND
    return EXIT_NOT_FOUND  # not reached: exec replaces the process
