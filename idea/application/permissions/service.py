"""The permissions use cases (spec 06 §4, §10): read the project policy with its problems, change it (only
at the person's request), resolve it for one agent, and prepare what a launch applies — the CLI's own
settings, the sandbox plan, the wrapped command line and the honesty summary.

Fail-closed: an unreadable policy, or a problem that could make an agent's policy looser than written,
refuses that agent's launch with the reason; so does a policy that requires enforcement on a system that
has none.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from idea.application.permissions.ports import PermissionStore, SandboxEnforcer
from idea.application.ports import Host
from idea.domain.errors import AppError, ErrorCode
from idea.domain.path_names import last_part
from idea.domain.permissions.document import PermissionsReading
from idea.domain.permissions.model import EffectivePermissions, PermissionSet, ProjectPermissions
from idea.domain.permissions.projection import (
    PermissionProjection,
    ProjectionContext,
    ProjectionSupport,
    project_permissions,
    projection_support,
)
from idea.domain.permissions.sandbox import (
    NOT_SET,
    SANDBOX_PLAN_FILE,
    AmbientPaths,
    ExecPlan,
    PathAccess,
    SandboxContext,
    SandboxPlan,
    SandboxStatus,
    compile_sandbox_plan,
    exec_plan,
)
from idea.domain.permissions.summary import render_permission_summary
from idea.domain.permissions.view import ChangeImpact, change_impact, permission_warnings
from idea.domain.profile import Profile
from idea.domain.project import IDEAI_DIR

RUN_DIR = "run"
REQUESTS_DIR = "requests"
CLI_FAMILIES = ("claude", "codex", "gemini")


@dataclass(frozen=True)
class AgentPolicy:
    """One agent's policy as its launch and the Permissions panel see it."""

    agent_id: str
    effective: EffectivePermissions | None
    support: ProjectionSupport
    projection: PermissionProjection
    plan: SandboxPlan | None
    exec_plan: ExecPlan | None
    status: SandboxStatus  # NOT_SET without a policy
    summary: str | None  # None: no policy (the context file then says so in its own words)
    warnings: tuple[str, ...]
    blocker: str | None  # why this agent must not start now


@dataclass(frozen=True)
class LaunchPermissions:
    policy: AgentPolicy | None  # None: no permission service (every launch as without a policy)
    plan_file: str | None
    wrapper: tuple[str, ...]  # argv prefix up to `--`, empty when the CLI runs unwrapped

    @property
    def summary(self) -> str | None:
        """The context file's "Your permissions" text; None when no policy is set."""
        return self.policy.summary if self.policy is not None else None

    def wrap(self, argv: Sequence[str]) -> tuple[str, ...]:
        return (*self.wrapper, *argv)

    def run_dir_fields(self) -> dict[str, object]:
        """The `RunDirRequest` fields that write this policy into the run dir (spec 06 §5-§8)."""
        if self.policy is None:
            return {}
        projection = self.policy.projection
        plan = self.policy.exec_plan
        return {
            "claude_permission_settings": dict(projection.claude_settings),
            "codex_sandbox_mode": projection.codex_sandbox_mode,
            "codex_approval_policy": projection.codex_approval_policy,
            "permission_args": projection.args,
            "sandbox_plan": plan.to_json() if plan is not None and self.wrapper else None,
        }


@dataclass(frozen=True)
class SaveResult:
    reading: PermissionsReading
    kept_previous_as: str | None  # a copy of a file that had problems, kept before it was replaced


class NoPermissions:
    """Where no permission service is wired (tests of other features): launches apply no policy."""

    def for_launch(
        self, root: str, agent_id: str, agent_name: str, profile: Profile, work_root: str | None = None,
        shared_git_dir: str | None = None,
    ) -> LaunchPermissions:
        return LaunchPermissions(None, None, ())

    def opening_notice(self, root: str, agent_names: Mapping[str, str]) -> str | None:
        return None


