"""Staging and unstaging by file and by hunk, committing, and branches (create, switch with the dirty-tree
check, delete), on real repositories; results read back with the real `git`."""

from __future__ import annotations

from pathlib import Path

import pytest

from idea.domain.errors import AppError
from idea.domain.git.diff import DiffKind, DiffSpec
from idea.domain.git.model import Identity
from tests.git_support import GitHome, RepoBuilder
from tests.integration.git.test_adapter_in1 import open_repo

ADA = Identity("Ada Tester", "ada@example.org")
TWENTY = "".join(f"{i}\n" for i in range(1, 21))


def two_hunk_change(b: RepoBuilder) -> None:
    b.commit("base", {"n.txt": TWENTY})
    lines = TWENTY.splitlines(keepends=True)
    lines[1] = "two\n"
    lines[17] = "eighteen\n"
    b.write("n.txt", "".join(lines))


def test_staging_one_hunk_puts_only_that_hunk_in_the_index(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    two_hunk_change(b)
    repo = open_repo(b.path)
    file = repo.diff(DiffSpec(DiffKind.UNSTAGED)).file("n.txt")
    assert file is not None and len(file.hunks) == 2
    repo.stage_hunk("n.txt", file.hunks[1])

    cached = git_home.git("diff", "--cached", cwd=b.path)
    assert "+eighteen" in cached and "+two" not in cached
    remaining = git_home.git("diff", cwd=b.path)
    assert "+two" in remaining and "+eighteen" not in remaining
    assert (b.path / "n.txt").read_text().count("\n") == 20  # the working tree is untouched


def test_unstaging_one_hunk_takes_only_that_hunk_out(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    two_hunk_change(b)
    repo = open_repo(b.path)
    repo.stage(["n.txt"])
    staged = repo.diff(DiffSpec(DiffKind.STAGED)).file("n.txt")
    assert staged is not None and len(staged.hunks) == 2
    repo.unstage_hunk("n.txt", staged.hunks[0])
    cached = git_home.git("diff", "--cached", cwd=b.path)
    assert "+eighteen" in cached and "+two" not in cached
    assert "+two" in git_home.git("diff", cwd=b.path)


def test_a_hunk_that_no_longer_matches_is_refused_and_nothing_is_staged(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    two_hunk_change(b)
    repo = open_repo(b.path)
    hunk = repo.diff(DiffSpec(DiffKind.UNSTAGED)).file("n.txt").hunks[0]  # type: ignore[union-attr]
    b.write("n.txt", TWENTY.replace("2\n", "deux\n", 1))  # someone edits the file meanwhile
    with pytest.raises(AppError, match="changed since this diff"):
        repo.stage_hunk("n.txt", hunk)
    assert git_home.git("diff", "--cached", cwd=b.path) == ""


def test_hunks_at_the_end_of_a_file_without_final_newline_stage_exactly(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"e.txt": "a\nb\nc"})
    b.write("e.txt", "a\nB\nc\nd")
    repo = open_repo(b.path)
    hunk = repo.diff(DiffSpec(DiffKind.UNSTAGED)).file("e.txt").hunks[0]  # type: ignore[union-attr]
    assert hunk.lines[-1].no_newline
    repo.stage_hunk("e.txt", hunk)
    assert git_home.git("show", ":e.txt", cwd=b.path) == "a\nB\nc\nd"
    assert git_home.git("diff", cwd=b.path) == ""


def test_unstaging_the_hunk_of_a_new_file_leaves_it_untracked(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.txt": "a\n"})
    b.write("new.txt", "fresh\n")
    repo = open_repo(b.path)
    repo.stage(["new.txt"])
    hunk = repo.diff(DiffSpec(DiffKind.STAGED)).file("new.txt").hunks[0]  # type: ignore[union-attr]
    repo.unstage_hunk("new.txt", hunk)
    assert git_home.git("status", "--porcelain", cwd=b.path) == "?? new.txt\n"


def test_stage_and_unstage_files_including_a_deletion(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.txt": "a\n", "b.txt": "b\n"})
    (b.path / "a.txt").unlink()
    b.write("b.txt", "bb\n")
    b.write("c.txt", "c\n")
    repo = open_repo(b.path)
    repo.stage(["a.txt", "b.txt", "c.txt"])
    assert git_home.git("status", "--porcelain", cwd=b.path) == "D  a.txt\nM  b.txt\nA  c.txt\n"
    repo.unstage(["a.txt", "b.txt", "c.txt"])
    assert git_home.git("status", "--porcelain", cwd=b.path) == " D a.txt\n M b.txt\n?? c.txt\n"


def test_branches_create_switch_and_delete(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.txt": "a\n"})
    repo = open_repo(b.path)
    repo.create_branch("feature/x", None)
    with pytest.raises(AppError, match="already exists"):
        repo.create_branch("feature/x", None)
    with pytest.raises(AppError, match="not a valid branch name"):
        repo.create_branch("bad name", None)
    repo.switch_branch("feature/x")
    assert git_home.git("branch", "--show-current", cwd=b.path).strip() == "feature/x"
    assert [br.name for br in repo.branches()] == ["feature/x", "main"]
    assert repo.branches()[0].is_head

    b.write("a.txt", "on feature\n")
    repo.stage(["a.txt"])
    repo.commit("feature work", ADA)
    with pytest.raises(AppError, match="current branch"):
        repo.delete_branch("feature/x", force=False)
    repo.switch_branch("main")
    assert (b.path / "a.txt").read_text() == "a\n"
    unmerged = "has 1 commit the current branch does not have; deleting the branch would lose it."
    with pytest.raises(AppError, match=unmerged):
        repo.delete_branch("feature/x", force=False)
    repo.delete_branch("feature/x", force=True)
    assert git_home.git("branch", "--list", cwd=b.path).split() == ["*", "main"]


def test_switching_is_refused_when_local_changes_would_be_overwritten(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.txt": "a\n", "other.txt": "o\n"})
    b.branch("topic")
    b.checkout("topic")
    b.commit("topic", {"a.txt": "topic\n"})
    b.checkout("main")
    b.write("a.txt", "my unsaved work\n")
    repo = open_repo(b.path)
    with pytest.raises(AppError, match=r"overwrite your changes to 1 file: a.txt"):
        repo.switch_branch("topic")
    assert (b.path / "a.txt").read_text() == "my unsaved work\n"
    assert git_home.git("branch", "--show-current", cwd=b.path).strip() == "main"
    # A change that does not conflict travels with the switch, as with git.
    b.write("a.txt", "a\n")
    b.write("other.txt", "edited\n")
    repo.switch_branch("topic")
    assert (b.path / "other.txt").read_text() == "edited\n"
    assert (b.path / "a.txt").read_text() == "topic\n"
