"""The launch pipeline's collaborators (spec 02 §10)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from idea.application.agents.ports import (
    PromptLibrary,
    ProviderSessionStore,
    RunDirWriter,
    RunningAgentsStore,
    SessionInspector,
)
from idea.application.agents.profiles import ProfileCatalogue
from idea.application.permissions.service import NoPermissions, PermissionService
from idea.application.sign_in import SignInChecker


@dataclass(frozen=True)
class AgentLaunchDeps:
    """What launching agents needs beyond the project runtime; built once by the composition root."""

    profiles: ProfileCatalogue
    providers: ProviderSessionStore
    running: RunningAgentsStore
    run_dirs: RunDirWriter
    prompts: PromptLibrary
    endpoint_for: Callable[[str], str]  # project id -> absolute path of its MCP socket
    new_token: Callable[[], str]  # a fresh launch secret
    rendezvous_window_ms: int
    rendezvous_ceiling_ms: int
    permissions: PermissionService | NoPermissions = NoPermissions()  # spec 06
    sign_in: SignInChecker | None = None  # whether the CLI has credentials (spec 02 §9)
    sessions: SessionInspector | None = None  # the CLIs' own sessions, for the resume offer (spec 05 §11)
