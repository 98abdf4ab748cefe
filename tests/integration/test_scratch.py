"""Scratch folders of a profile's Test: new ones under IdeA's own parent, day-old ones cleared first."""

from __future__ import annotations

import os
from pathlib import Path

from idea.infrastructure.scratch import KEEP_SECONDS, new_scratch_dir, scratch_parent

NOW = 1_781_000_000.0


def aged(path: Path, seconds: float) -> Path:
    os.utime(path, (NOW - seconds, NOW - seconds), follow_symlinks=False)
    return path


def test_a_new_scratch_folder_clears_the_day_old_ones_and_nothing_else(tmp_path: Path) -> None:
    parent = tmp_path / "idea-scratch-ada"
    parent.mkdir()
    old = parent / "idea-test-codex-old"
    (old / ".codex").mkdir(parents=True)
    (old / ".codex" / "config.toml").write_text("model = 'x'\n")
    aged(old, KEEP_SECONDS + 60)
    recent = parent / "idea-test-claude-recent"
    recent.mkdir()
    aged(recent, KEEP_SECONDS - 60)
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    link = parent / "idea-test-link"
    link.symlink_to(outside, target_is_directory=True)
    aged(link, KEEP_SECONDS + 60)

    made = Path(new_scratch_dir("idea-test-gemini-", parent, now=NOW))

    assert made.parent == parent and made.name.startswith("idea-test-gemini-") and not any(made.iterdir())
    assert not old.exists()  # a day old: cleared, with what the CLI wrote in it
    assert recent.is_dir()  # younger than a day: kept
    assert not link.exists() and (outside / "keep.txt").read_text() == "mine"  # unlinked, never followed


def test_the_parent_is_made_private_and_named_for_the_user(tmp_path: Path) -> None:
    parent = tmp_path / "idea-scratch-ada"
    made = Path(new_scratch_dir("idea-test-x-", parent, now=NOW))
    assert made.parent == parent
    if os.name == "posix":
        assert parent.stat().st_mode & 0o777 == 0o700
    assert scratch_parent().name.startswith("idea-scratch-")


def test_a_parent_that_is_a_link_is_neither_cleared_nor_used(tmp_path: Path) -> None:
    """In a shared /tmp, someone else could make the parent a link to the user's own files."""
    target = tmp_path / "home-files"
    target.mkdir()
    kept = target / "thesis"
    kept.mkdir()
    aged(kept, KEEP_SECONDS * 30)
    parent = tmp_path / "idea-scratch-ada"
    parent.symlink_to(target, target_is_directory=True)

    made = Path(new_scratch_dir("idea-test-x-", parent, now=NOW))

    assert kept.is_dir() and made.parent != parent and made.parent != target
