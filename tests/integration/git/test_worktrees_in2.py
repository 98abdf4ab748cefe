"""IN-2 and the rest of spec 07 §2 through the worktree service: creation on `idea/<slug>` beside the
repository with the `.worktreeinclude` files copied and the setup command described; ahead/behind; merge
into the base (fast-forward, merge commit, conflicts reported and nothing written); removal refused while
it would lose work until the person confirms what they saw; the main tree never touched; prune at open."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from idea.application.git.worktrees import RemovalNeedsConfirmation, manifest_worktree
from idea.domain.agent import AgentEntry, AgentManifest
from idea.domain.errors import AppError
from idea.domain.git.worktrees import MergeKind
from tests.git_support import GitHome, GitWorld, RepoBuilder

IGNORE = ".env\n*.local\nconfig/secrets/\n"


def commit_in(git: GitHome, worktree: Path, name: str, message: str) -> None:
    """An agent's commit in its worktree: one new file."""
    (worktree / name).write_text(f"{name}\n")
    git.git("add", name, cwd=worktree)
    git.git("commit", "-qm", message, cwd=worktree)


async def with_qa_worktree(tmp_path: Path, git_home: GitHome, factory) -> tuple[RepoBuilder, GitWorld, Path]:  # noqa: ANN001
    """The project, its git workspace, an author for commits, and QA's worktree."""
    b = project(tmp_path)
    world: GitWorld = factory(b.path)
    git_home.set_identity()
    wt = Path((await world.workspace.worktrees.create("QA")).info.path)
    return b, world, wt


def project(tmp_path: Path) -> RepoBuilder:
    b = RepoBuilder(tmp_path / "shop")
    b.commit("base", {".gitignore": IGNORE, "app.py": "print('hi')\n", "config/settings.json": "{}\n"})
    b.write(".env", "TOKEN=abc\n")
    b.write("db.local", "sqlite\n")
    b.write("config/secrets/key.pem", "KEY\n")
    b.write(".worktreeinclude", "# local files agents need\n.env\n*.local\nconfig/secrets\n\n../outside.txt\napp.py\nnothing-*\n")
    return b


