"""What a launch derives from a profile: the session plan (resume the CLI's own session, assign one, or
start fresh) and its arguments, the context and MCP flag arguments, the working directory."""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.ids import is_uuid
from idea.domain.profile import (
    PATH_PLACEHOLDER,
    PROJECT_ROOT_PLACEHOLDER,
    RUN_DIR_PLACEHOLDER,
    SESSION_ID_PLACEHOLDER,
    Profile,
)
from idea.domain.profile_parts import FlagInjection, FlagMcp


@dataclass(frozen=True)
class NoSession:
    """Fresh launch; the CLI picks its own session id (learned later from a hook or a rollout)."""


@dataclass(frozen=True)
class Assign:
    """Fresh launch with an engine session id chosen by IdeA."""

    session_id: str


@dataclass(frozen=True)
class Resume:
    """Resume the CLI's own session."""

    engine_session_id: str


SessionPlan = NoSession | Assign | Resume


def plan_session(profile: Profile, engine_session_id: str | None, assign_id: str | None = None) -> SessionPlan:
    """Resume with the engine id from providers.json, else assign `assign_id`, else start fresh.

    `engine_session_id` must be the CLI's own id for this conversation and provider (never the pair
    conversation id); a value that is not a UUID is ignored.
    """
    strategy = profile.session
    if strategy is None:
        return NoSession()
    can_resume = bool(strategy.resume_args) or bool(strategy.resume_flag)
    if can_resume and engine_session_id is not None and is_uuid(engine_session_id):
        return Resume(engine_session_id)
    if strategy.assign_flag and assign_id is not None:
        return Assign(assign_id)
    return NoSession()


def session_args(profile: Profile, plan: SessionPlan) -> list[str]:
    strategy = profile.session
    if strategy is None or isinstance(plan, NoSession):
        return []
    if isinstance(plan, Assign):
        return [strategy.assign_flag, plan.session_id] if strategy.assign_flag else []
    if strategy.resume_args:
        return [token.replace(SESSION_ID_PLACEHOLDER, plan.engine_session_id) for token in strategy.resume_args]
    if strategy.resume_flag:
        return [strategy.resume_flag, plan.engine_session_id]
    return []


def injection_args(profile: Profile, context_path: str) -> list[str]:
    """Arguments of the `flag` injection: the template split on whitespace, `{path}` substituted per token."""
    injection = profile.context_injection
    if not isinstance(injection, FlagInjection):
        return []
    return [token.replace(PATH_PLACEHOLDER, context_path) for token in injection.flag.split()]


def mcp_flag_args(profile: Profile, declaration_path: str) -> list[str]:
    """Arguments of the `flag` MCP strategy, built like `injection_args`."""
    if profile.mcp is None or not isinstance(profile.mcp.config, FlagMcp):
        return []
    return [token.replace(PATH_PLACEHOLDER, declaration_path) for token in profile.mcp.config.flag.split()]


def resolve_cwd(profile: Profile, run_dir: str, project_root: str) -> str:
    return profile.cwd_template.replace(RUN_DIR_PLACEHOLDER, run_dir).replace(PROJECT_ROOT_PLACEHOLDER, project_root)