class PermissionService:
    def __init__(self, store: PermissionStore, enforcer: SandboxEnforcer, host: Host) -> None:
        self._store = store
        self._enforcer = enforcer
        self._host = host
        self._launched: dict[tuple[str, str], EffectivePermissions | None] = {}  # what each agent last started with

    # -- the policy file --

    def reading(self, root: str) -> PermissionsReading:
        return self._store.read(root)

    def opening_notice(self, root: str, agent_names: Mapping[str, str]) -> str | None:
        """Said as the project opens when its policy file stops agents from starting (they would only say
        so when launched)."""
        notice = self._store.read(root).blocking_notice(agent_names)
        if notice is None:
            return None
        return f"{notice} in .ideai/permissions.json or a policy is saved in Agents ▸ Permissions."

    async def update_project_defaults(self, root: str, permissions: PermissionSet | None) -> SaveResult:
        return self._save(root, self._store.read(root).document.with_project_defaults(permissions))

    async def update_agent_permissions(self, root: str, agent_id: str, permissions: PermissionSet | None) -> SaveResult:
        """Replace one agent's override; None removes it (the project defaults then apply)."""
        return self._save(root, self._store.read(root).document.with_agent_permissions(agent_id, permissions))

    def _save(self, root: str, document: ProjectPermissions) -> SaveResult:
        try:
            kept = self._store.save(root, document)
        except OSError as exc:
            raise AppError(ErrorCode.STORE, f"permissions.json could not be saved: {exc}") from exc
        return SaveResult(self._store.read(root), kept)

    async def resolve_agent_permissions(self, root: str, agent_id: str) -> EffectivePermissions | None:
        """Project defaults and the agent's override combined (deny wins); None when neither is set."""
        return self._store.read(root).document.resolve_for(agent_id)

    # -- one agent --

    def policy_for(
        self,
        root: str,
        agent_id: str,
        profile: Profile,
        reading: PermissionsReading | None = None,
        work_root: str | None = None,
        shared_git_dir: str | None = None,
    ) -> AgentPolicy:
        """`root` holds `permissions.json` and the agent's run dir; `work_root` is the agent's own worktree
        (spec 07 §2), the project root its grants, `additionalDirectories` and summary are relative to. git
        writes a worktree's commits into the repository's own folder (`shared_git_dir`), outside the worktree:
        an agent allowed to write its whole worktree may write there too, as it could in the main tree."""
        reading = reading if reading is not None else self._store.read(root)
        grants_root = work_root or root
        blocker = reading.launch_blocker(agent_id)
        effective = reading.document.resolve_for(agent_id)
        support = projection_support(profile.projector)
        run_dir = run_dir_of(root, agent_id)
        plan = compile_sandbox_plan(effective, SandboxContext(grants_root, run_dir))
        executable = None
        status = NOT_SET
        if plan is not None and effective is not None:
            git_dir = shared_git_dir if work_root and shared_git_dir and _writes_whole(plan, grants_root) else None
            ambient = self._ambient(root, agent_id, profile, (git_dir,) if git_dir else ())
            executable = exec_plan(plan, effective, ambient)
            status = self._enforcer.status(executable)
            if blocker is None and executable.require_enforcement and not status.enforced:
                blocker = (
                    f"its policy's fallback is deny, which needs the operating system to enforce file rules, and "
                    f"this system cannot ({status.detail})"
                )
        unsandboxed_root = self._enforcer.runs_as_root() and not status.enforced
        projection = project_permissions(
            profile.projector, effective, ProjectionContext(grants_root, run_dir, unsandboxed_root), plan
        )
        summary = None
        if effective is not None:
            summary = render_permission_summary(effective, status, support, plan, grants_root)
        warnings = (*permission_warnings(effective, status, support, profile.name), *projection.fidelity)
        return AgentPolicy(agent_id, effective, support, projection, plan, executable, status, summary, warnings,
                           blocker)

    def for_launch(
        self, root: str, agent_id: str, agent_name: str, profile: Profile, work_root: str | None = None,
        shared_git_dir: str | None = None,
    ) -> LaunchPermissions:
        """What this launch applies; AppError when the agent must not start (fail-closed). `work_root`: the
        agent's own worktree, when it runs in one; `shared_git_dir`: its repository's git folder."""
        policy = self.policy_for(root, agent_id, profile, work_root=work_root, shared_git_dir=shared_git_dir)
        self._launched.pop((root, agent_id), None)
        if policy.blocker is not None:
            raise AppError(
                ErrorCode.PERMISSION_DENIED,
                f"{agent_name} was not started: {policy.blocker}. Fix .ideai/permissions.json or open "
                "Agents ▸ Permissions…",
                data={"agentId": agent_id},
            )
        self._launched[(root, agent_id)] = policy.effective
        if policy.exec_plan is None:
            return LaunchPermissions(policy, None, ())
        plan_file = posixpath.join(run_dir_of(root, agent_id), SANDBOX_PLAN_FILE)
        wrapper = self._enforcer.wrap((), plan_file)  # empty where this system has no sandbox adapter
        return LaunchPermissions(policy, plan_file if wrapper else None, wrapper)

    def started_with(self, root: str, agent_id: str) -> tuple[bool, EffectivePermissions | None]:
        """(known, policy) the agent's current process was started with by this IdeA."""
        key = (root, agent_id)
        return key in self._launched, self._launched.get(key)

    def change_impact(self, before: AgentPolicy, after: AgentPolicy, running: bool) -> ChangeImpact | None:
        return change_impact(before.effective, after.effective, running, after.support, after.status)

    def system_status(self) -> SandboxStatus:
        """What this machine can enforce at all (shown at the top of the Permissions panel)."""
        return self._enforcer.status(None)

    # -- what the CLIs need --

    def _ambient(
        self, root: str, agent_id: str, profile: Profile, also_writable: tuple[str, ...] = ()
    ) -> AmbientPaths:
        env = self._host.environ()
        home = env.get("HOME") or None
        temp = [path for path in (env.get("TMPDIR"), "/tmp", "/var/tmp") if path]
        extra_state = tuple(
            env[name] for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME") if env.get(name)
        )
        writable_extra: tuple[str, ...] = also_writable
        if profile.mcp is None:  # a file-protocol agent writes its requests under the project
            writable_extra += (posixpath.join(root, IDEAI_DIR, REQUESTS_DIR, agent_id),)
        readable = list(self._enforcer.installation_paths())
        program = self._host.which(profile.command, env.get("PATH"))
        if program is not None:
            readable.append(posixpath.dirname(program))
        readable += [entry for entry in env.get("PATH", "").split(":") if entry.startswith("/")]
        return AmbientPaths(
            run_dir=run_dir_of(root, agent_id),
            home=home,
            temp_dirs=tuple(dict.fromkeys(temp)),
            codex_home=env.get("CODEX_HOME") or None,
            extra_state=extra_state,
            writable_extra=writable_extra,
            readable=tuple(dict.fromkeys(readable)),
            cli_family=cli_family(profile),
        )


