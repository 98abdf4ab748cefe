"""Sign-in prechecks (spec 02 §9, §13.3): before an agent's CLI starts, IdeA checks that the CLI has
credentials, so a delegated agent never waits unseen on a login screen; when it has none, the launch says
what to do instead of starting a CLI that can only ask for a login."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from idea.domain.profile import Profile
from idea.domain.wording import capitalized


@dataclass(frozen=True)
class LoginCommand:
    """How the person signs the CLI in from a terminal cell: the program and what its environment needs beyond
    a terminal's (Codex: the user's Codex home, which every Codex agent's login links to)."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SignInCheck:
    cli: str  # "Claude Code", "Codex", "Gemini CLI"
    signed_in: bool
    what_to_do: str  # empty when signed in
    login: LoginCommand | None = None  # None: IdeA cannot run the sign-in for the person

    def refusal(self, agent_name: str) -> str:
        """The launch refusal: which agent and which CLI, then the way out, as two sentences."""
        way_out = self.what_to_do.rstrip(". ")
        return f"{self.cli} is not signed in for agent {agent_name}. {capitalized(way_out)}."


class SignInChecker(Protocol):
    def check(self, profile: Profile) -> SignInCheck | None:
        """None when IdeA has no way to tell for this profile's CLI (aider, custom commands)."""
        ...
