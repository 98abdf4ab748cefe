"""IN-1: the pygit2 adapter on real temporary repositories — init on `main`, status flags, unified diff and
stats, commit, log order, worktree add/list/prune — each result checked against the real `git` command."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from idea.domain.errors import AppError
from idea.domain.git.diff import DiffKind, DiffSpec, LineKind
from idea.domain.git.model import ChangeKind, Identity
from idea.infrastructure.git.pygit2_git import Pygit2Git
from idea.infrastructure.git.repository import Pygit2Repository
from tests.git_support import GitHome, RepoBuilder

ADA = Identity("Ada Tester", "ada@example.org")


def open_repo(path: Path) -> Pygit2Repository:
    port = Pygit2Git()
    git_dir = port.discover(str(path))
    assert git_dir is not None
    return port.open(git_dir)


def test_init_creates_a_repository_on_main_and_discover_finds_it_from_a_subfolder(
    tmp_path: Path, git_home: GitHome
) -> None:
    port = Pygit2Git()
    assert port.discover(str(tmp_path)) is None
    git_dir = port.init(str(tmp_path / "proj"))
    (tmp_path / "proj" / "src" / "deep").mkdir(parents=True)
    assert port.discover(str(tmp_path / "proj" / "src" / "deep")) == git_dir
    assert git_home.git("symbolic-ref", "HEAD", cwd=tmp_path / "proj").strip() == "refs/heads/main"
    facts = port.open(git_dir).facts()
    assert facts.head.branch == "main" and facts.head.unborn and not facts.bare


def test_status_flags_match_git_status(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"keep.txt": "k\n", "mod.txt": "1\n", "gone.txt": "x\n", "staged.txt": "s\n", "both.txt": "b\n"})
    b.write("mod.txt", "2\n")
    (b.path / "gone.txt").unlink()
    b.write("new.txt", "n\n")
    b.write("dir/nested.txt", "n\n")
    b.write("staged.txt", "s2\n")
    b.write("added.txt", "a\n")
    b.write("both.txt", "b2\n")
    git_home.git("add", "staged.txt", "added.txt", "both.txt", cwd=b.path)
    b.write("both.txt", "b3\n")

    status = open_repo(b.path).status()
    ours = {e.path: (e.staged, e.unstaged) for e in status.entries}
    assert ours == {
        "mod.txt": (None, ChangeKind.MODIFIED),
        "gone.txt": (None, ChangeKind.DELETED),
        "new.txt": (None, ChangeKind.NEW),
        "dir/nested.txt": (None, ChangeKind.NEW),
        "staged.txt": (ChangeKind.MODIFIED, None),
        "added.txt": (ChangeKind.NEW, None),
        "both.txt": (ChangeKind.MODIFIED, ChangeKind.MODIFIED),
    }
    codes = {"M": ChangeKind.MODIFIED, "D": ChangeKind.DELETED, "A": ChangeKind.NEW, "?": ChangeKind.NEW}
    porcelain = git_home.git("status", "--porcelain", "-uall", cwd=b.path).splitlines()
    theirs = {}
    for line in porcelain:
        x, y, path = line[0], line[1], line[3:]
        if x == "?":
            theirs[path] = (None, ChangeKind.NEW)
        else:
            theirs[path] = (codes.get(x), codes.get(y))
    assert ours == theirs
    assert [e.path for e in status.untracked()] == ["dir/nested.txt", "new.txt"]
    assert {e.path for e in status.staged()} == {"added.txt", "both.txt", "staged.txt"}
    assert {e.path for e in status.unstaged()} == {"both.txt", "gone.txt", "mod.txt"}


def test_unified_diff_and_stats_match_git_diff(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.py": "".join(f"line {i}\n" for i in range(1, 31)), "b.txt": "x\ny\n"})
    lines = [f"line {i}\n" for i in range(1, 31)]
    lines[4] = "line five\n"
    lines.insert(20, "inserted\n")
    del lines[27]
    b.write("a.py", "".join(lines))
    b.write("b.txt", "x\n")
    repo = open_repo(b.path)

    diff = repo.diff(DiffSpec(DiffKind.UNSTAGED))
    numstat = {}
    for row in git_home.git("diff", "--numstat", cwd=b.path).splitlines():
        added, removed, path = row.split("\t")
        numstat[path] = (int(added), int(removed))
    assert {f.path: (f.additions, f.deletions) for f in diff.files} == numstat
    assert (diff.additions, diff.deletions) == (sum(a for a, _ in numstat.values()), sum(r for _, r in numstat.values()))

    # The hunks are git's hunks: same headers, same lines, same numbering.
    headers = [line for line in git_home.git("diff", "a.py", cwd=b.path).splitlines() if line.startswith("@@")]
    a_py = diff.file("a.py")
    assert a_py is not None
    assert [h.header for h in a_py.hunks] == headers
    first = a_py.hunks[0]
    removed = [line for line in first.lines if line.kind is LineKind.REMOVED]
    added = [line for line in first.lines if line.kind is LineKind.ADDED]
    assert [(line.old, line.text) for line in removed] == [(5, "line 5")]
    assert [(line.new, line.text) for line in added] == [(5, "line five")]
    assert diff.stats_text() == "2 files changed, +2 −3"


def test_working_tree_diff_includes_untracked_files_and_staged_diff_only_the_index(
    tmp_path: Path, git_home: GitHome
) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.txt": "a\n"})
    b.write("a.txt", "a\nb\n")
    b.write("fresh.txt", "new file\n")
    repo = open_repo(b.path)
    working = repo.diff(DiffSpec(DiffKind.WORKING))
    assert {f.path: f.change for f in working.files} == {"a.txt": ChangeKind.MODIFIED, "fresh.txt": ChangeKind.NEW}
    assert working.base_label == "main" and working.head_label == "working tree"
    assert repo.diff(DiffSpec(DiffKind.STAGED)).files == ()
    repo.stage(["fresh.txt"])
    staged = repo.diff(DiffSpec(DiffKind.STAGED))
    assert [f.path for f in staged.files] == ["fresh.txt"]
    assert git_home.git("diff", "--cached", "--name-only", cwd=b.path).split() == ["fresh.txt"]


def test_commit_then_log_in_topological_and_time_order_as_git_rev_list_date_order(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"f.txt": "1\n"})
    b.diverge("side", {"f.txt": "2\n"}, {"g.txt": "g\n"})
    git_home.set_identity()
    git_home.git("merge", "--no-ff", "-m", "merge side", "side", cwd=b.path)
    repo = open_repo(b.path)
    b.write("h.txt", "h\n")
    repo.stage(["h.txt"])
    made = repo.commit("three\n\nwith a body", ADA)

    assert made.summary == "three" and made.author == "Ada Tester" and made.email == "ada@example.org"
    assert git_home.git("log", "-1", "--format=%H %an <%ae> %s", cwd=b.path).strip() == (
        f"{made.oid} Ada Tester <ada@example.org> three"
    )
    assert git_home.git("status", "--porcelain", cwd=b.path) == ""
    log = repo.log(0, 100)
    assert [c.oid for c in log] == git_home.git("rev-list", "--date-order", "HEAD", cwd=b.path).split()
    assert [c.summary for c in log][:2] == ["three", "merge side"]
    assert len(log[1].parents) == 2
    assert [c.oid for c in repo.log(2, 2)] == [c.oid for c in log[2:4]]


def test_commit_refuses_an_empty_index_and_reports_what_to_do(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"f.txt": "1\n"})
    with pytest.raises(AppError, match="Nothing is staged"):
        open_repo(b.path).commit("nothing", ADA)


def test_worktree_add_list_and_prune_match_git_worktree_list(tmp_path: Path, git_home: GitHome) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"f.txt": "1\n"})
    repo = open_repo(b.path)
    target = tmp_path / "r.worktrees" / "dev"
    info = repo.add_worktree("dev", str(target), "idea/dev", "main")
    assert info.branch == "idea/dev" and info.path == str(target) and not info.prunable
    assert (target / "f.txt").read_text() == "1\n"
    listed = git_home.git("worktree", "list", "--porcelain", cwd=b.path)
    assert f"worktree {target}\n" in listed and "branch refs/heads/idea/dev" in listed
    assert [w.name for w in repo.worktrees()] == ["dev"]

    shutil.rmtree(target)  # the folder disappears behind IdeA's back
    assert repo.worktrees()[0].prunable
    assert repo.prune_worktrees() == ("dev",)
    assert repo.worktrees() == ()
    assert str(target) not in git_home.git("worktree", "list", "--porcelain", cwd=b.path)
    assert git_home.git("branch", "--list", "idea/dev", cwd=b.path).strip() == "idea/dev"  # the work is kept