async def test_creation_copies_the_worktreeinclude_files_and_describes_the_setup_command(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = project(tmp_path)
    (tmp_path / "outside.txt").write_text("must not be copied\n")
    world: GitWorld = git_world_factory(b.path, setup_command="npm ci")
    created = await world.workspace.worktrees.create("Dev Backend")

    target = tmp_path / "shop.worktrees" / "dev-backend"
    assert created.info.path == str(target) and created.info.branch == "idea/dev-backend"
    assert created.base == "main" and not created.reused
    assert sorted(created.copied) == [".env", "config/secrets/key.pem", "db.local"]
    assert (target / ".env").read_text() == "TOKEN=abc\n"
    assert (target / "config" / "secrets" / "key.pem").read_text() == "KEY\n"
    assert not (target.parent / "outside.txt").exists()
    assert "../outside.txt: outside the main tree, not copied" in created.skipped
    assert "app.py: already in the worktree" in created.skipped  # tracked files come from the checkout
    assert "nothing-*: matches nothing" in created.skipped
    assert created.setup is not None and created.setup.command == "npm ci" and created.setup.cwd == str(target)

    listed = git_home.git("worktree", "list", "--porcelain", cwd=b.path)
    assert f"worktree {target}\n" in listed and "branch refs/heads/idea/dev-backend" in listed
    assert git_home.git("config", "branch.idea/dev-backend.ideaBase", cwd=b.path).strip() == "main"
    assert git_home.git("status", "--porcelain", cwd=target) == ""  # copied files are ignored there too

    # The manifest field of spec 07 §2 for the agent, and creating again reuses the same worktree.
    entry = AgentEntry(agent_id="a1", name="Dev Backend", md_path="agents/dev-backend.md", profile_id="p")
    manifest = AgentManifest(agents=(entry,)).with_worktree("a1", manifest_worktree(created))
    assert manifest.to_json()["agents"][0]["worktree"] == {"branch": "idea/dev-backend", "path": str(target)}
    again = await world.workspace.worktrees.create("Dev Backend")
    assert again.reused and again.info.path == str(target) and again.copied == ()


async def test_ahead_behind_against_the_base_matches_git(tmp_path: Path, git_home: GitHome, git_world_factory) -> None:
    b = project(tmp_path)
    world: GitWorld = git_world_factory(b.path)
    created = await world.workspace.worktrees.create("QA")
    wt = Path(created.info.path)
    git_home.set_identity()
    for n in range(3):
        commit_in(git_home, wt, f"t{n}.txt", f"qa {n}")
    b.commit("main moves", {"app.py": "print('hello')\n"})
    (wt / "draft.txt").write_text("wip\n")

    [view] = await world.workspace.worktrees.views()
    counts = git_home.git("rev-list", "--left-right", "--count", "idea/qa...main", cwd=b.path).split()
    assert (view.ahead, view.behind) == (int(counts[0]), int(counts[1])) == (3, 1)
    assert view.changed_files == 1
    assert view.summary() == "↑3 ↓1 vs main, 1 uncommitted"


async def test_removal_with_uncommitted_changes_is_refused_until_confirmed(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = project(tmp_path)
    world: GitWorld = git_world_factory(b.path)
    created = await world.workspace.worktrees.create("QA")
    wt = Path(created.info.path)
    (wt / "app.py").write_text("print('changed by the agent')\n")

    with pytest.raises(RemovalNeedsConfirmation) as refused:
        await world.workspace.worktrees.remove("qa")
    report = refused.value.report
    assert [e.path for e in report.uncommitted] == ["app.py"] and report.unmerged == ()
    assert "1 uncommitted file:\n  app.py" in refused.value.message
    assert (wt / "app.py").exists()

    (wt / "notes.md").write_text("more work after the person looked\n")
    with pytest.raises(RemovalNeedsConfirmation):  # what was confirmed is no longer the whole story
        await world.workspace.worktrees.remove("qa", confirmed=report)
    assert wt.exists()

    fresh = await world.workspace.worktrees.removal_report("qa")
    await world.workspace.worktrees.remove("qa", confirmed=fresh)
    assert not wt.exists() and not wt.parent.exists()
    assert str(wt) not in git_home.git("worktree", "list", cwd=b.path)
    assert git_home.git("branch", "--list", "idea/qa", cwd=b.path).strip() == "idea/qa"
    assert (b.path / "app.py").read_text() == "print('hi')\n"  # the main tree is untouched


async def test_removal_with_unmerged_commits_needs_confirmation_and_a_merged_one_does_not(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = project(tmp_path)
    world: GitWorld = git_world_factory(b.path)
    wt = Path((await world.workspace.worktrees.create("QA")).info.path)
    git_home.set_identity()
    commit_in(git_home, wt, "t.txt", "qa work")
    with pytest.raises(RemovalNeedsConfirmation) as refused:
        await world.workspace.worktrees.remove("qa")
    assert [c.summary for c in refused.value.report.unmerged] == ["qa work"]

    outcome = await world.workspace.worktrees.merge_into_base("qa")
    assert outcome.kind is MergeKind.FAST_FORWARD
    await world.workspace.worktrees.remove("qa")  # nothing would be lost: no question
    assert not wt.exists()


async def test_merge_into_base_fast_forwards_or_makes_a_merge_commit(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b, world, wt = await with_qa_worktree(tmp_path, git_home, git_world_factory)
    commit_in(git_home, wt, "qa.txt", "qa adds a file")

    ff = await world.workspace.worktrees.merge_into_base("qa")
    assert ff.kind is MergeKind.FAST_FORWARD
    assert git_home.git("rev-parse", "main", cwd=b.path) == git_home.git("rev-parse", "idea/qa", cwd=b.path)
    assert (b.path / "qa.txt").read_text() == "qa.txt\n"  # the checked-out base got the file
    assert git_home.git("status", "--porcelain", "--untracked-files=no", cwd=b.path) == ""

    commit_in(git_home, wt, "qa2.txt", "qa again")
    b.commit("main moves on", {"readme.md": "# shop\n"})
    merged = await world.workspace.worktrees.merge_into_base("qa")
    assert merged.kind is MergeKind.MERGE_COMMIT
    parents = git_home.git("log", "-1", "--format=%P%n%s", "main", cwd=b.path).splitlines()
    assert len(parents[0].split()) == 2 and parents[1] == "Merge branch 'idea/qa' into main"
    assert (b.path / "qa2.txt").exists() and (b.path / "readme.md").exists()
    assert git_home.git("status", "--porcelain", "--untracked-files=no", cwd=b.path) == ""
    assert (await world.workspace.worktrees.merge_into_base("qa")).kind is MergeKind.UP_TO_DATE


async def test_a_conflicting_merge_is_reported_and_writes_nothing(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b, world, wt = await with_qa_worktree(tmp_path, git_home, git_world_factory)
    (wt / "app.py").write_text("print('qa')\n")
    git_home.git("commit", "-am", "qa edits app", cwd=wt)
    b.commit("main edits app", {"app.py": "print('main')\n"})
    head_before = git_home.git("rev-parse", "main", cwd=b.path)

    outcome = await world.workspace.worktrees.merge_into_base("qa")
    assert outcome.kind is MergeKind.CONFLICTS and outcome.conflicts == ("app.py",)
    assert "conflicts in 1 file: app.py. Nothing was changed." in outcome.message()
    assert git_home.git("rev-parse", "main", cwd=b.path) == head_before
    assert (b.path / "app.py").read_text() == "print('main')\n"
    assert not (b.path / ".git" / "MERGE_HEAD").exists()
    assert git_home.git("status", "--porcelain", "--untracked-files=no", cwd=b.path) == ""


async def test_merge_refuses_a_dirty_main_tree(tmp_path: Path, git_home: GitHome, git_world_factory) -> None:
    b, world, wt = await with_qa_worktree(tmp_path, git_home, git_world_factory)
    commit_in(git_home, wt, "qa.txt", "qa")
    b.write("app.py", "print('unsaved')\n")
    with pytest.raises(AppError, match="uncommitted changes \\(app.py\\)"):
        await world.workspace.worktrees.merge_into_base("qa")
    assert (b.path / "app.py").read_text() == "print('unsaved')\n"
    assert not (b.path / "qa.txt").exists()


async def test_a_folder_that_is_not_the_worktree_is_never_deleted(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = project(tmp_path)
    world: GitWorld = git_world_factory(b.path)
    wt = Path((await world.workspace.worktrees.create("QA")).info.path)
    (wt / ".git").write_text(f"gitdir: {b.path / '.git'}\n")  # the folder now claims to be the main repo
    with pytest.raises(AppError, match="is not the worktree qa"):
        await world.workspace.worktrees.remove("qa")
    assert wt.exists()


async def test_stale_worktree_metadata_is_pruned_when_the_project_opens(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = project(tmp_path)
    first: GitWorld = git_world_factory(b.path)
    wt = Path((await first.workspace.worktrees.create("QA")).info.path)
    shutil.rmtree(wt)
    assert "qa" in git_home.git("worktree", "list", "--porcelain", cwd=b.path) + str(wt)

    reopened: GitWorld = git_world_factory(b.path)
    await reopened.workspace.open()
    assert str(wt) not in git_home.git("worktree", "list", "--porcelain", cwd=b.path)
    assert any("pruned stale worktrees qa" in line for line in reopened.diagnostics.lines)
    assert await reopened.workspace.worktrees.views() == []


async def test_the_setup_command_is_kept_per_project_and_described_at_creation(
    tmp_path: Path, git_home: GitHome, git_world_factory
) -> None:
    b = project(tmp_path)
    world: GitWorld = git_world_factory(b.path)
    assert world.workspace.setup_command() is None
    assert (await world.workspace.worktrees.create("QA")).setup is None
    world.workspace.set_setup_command("  uv sync  ")
    record = world.user_data.projects.by_id(world.workspace.project_id)
    assert record is not None and record.worktree_setup == "uv sync"
    assert record.to_json()["worktreeSetup"] == "uv sync"
    created = await world.workspace.worktrees.create("Dev")
    assert created.setup is not None and (created.setup.command, created.setup.cwd) == ("uv sync", created.info.path)
    world.workspace.set_setup_command("")
    assert "worktreeSetup" not in world.user_data.projects.projects[0].to_json()
