"""What the screens say about a CLI that detection did not find: how to install it."""

from __future__ import annotations

import pytest

from idea.application.agents.ports import Detection
from idea.application.agents.profile_descriptions import install_hint
from idea.domain.profile import REFERENCE_PROFILE_SLUGS, Profile, reference_profile_id
from tests.world import file_protocol_profile

NOT_FOUND = Detection(command="x --version", path=None)


def profile(profile_id: str) -> Profile:
    return file_protocol_profile(id=profile_id)


@pytest.mark.parametrize("slug", REFERENCE_PROFILE_SLUGS)
def test_every_reference_cli_not_found_says_how_to_install_it(slug: str) -> None:
    hint = install_hint(profile(reference_profile_id(slug)), NOT_FOUND)
    assert hint is not None and hint.startswith("To install it: ")


def test_the_commands_are_the_clis_own() -> None:
    assert install_hint(profile(reference_profile_id("claude")), NOT_FOUND) == (
        "To install it: npm install -g @anthropic-ai/claude-code"
    )
    assert install_hint(profile(reference_profile_id("gemini")), NOT_FOUND) == (
        "To install it: npm install -g @google/gemini-cli"
    )


def test_no_hint_when_found_when_it_failed_otherwise_or_for_a_custom_profile() -> None:
    claude = profile(reference_profile_id("claude"))
    assert install_hint(claude, Detection(command="claude --version", path="/usr/bin/claude", version="2.1.0")) is None
    assert install_hint(claude, Detection(command="claude --version", path="/usr/bin/claude", error="exit 1")) is None
    assert install_hint(profile("0b8f7c1e-1111-4222-8333-944455556666"), NOT_FOUND) is None
