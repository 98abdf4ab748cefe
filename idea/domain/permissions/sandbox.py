"""The operating-system sandbox plan (spec 06 §7) and the file `sandbox-exec` enforces (§8), pure.

`compile_sandbox_plan` is the original IdeA's algorithm: only file capabilities produce grants; grants are
computed per access class (RO fed by `allow read`, RW by `allow write`/`allow delete`); an allowed root is
dropped when a deny of the same class is equal to it, above it or inside it, because Landlock only adds
access and cannot carve a denied path out of a granted tree (fail-closed).

`exec_plan` adds what the CLIs need to work at all (their run dir, temporary folders, their state folders,
`/dev`) and decides which access classes are handled; its JSON is `<runDir>/sandbox-plan.json`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntFlag, StrEnum
from typing import Literal

from idea.domain.permissions.model import Capability, Effect, EffectivePermissions, Posture
from idea.domain.permissions.sandbox_file import (  # noqa: F401 - the plan file's types are part of this module's API
    DEGRADED,
    ENFORCED,
    SANDBOX_PLAN_FILE,
    SANDBOX_PLAN_VERSION,
    UNSUPPORTED,
    ExecGrant,
    ExecPlan,
    exec_plan_from_json,
)

GLOB_META = ("*", "?", "[")


CreateKind = Literal["dir", "file"]


class PathAccess(IntFlag):
    RO = 0b001
    RW = 0b010
    EXEC = 0b100  # reserved: the permission model has no execute capability


@dataclass(frozen=True)
class PathGrant:
    abs_root: str
    access: PathAccess


@dataclass(frozen=True)
class SandboxPlan:
    allowed: tuple[PathGrant, ...]
    default_posture: Posture


@dataclass(frozen=True)
class SandboxContext:
    project_root: str
    run_dir: str


def access_class(capability: Capability) -> PathAccess | None:
    if capability is Capability.READ:
        return PathAccess.RO
    if capability in (Capability.WRITE, Capability.DELETE):
        return PathAccess.RW
    return None


def static_prefix(pattern: str) -> str:
    """The literal folder path before the first glob metacharacter, cut at the last `/` before it
    (`**` → "", `src/**/*.rs` → "src"); a pattern without metacharacters is the path itself."""
    indexes = [pattern.find(ch) for ch in GLOB_META if ch in pattern]
    if indexes:
        head = pattern[: min(indexes)]
        slash = head.rfind("/")
        literal = head[:slash] if slash >= 0 else ""
    else:
        literal = pattern
    return literal.rstrip("/")


def is_descendant(child: str, ancestor: str) -> bool:
    """Strict, component-aware: `src/a` is inside `src`, `src2` is not; "" (the root) holds everything."""
    if not ancestor:
        return bool(child)
    return len(child) > len(ancestor) and child.startswith(ancestor) and child[len(ancestor)] == "/"


def paths_conflict(a: str, b: str) -> bool:
    return a == b or is_descendant(a, b) or is_descendant(b, a)


def join_root(base: str, rel: str) -> str:
    return base if not rel else f"{base}/{rel}"


def compile_sandbox_plan(effective: EffectivePermissions | None, ctx: SandboxContext) -> SandboxPlan | None:
    if effective is None:
        return None
    fences: dict[PathAccess, list[str]] = {PathAccess.RO: [], PathAccess.RW: []}
    for rule in effective.rules:
        klass = access_class(rule.capability)
        if rule.effect is Effect.DENY and klass is not None:
            fences[klass].extend(static_prefix(glob) for glob in rule.globs())
    grants: dict[str, PathAccess] = {}
    for rule in effective.rules:
        klass = access_class(rule.capability)
        if rule.effect is not Effect.ALLOW or klass is None:
            continue
        for glob in rule.globs():
            rel = static_prefix(glob)
            if any(paths_conflict(rel, fence) for fence in fences[klass]):
                continue
            grants[rel] = grants.get(rel, PathAccess(0)) | klass
    base = ctx.project_root.rstrip("/") or "/"
    allowed = tuple(PathGrant(join_root(base, rel), access) for rel, access in grants.items())
    return SandboxPlan(allowed, effective.fallback)


def covers_subtree(glob: str) -> bool:
    """Whether the glob denotes a whole folder (or file) tree: `**`, `docs/**`, `docs`."""
    if glob == "**":
        return True
    base = glob[:-3] if glob.endswith("/**") else glob
    return not any(ch in base for ch in GLOB_META)


def dropped_allows(effective: EffectivePermissions) -> tuple[tuple[Capability, str, str], ...]:
    """(capability, allowed glob, deny glob) for every allow the plan had to drop although the deny does not
    cover all of it: what Landlock blocks beyond what the policy says. A deny covering the whole allowed tree
    is not listed: the policy itself forbids all of it."""
    dropped = []
    for rule in effective.rules:
        klass = access_class(rule.capability)
        if rule.effect is not Effect.ALLOW or klass is None:
            continue
        for glob in rule.globs():
            rel = static_prefix(glob)
            for deny in effective.rules:
                if deny.effect is not Effect.DENY or access_class(deny.capability) is not klass:
                    continue
                blocker = next(
                    (
                        g
                        for g in deny.globs()
                        if paths_conflict(rel, static_prefix(g))
                        and not (covers_subtree(g) and (static_prefix(g) == rel or is_descendant(rel, static_prefix(g))))
                    ),
                    None,
                )
                if blocker is not None:
                    dropped.append((rule.capability, glob, blocker))
                    break
    return tuple(dropped)


# --- what sandbox-exec enforces ---------------------------------------------------------------------


class EnforcementLevel(StrEnum):
    ENFORCED = ENFORCED
    DEGRADED = DEGRADED
    UNSUPPORTED = UNSUPPORTED
    NOT_SET = "notSet"


@dataclass(frozen=True)
class SandboxStatus:
    level: EnforcementLevel
    detail: str = ""  # Degraded: the rights this system cannot restrict; Unsupported: why

    @property
    def enforced(self) -> bool:
        return self.level in (EnforcementLevel.ENFORCED, EnforcementLevel.DEGRADED)

    def label(self) -> str:
        return {
            EnforcementLevel.ENFORCED: "Enforced",
            EnforcementLevel.DEGRADED: "Degraded",
            EnforcementLevel.UNSUPPORTED: "Unsupported",
            EnforcementLevel.NOT_SET: "Not set",
        }[self.level]


NOT_SET = SandboxStatus(EnforcementLevel.NOT_SET)


# Folders relative to HOME that agent CLIs write at start and while working (spec 06 §7).
HOME_STATE_DIRS: tuple[str, ...] = (".claude", ".gemini", ".cache", ".npm", ".config")
HOME_STATE_FILES: tuple[str, ...] = (".claude.json",)
# The devices a CLI writes (the terminal, the null device...), not the whole of /dev: a root process allowed to
# write /dev could write a disk.
DEVICE_WRITES: tuple[str, ...] = (
    "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts",
    "/dev/shm",
)
SYSTEM_READ_DIRS: tuple[str, ...] = (
    "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys", "/dev", "/run", "/nix", "/snap",
)
# The state locations of each CLI family, created before the sandbox applies when missing.
FAMILY_STATE: Mapping[str, tuple[tuple[str, CreateKind], ...]] = {
    "claude": ((".claude", "dir"), (".claude.json", "file")),
    "gemini": ((".gemini", "dir"),),
}


@dataclass(frozen=True)
class AmbientPaths:
    """What the launch knows about the machine; absolute paths, resolved by the caller."""

    run_dir: str
    home: str | None
    temp_dirs: tuple[str, ...]
    codex_home: str | None = None
    extra_state: tuple[str, ...] = ()  # e.g. XDG_CACHE_HOME, XDG_CONFIG_HOME, XDG_STATE_HOME
    writable_extra: tuple[str, ...] = ()  # e.g. the agent's request folder (file-protocol agents)
    readable: tuple[str, ...] = ()  # the CLI's folder, PATH entries, IdeA's installation (used if RO handled)
    cli_family: str | None = None


def exec_plan(plan: SandboxPlan, effective: EffectivePermissions, ambient: AmbientPaths) -> ExecPlan:
    handled_ro = any(
        rule.capability is Capability.READ and rule.effect is Effect.DENY for rule in effective.rules
    )
    grants: dict[str, ExecGrant] = {}

    def add(path: str, *, ro: bool, rw: bool, create: CreateKind | None = None) -> None:
        path = path.rstrip("/") or "/"
        current = grants.get(path)
        if current is not None:
            ro, rw, create = ro or current.ro, rw or current.rw, create or current.create
        grants[path] = ExecGrant(path, ro, rw, create)

    for grant in plan.allowed:
        add(grant.abs_root, ro=bool(grant.access & PathAccess.RO), rw=bool(grant.access & PathAccess.RW))
    own_state = dict(FAMILY_STATE.get(ambient.cli_family or "", ()))
    codex: CreateKind | None = "dir" if ambient.cli_family == "codex" else None
    writable: list[tuple[str, CreateKind | None]] = [(ambient.run_dir, None)]
    writable += [(path, None) for path in DEVICE_WRITES]
    writable += [(path, None) for path in ambient.temp_dirs]
    if ambient.home:
        writable += [(join_root(ambient.home, name), own_state.get(name)) for name in HOME_STATE_DIRS]
        writable += [(join_root(ambient.home, name), own_state.get(name)) for name in HOME_STATE_FILES]
        if ambient.codex_home is None:
            writable.append((join_root(ambient.home, ".codex"), codex))
    if ambient.codex_home:
        writable.append((ambient.codex_home, codex))
    writable += [(path, None) for path in (*ambient.extra_state, *ambient.writable_extra)]
    for path, create in writable:
        add(path, ro=True, rw=True, create=create)
    if handled_ro:
        for path in (*SYSTEM_READ_DIRS, *ambient.readable):
            add(path, ro=True, rw=False)
    return ExecPlan(
        handled_ro=handled_ro,
        handled_rw=True,
        grants=tuple(grants.values()),
        default_posture=plan.default_posture.value,
        require_enforcement=effective.fallback is Effect.DENY,
    )


def writable_roots(plan: SandboxPlan) -> tuple[str, ...]:
    return tuple(grant.abs_root for grant in plan.allowed if grant.access & PathAccess.RW)


def readable_roots(plan: SandboxPlan) -> tuple[str, ...]:
    return tuple(grant.abs_root for grant in plan.allowed if grant.access & PathAccess.RO)


def grants_cover(roots: Iterable[str], abs_path: str) -> bool:
    return any(abs_path == root or is_descendant(abs_path, root.rstrip("/")) or root == "/" for root in roots)
