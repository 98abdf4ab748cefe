"""Unusual repositories: each one gets a clear message from the Git panel's use cases, and nothing is lost or
rewritten behind the person's back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from idea.domain.errors import AppError
from idea.domain.git.diff import DiffKind, DiffSpec
from idea.domain.git.model import RepoState, display_path
from idea.domain.git.rows import note_for
from tests.git_support import GitHome, GitWorld, RepoBuilder


def conflicted_merge(tmp_path: Path, git_home: GitHome) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.txt": "base\n", "b.txt": "b\n"})
    b.diverge("topic", {"a.txt": "main\n"}, {"a.txt": "topic\n"})
    git_home.set_identity()
    git_home.git("merge", "topic", cwd=b.path, check=False)
    assert (b.path / ".git" / "MERGE_HEAD").exists()
    return b


async def test_a_merge_in_progress_is_explained_and_concluded_only_once_resolved(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = conflicted_merge(tmp_path, git_home)
    world: GitWorld = git_world_factory(b.path)
    git = world.workspace.git
    snapshot = await git.snapshot()
    assert snapshot.facts is not None and snapshot.facts.state is RepoState.MERGE
    assert snapshot.facts.conflicted_paths == ("a.txt",)
    assert snapshot.status is not None and [e.path for e in snapshot.status.conflicted()] == ["a.txt"]
    assert any(n.startswith("A merge is in progress. 1 file still conflicts.") for n in snapshot.notices)
    with pytest.raises(AppError, match="still conflict"):
        await git.commit("conclude")
    with pytest.raises(AppError, match="A merge is in progress"):
        await git.switch_branch("topic")
    assert (b.path / ".git" / "MERGE_HEAD").exists()  # nothing aborted behind the person's back

    b.write("a.txt", "resolved\n")
    await git.stage(["a.txt"])
    made = await git.commit("Merge topic")
    assert len(made.parents) == 2
    assert not (b.path / ".git" / "MERGE_HEAD").exists()
    assert git_home.git("log", "-1", "--format=%P", cwd=b.path).split() == list(made.parents)
    assert (await git.snapshot()).facts.state is RepoState.NONE  # type: ignore[union-attr]


async def test_a_rebase_in_progress_allows_staging_only(tmp_path: Path, git_home: GitHome, git_world_factory) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("base", {"a.txt": "base\n"})
    b.diverge("topic", {"a.txt": "main\n"}, {"a.txt": "topic\n"})
    b.checkout("topic")
    git_home.set_identity()
    git_home.git("rebase", "main", cwd=b.path, check=False)
    assert (b.path / ".git" / "rebase-merge").exists()
    world: GitWorld = git_world_factory(b.path)
    git = world.workspace.git
    snapshot = await git.snapshot()
    assert snapshot.facts.state is RepoState.REBASE  # type: ignore[union-attr]
    assert any("A rebase is in progress" in n and "git rebase --continue" in n for n in snapshot.notices)
    b.write("a.txt", "resolved\n")
    await git.stage(["a.txt"])  # resolving is allowed
    with pytest.raises(AppError, match="A rebase is in progress: finish it in a terminal"):
        await git.commit("x")
    with pytest.raises(AppError, match="A rebase is in progress"):
        await git.switch_branch("main")
    assert (b.path / ".git" / "rebase-merge").exists()


async def test_a_detached_head_is_named_and_commits_still_work(tmp_path: Path, git_home: GitHome, git_world_factory) -> None:
    b = RepoBuilder(tmp_path / "r")
    first = b.commit("one", {"a.txt": "1\n"})
    b.commit("two", {"a.txt": "2\n"})
    git_home.git("checkout", "--detach", first, cwd=b.path)
    git_home.set_identity()
    world: GitWorld = git_world_factory(b.path)
    snapshot = await world.workspace.git.snapshot()
    assert snapshot.facts.head.detached and snapshot.facts.head.label() == f"detached at {first[:7]}"  # type: ignore[union-attr]
    assert any(n.startswith(f"HEAD is detached at {first[:7]}") for n in snapshot.notices)
    b.write("a.txt", "detached work\n")
    await world.workspace.git.stage(["a.txt"])
    made = await world.workspace.git.commit("on a detached head")
    assert git_home.git("rev-parse", "HEAD", cwd=b.path).strip() == made.oid
    assert git_home.git("rev-parse", "main", cwd=b.path).strip() != made.oid  # no branch was moved


async def test_a_bare_repository_shows_history_and_refuses_working_tree_gestures(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    source = RepoBuilder(tmp_path / "src")
    source.commit("one", {"a.txt": "1\n"})
    git_home.git("clone", "--bare", str(source.path), str(tmp_path / "bare.git"), cwd=tmp_path)
    world: GitWorld = git_world_factory(tmp_path / "bare.git")
    snapshot = await world.workspace.git.snapshot()
    assert snapshot.facts is not None and snapshot.facts.bare and snapshot.status is None
    assert any(n.startswith("This is a bare repository") for n in snapshot.notices)
    assert [b.name for b in snapshot.branches] == ["main"]
    assert [c.summary for c in (await world.workspace.git.log()).commits] == ["one"]
    with pytest.raises(AppError, match="bare repository has no working tree"):
        await world.workspace.git.stage(["a.txt"])
    with pytest.raises(AppError, match="bare repository"):
        await world.workspace.worktrees.create("QA")


async def test_a_shallow_clone_is_named_and_its_history_stops_at_the_depth(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    source = RepoBuilder(tmp_path / "src")
    for n in range(5):
        source.commit(f"c{n}", {"a.txt": f"{n}\n"})
    git_home.git("clone", "--depth", "2", f"file://{source.path}", str(tmp_path / "shallow"), cwd=tmp_path)
    world: GitWorld = git_world_factory(tmp_path / "shallow")
    snapshot = await world.workspace.git.snapshot()
    assert snapshot.facts.shallow  # type: ignore[union-attr]
    assert "This is a shallow clone: history stops at the depth it was cloned with." in snapshot.notices
    page = await world.workspace.git.log()
    assert [c.summary for c in page.commits] == ["c4", "c3"] and not page.has_more


async def test_a_corrupt_index_is_reported_and_left_as_it_is(tmp_path: Path, git_home: GitHome, git_world_factory) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"a.txt": "1\n"})
    index = b.path / ".git" / "index"
    damaged = bytearray(index.read_bytes())
    damaged[40:47] = b"garbage"
    index.write_bytes(bytes(damaged))
    b.write("a.txt", "2\n")
    world: GitWorld = git_world_factory(b.path)
    snapshot = await world.workspace.git.snapshot()
    assert snapshot.status is None and snapshot.status_error is not None
    assert "the index (.git/index) cannot be read" in snapshot.status_error
    assert "move .git/index aside and run `git reset`" in snapshot.status_error
    assert [c.summary for c in (await world.workspace.git.log()).commits] == ["one"]  # the rest still shows
    with pytest.raises(AppError, match="cannot be read"):
        await world.workspace.git.stage(["a.txt"])
    assert index.read_bytes() == bytes(damaged)  # never rewritten


async def test_a_huge_binary_file_is_listed_staged_and_summarised_not_rendered(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"a.txt": "1\n"})
    blob = (b"\x00\x01binary" + os.urandom(1024)) * 24 * 1024  # ~24 MB with NUL bytes
    b.write("assets/model.bin", blob)
    world: GitWorld = git_world_factory(b.path)
    git = world.workspace.git
    snapshot = await git.snapshot()
    assert [e.path for e in snapshot.status.untracked()] == ["assets/model.bin"]  # type: ignore[union-attr]
    diff = await git.diff(DiffSpec(DiffKind.WORKING))
    [file] = diff.files
    assert file.binary and file.hunks == ()
    assert note_for(file).startswith("Binary file, not shown (0 bytes → 24.")
    await git.stage(["assets/model.bin"])
    git_home.set_identity()
    await git.commit("add the model")
    assert git_home.git("cat-file", "-s", "HEAD:assets/model.bin", cwd=b.path).strip() == str(len(blob))


async def test_file_names_with_spaces_and_non_utf8_bytes(tmp_path: Path, git_home: GitHome, git_world_factory) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"a.txt": "1\n"})
    b.write(b"caf\xe9 menu.txt", "croissant\n")
    b.write("my notes/to do.md", "- one\n")
    world: GitWorld = git_world_factory(b.path)
    git = world.workspace.git
    status = (await git.snapshot()).status
    paths = [e.path for e in status.untracked()]  # type: ignore[union-attr]
    assert paths == ["caf\udce9 menu.txt", "my notes/to do.md"]
    assert display_path(paths[0]) == "caf\\xe9 menu.txt"
    diff = await git.diff(DiffSpec(DiffKind.WORKING))
    assert sorted(f.path for f in diff.files) == sorted(paths)
    await git.stage(paths)
    git_home.set_identity()
    await git.commit("odd names")
    listed = git_home.git("ls-files", "-z", cwd=b.path, raw=True).split("\0")
    assert "caf\xe9 menu.txt" in listed and "my notes/to do.md" in listed  # the exact bytes (read as Latin-1)
    assert git_home.git("status", "--porcelain", cwd=b.path) == ""


async def test_a_stale_index_lock_is_reported_and_left_for_the_person(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = RepoBuilder(tmp_path / "r")
    b.commit("one", {"a.txt": "1\n"})
    lock = b.path / ".git" / "index.lock"
    lock.write_text("")
    b.write("a.txt", "2\n")
    git_home.set_identity()
    world: GitWorld = git_world_factory(b.path)
    git = world.workspace.git
    snapshot = await git.snapshot()
    assert snapshot.facts.index_lock == str(lock)  # type: ignore[union-attr]
    assert snapshot.notices[0].startswith(f"Another git process holds {lock}.")
    assert [e.path for e in snapshot.status.unstaged()] == ["a.txt"]  # type: ignore[union-attr]
    with pytest.raises(AppError, match="Another git process holds"):
        await git.stage(["a.txt"])
    with pytest.raises(AppError, match="Another git process holds"):
        await git.commit("x")
    assert lock.exists()  # IdeA never deletes another process's lock
    lock.unlink()
    await git.stage(["a.txt"])
    assert git_home.git("diff", "--cached", "--name-only", cwd=b.path).split() == ["a.txt"]
