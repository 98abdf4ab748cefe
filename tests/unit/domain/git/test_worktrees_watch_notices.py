"""Worktree names and paths, `.worktreeinclude`, which file events matter, and the panel's notices."""

from __future__ import annotations

from idea.domain.git.model import CommitInfo, Head, RepoFacts, RepoState, StatusEntry
from idea.domain.git.notices import Gesture, notices, refusal
from idea.domain.git.watch import is_relevant_change
from idea.domain.git.worktrees import (
    RemovalReport,
    default_worktree_path,
    is_inside,
    parse_worktree_include,
    worktree_branch,
    worktree_slug,
)


def test_branch_and_default_path_beside_the_repository() -> None:
    assert worktree_branch(worktree_slug("Dev Backend")) == "idea/dev-backend"
    assert default_worktree_path("/home/ada/shop", "qa") == "/home/ada/shop.worktrees/qa"
    assert default_worktree_path("/home/ada/shop/", "qa") == "/home/ada/shop.worktrees/qa"
    assert default_worktree_path("C:\\Users\\ada\\shop", "qa") == "C:\\Users\\ada\\shop.worktrees\\qa"
    assert not is_inside("/home/ada/shop.worktrees/qa", "/home/ada/shop")
    assert is_inside("/home/ada/shop/sub", "/home/ada/shop")


def test_worktreeinclude_lines() -> None:
    parsed = parse_worktree_include("# secrets\n.env\n\n  config/local/ \n/etc/passwd\n../up\nsub/../../x\nC:\\x\n*.local\n")
    assert parsed.patterns == (".env", "config/local", "*.local")
    assert parsed.refused == ("/etc/passwd", "../up", "sub/../../x", "C:\\x")


def test_only_changes_that_can_alter_the_panel_count() -> None:
    assert is_relevant_change("src/app.py", in_git_dir=False)
    assert is_relevant_change(".ideai/agents.json", in_git_dir=False)  # versioned team files
    assert not is_relevant_change(".ideai/live-state.json", in_git_dir=False)
    assert not is_relevant_change(".ideai/run/abc/.mcp.json", in_git_dir=False)
    assert not is_relevant_change(".ideai/reviews/r.json", in_git_dir=False)
    assert not is_relevant_change("src/.app.py.tmp-x1y2", in_git_dir=False)  # an atomic write on its way
    assert is_relevant_change("HEAD", in_git_dir=True) and is_relevant_change("index", in_git_dir=True)
    assert is_relevant_change("refs/heads/idea/qa", in_git_dir=True)
    assert not is_relevant_change("objects/ab/cdef", in_git_dir=True)
    assert not is_relevant_change("index.lock", in_git_dir=True)
    assert not is_relevant_change("logs/HEAD", in_git_dir=True)


def facts(**changes: object) -> RepoFacts:
    base = RepoFacts(git_dir="/r/.git", workdir="/r", head=Head("main", "a" * 40))
    return RepoFacts(**{**base.__dict__, **changes})


def test_notices_and_refusals_by_state() -> None:
    assert notices(facts()) == [] and refusal(facts(), Gesture.COMMIT) is None
    locked = facts(index_lock="/r/.git/index.lock")
    assert notices(locked)[0].startswith("Another git process holds /r/.git/index.lock.")
    assert refusal(locked, Gesture.STAGE) is not None and refusal(locked, Gesture.WORKTREE) is None
    merging = facts(state=RepoState.MERGE, conflicted_paths=("a.txt",))
    assert refusal(merging, Gesture.STAGE) is None
    assert "still conflict" in (refusal(merging, Gesture.COMMIT) or "")
    assert refusal(facts(state=RepoState.MERGE), Gesture.COMMIT) is None  # resolved: committing concludes it
    assert "merge is in progress" in (refusal(merging, Gesture.SWITCH) or "")
    rebasing = facts(state=RepoState.REBASE)
    assert "git rebase --continue" in (refusal(rebasing, Gesture.COMMIT) or "")
    bare = facts(workdir=None)
    assert "bare repository" in (refusal(bare, Gesture.STAGE) or "")
    assert refusal(bare, Gesture.BRANCH) is None and refusal(rebasing, Gesture.BRANCH) is None
    detached = facts(head=Head(None, "b" * 40))
    assert notices(detached) == [f"HEAD is detached at {'b' * 7}: new commits belong to no branch. Create a branch to keep them."]


def test_the_removal_report_lists_what_would_be_lost() -> None:
    report = RemovalReport(
        "qa",
        uncommitted=(StatusEntry("a.py"),),
        unmerged=(CommitInfo("c" * 40, (), "wip", "Ada", "a@x", 0),),
    )
    assert report.loses_work
    assert report.describe("main") == "1 uncommitted file:\n  a.py\n1 commit not merged into main:\n  ccccccc wip"
    assert not RemovalReport("qa").loses_work