def _writes_whole(plan: SandboxPlan, folder: str) -> bool:
    """Whether the plan lets the agent write the whole folder (not only some of its paths)."""
    base = folder.rstrip("/")
    return any(g.abs_root.rstrip("/") == base and g.access & PathAccess.RW for g in plan.allowed)


def run_dir_of(root: str, agent_id: str) -> str:
    return posixpath.join(root, IDEAI_DIR, RUN_DIR, agent_id)


def cli_family(profile: Profile) -> str | None:
    name = last_part(profile.command).lower()
    return next((family for family in CLI_FAMILIES if name.startswith(family)), None)


# --- the Permissions panel's view of a project's team -------------------------------------------------


@dataclass(frozen=True)
class AgentRef:
    agent_id: str
    name: str
    profile: Profile
    running: bool


@dataclass(frozen=True)
class AgentView:
    agent_id: str
    name: str
    profile_name: str
    running: bool
    override: PermissionSet | None
    policy: AgentPolicy
    restart_to_apply: bool = False  # running under another policy than the saved one


@dataclass(frozen=True)
class PermissionsOverview:
    root: str
    reading: PermissionsReading
    system: SandboxStatus
    agents: tuple[AgentView, ...]

    def agent(self, agent_id: str) -> AgentView | None:
        return next((view for view in self.agents if view.agent_id == agent_id), None)


def overview(service: PermissionService, root: str, agents: Sequence[AgentRef]) -> PermissionsOverview:
    reading = service.reading(root)
    views = []
    for ref in agents:
        policy = service.policy_for(root, ref.agent_id, ref.profile, reading)
        known, started = service.started_with(root, ref.agent_id)
        stale = ref.running and known and started != policy.effective
        override = reading.document.agent_permissions(ref.agent_id)
        views.append(AgentView(ref.agent_id, ref.name, ref.profile.name, ref.running, override, policy, stale))
    return PermissionsOverview(root, reading, service.system_status(), tuple(views))
