"""`sandbox-plan.json`: what `idea sandbox-exec` enforces (spec 06 §8), read and written without heavy imports.

`sandbox-exec` runs before every sandboxed CLI, so this module avoids dataclasses, enum and typing: its import
costs next to nothing.
"""

from __future__ import annotations

SANDBOX_PLAN_VERSION = 1
SANDBOX_PLAN_FILE = "sandbox-plan.json"
POSTURES = ("allow", "ask", "deny")
CREATE_KINDS = ("dir", "file")

# Enforcement levels, as `sandbox-exec` reports them (IDEA_SANDBOX_STATUS) and `EnforcementLevel` names them.
ENFORCED = "enforced"
DEGRADED = "degraded"
UNSUPPORTED = "unsupported"


class ExecGrant:
    """A path the sandboxed CLI keeps: `ro` read access, `rw` write access. `create` ("dir", or "file": an
    empty JSON object) names a CLI state location made when missing, since a missing path cannot be granted
    and the CLI could not create it in a HOME it may not write."""

    __slots__ = ("path", "ro", "rw", "create")

    def __init__(self, path: str, ro: bool, rw: bool, create: str | None = None) -> None:
        self.path = path
        self.ro = ro
        self.rw = rw
        self.create = create

    def _key(self) -> tuple[str, bool, bool, str | None]:
        return (self.path, self.ro, self.rw, self.create)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExecGrant) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"ExecGrant({self.path!r}, ro={self.ro}, rw={self.rw}, create={self.create!r})"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"path": self.path, "access": [n for n, on in (("ro", self.ro), ("rw", self.rw)) if on]}
        if self.create:
            out["create"] = self.create
        return out


class ExecPlan:
    __slots__ = ("handled_ro", "handled_rw", "grants", "default_posture", "require_enforcement")

    def __init__(
        self,
        handled_ro: bool,
        handled_rw: bool,
        grants: tuple[ExecGrant, ...],
        default_posture: str,
        require_enforcement: bool,
    ) -> None:
        self.handled_ro = handled_ro
        self.handled_rw = handled_rw
        self.grants = grants
        self.default_posture = default_posture
        self.require_enforcement = require_enforcement

    def _key(self) -> tuple[object, ...]:
        return (self.handled_ro, self.handled_rw, self.grants, self.default_posture, self.require_enforcement)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExecPlan) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"ExecPlan{self._key()!r}"

    def to_json(self) -> dict[str, object]:
        return {
            "version": SANDBOX_PLAN_VERSION,
            "handled": {"ro": self.handled_ro, "rw": self.handled_rw},
            "grants": [grant.to_json() for grant in self.grants],
            "defaultPosture": self.default_posture,
            "requireEnforcement": self.require_enforcement,
        }


def exec_plan_from_json(raw: object) -> ExecPlan:
    """Parse `sandbox-plan.json`; ValueError names what is wrong (sandbox-exec then refuses to run)."""
    if not isinstance(raw, dict):
        raise ValueError("the plan is not a JSON object")
    if raw.get("version") != SANDBOX_PLAN_VERSION:
        raise ValueError(f"unsupported plan version {raw.get('version')!r}")
    handled = raw.get("handled")
    if not isinstance(handled, dict) or not all(isinstance(handled.get(k), bool) for k in ("ro", "rw")):
        raise ValueError("'handled' must be {\"ro\": bool, \"rw\": bool}")
    raw_grants = raw.get("grants")
    if not isinstance(raw_grants, list):
        raise ValueError("'grants' must be a list")
    grants = []
    for index, entry in enumerate(raw_grants):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"].startswith("/"):
            raise ValueError(f"grants[{index}] needs an absolute 'path'")
        access = entry.get("access")
        if not isinstance(access, list) or not access or any(item not in ("ro", "rw") for item in access):
            raise ValueError(f"grants[{index}].access must list \"ro\" and/or \"rw\"")
        create = entry.get("create")
        if create is not None and create not in CREATE_KINDS:
            raise ValueError(f"grants[{index}].create must be \"dir\" or \"file\"")
        grants.append(ExecGrant(entry["path"], "ro" in access, "rw" in access, create))
    posture = raw.get("defaultPosture")
    if posture not in POSTURES:
        raise ValueError(f"defaultPosture {posture!r} is not allow, ask or deny")
    require = raw.get("requireEnforcement")
    if not isinstance(require, bool):
        raise ValueError("'requireEnforcement' must be true or false")
    return ExecPlan(handled["ro"], handled["rw"], tuple(grants), posture, require)
