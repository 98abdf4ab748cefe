"""The words IdeA watches for are words the installed CLIs can still write.

A CLI that rewords a dialog leaves its literal matching nothing, and an agent waiting on that dialog in the
background raises no attention (Gemini CLI's "Login with Google" became "Sign in with Google"); one that
rewords its usage-limit message is no longer seen as limited (Claude Code's "limit reached" became "You've
hit your session limit"). Each must be found, as written, in the code of the CLI installed from npm, except
the literals that not every version in use draws.
"""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from idea.domain.profile import reference_profile_id
from idea.infrastructure.inspect.engine_sessions import CLAUDE_LIMIT_WORDS
from idea.infrastructure.resources import resources_dir
from tests.realcli.conftest import PACKAGES

pytestmark = pytest.mark.realcli

# Literals that not every version in use draws: wordings the current versions no longer draw, kept for the
# versions that still do, and dialogs that only the newer versions show.
NOT_IN_EVERY_VERSION = {
    "claude": {
        "Do you trust the files in this folder?",  # Claude Code before "Quick safety check"
        "Make auto mode your default",  # 2.1.332 and later ask it once of a user whose settings set defaultMode
    },
}


def shipped_profile(slug: str) -> dict[str, Any]:
    shipped = json.loads((resources_dir() / "profiles" / "reference-profiles.json").read_text(encoding="utf-8"))
    [profile] = [p for p in shipped if p["id"] == reference_profile_id(slug)]
    return dict(profile)


def blocking_prompts(slug: str) -> list[str]:
    return list(shipped_profile(slug).get("blockingPrompts", []))


def package_files(cli: str, package: str) -> Iterator[Path]:
    """Every file of the CLI's npm package and of its platform packages (`@openai/codex-linux-x64`…)."""
    real = Path(os.path.realpath(cli))
    modules = next(parent for parent in real.parents if parent.name == "node_modules")
    scope, name = package.split("/")
    for folder in (modules / scope).iterdir():
        if folder.name.startswith(name):
            yield from (path for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def found_in(files: list[Path], literal: str) -> bool:
    needle = literal.encode("utf-8")
    for path in files:
        if path.stat().st_size == 0:
            continue
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if data.find(needle) != -1:
                return True
    return False


@pytest.mark.parametrize("slug", sorted(PACKAGES))
def test_every_blocking_prompt_literal_is_in_the_installed_cli(slug: str, require_cli: Callable[[str], str]) -> None:
    files = list(package_files(require_cli(slug), PACKAGES[slug]))
    assert files, f"no files found for {PACKAGES[slug]}"
    literals = blocking_prompts(slug)
    assert literals, f"the {slug} reference profile has no blocking prompts"
    missing = [
        literal
        for literal in literals
        if literal not in NOT_IN_EVERY_VERSION.get(slug, set()) and not found_in(files, literal)
    ]
    assert not missing, f"{slug} no longer draws {missing}: update the reference profile's blockingPrompts"


@pytest.mark.parametrize("slug", ["claude", "gemini"])
def test_the_prompt_ready_pattern_is_in_the_installed_cli(slug: str, require_cli: Callable[[str], str]) -> None:
    """Without it, the first delivery to an agent just started waits for its profile's `coldStartMaxMs`."""
    pattern = shipped_profile(slug)["promptReadyPattern"]
    files = list(package_files(require_cli(slug), PACKAGES[slug]))
    assert found_in(files, pattern), f"{slug} no longer draws {pattern!r}: update the reference promptReadyPattern"


def test_claude_code_still_writes_the_limit_messages_idea_reads(require_cli: Callable[[str], str]) -> None:
    """The transcript's API error records and the words of their limit messages (level 1), which the
    reference profile's pattern also reads on the screen (level 2)."""
    files = list(package_files(require_cli("claude"), PACKAGES["claude"]))
    assert found_in(files, "isApiErrorMessage"), "Claude Code no longer marks its API error records"
    for words in ("You've hit your", "You're out of usage credits"):
        assert words.lower() in CLAUDE_LIMIT_WORDS
        assert found_in(files, words), f"Claude Code no longer writes {words!r}: update CLAUDE_LIMIT_WORDS"


# What each reference profile's `rateLimitPattern` reads (docs/agent-clis.md): the CLI's own words and time formats.
LIMIT_WORDS = {
    # "You’ve hit your usage limit. … try again at 3:05 PM." ("%b %-d<th>, %Y %-I:%M %p" past today), or "later".
    "codex": ("ve hit your usage limit", "ry again at ", "ry again later", "%-I:%M %p", "%b %-d"),
    # "Usage limit reached for <model>." then "Access resets at 3:05 PM PST." (Intl, en-US, a short zone name).
    "gemini": ("Usage limit reached for ${", "Access resets at ${", 'timeZoneName: "short"'),
}


@pytest.mark.parametrize("slug", sorted(LIMIT_WORDS))
def test_the_cli_still_writes_the_limit_message_its_reference_profile_reads(
    slug: str, require_cli: Callable[[str], str]
) -> None:
    files = list(package_files(require_cli(slug), PACKAGES[slug]))
    for words in LIMIT_WORDS[slug]:
        assert found_in(files, words), f"{slug} no longer writes {words!r}: update its reference rateLimitPattern"
