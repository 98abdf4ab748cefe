"""The per-agent worktree option end to end in the application (spec 07 §2): the team's use cases on a real
repository (pygit2, the real `git` to cross-check) with fake terminals and fake stores for the rest — an agent
created in its own worktree, the option turned on and off, deleting the agent, the setup command's shell
cell, what the launch writes (project root, run dir, permissions), a missing worktree at launch."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from idea.application.agents.placement_rules import InBackground
from idea.application.git.projects import GitDeps, GitProjects
from idea.application.git.setup_shell import setup_argv
from idea.application.git.worktrees import RemovalNeedsConfirmation
from idea.application.project_service import ProjectService
from idea.application.projects import ProjectRuntime
from idea.domain import layout as lay
from idea.domain.agent import Worktree
from idea.domain.errors import AppError
from idea.domain.events import AgentsChanged
from idea.domain.git.worktrees import WorktreeMissing
from idea.domain.permissions.view import preset
from idea.domain.profile import reference_profile_id
from idea.domain.session import SessionKind
from idea.infrastructure.git.files import LocalWorktreeFiles
from idea.infrastructure.git.pygit2_git import Pygit2Git
from idea.infrastructure.git.worker import ThreadWorker
from idea.infrastructure.stores.reviews import JsonReviewStore
from idea.infrastructure.timer import MonotonicTimer
from tests.fakes import MemoryProjectFolder
from tests.git_support import GitHome, RepoBuilder, ScriptedWatcher
from tests.world import World

CLAUDE = reference_profile_id("claude")


@dataclass
class Team:
    world: World
    runtime: ProjectRuntime
    repo: RepoBuilder
    git: GitHome

    @property
    def root(self) -> Path:
        return self.repo.path

    def saves(self) -> int:
        """Saves of agents.json so far: each one is announced once."""
        return len(self.world.events.of_type(AgentsChanged))

    def branches(self) -> list[str]:
        return self.git.git("branch", "--format=%(refname:short)", cwd=self.root).split()

    def setup_sessions(self) -> list[str]:
        return [s.id for s in self.runtime.sessions.snapshot() if s.kind is SessionKind.SHELL and "setup" in s.label]


@pytest.fixture
async def team(tmp_path: Path, git_home: GitHome) -> AsyncIterator[Team]:
    repo = RepoBuilder(tmp_path / "shop")
    repo.commit("base", {".gitignore": ".env\n", "app.py": "print('hi')\n"})
    repo.write(".env", "TOKEN=abc\n")
    repo.write(".worktreeinclude", ".env\nmissing-*.cfg\n../outside\n")
    world = World()
    worker = ThreadWorker()
    git = GitProjects(
        GitDeps(
            port=Pygit2Git(), worker=worker, watcher=ScriptedWatcher(), files=LocalWorktreeFiles(),
            reviews=JsonReviewStore(), timer=MonotonicTimer(), clock=world.clock, ids=world.ids,
            events=world.events, diagnostics=world.diagnostics, user_data=world.user_data,
        ),
    )
    world.folder = MemoryProjectFolder({str(repo.path)})
    world.deps = replace(world.deps, folder=world.folder, git=git)
    world.service = ProjectService(world.deps, world.user_data)
    try:
        yield Team(world, await world.service.open(str(repo.path)), repo, git_home)
    finally:
        worker.close()


async def opened(team: Team, setup: str | None = None) -> Team:
    if setup is not None:
        assert team.runtime.git is not None
        await team.runtime.git.change_setup_command(setup)
    return team


async def test_an_agent_created_in_its_own_worktree_has_it_copied_set_up_and_saved_once(team: Team) -> None:
    t = await opened(team, setup="npm ci  # node modules")
    saves = t.saves()
    created = await t.runtime.worktrees.create_agent("Dev Backend", CLAUDE, "# Dev\n", own_worktree=True)

    target = t.root.parent / "shop.worktrees" / "dev-backend"
    agent, outcome = created.agent, created.worktree
    assert outcome is not None
    assert agent.worktree == Worktree(branch="idea/dev-backend", path=str(target))
    assert t.runtime.agents.agent(agent.agent_id).worktree == agent.worktree
    assert t.saves() - saves == 1  # one save of agents.json, announced once
    assert "idea/dev-backend" in t.branches()
    assert t.git.git("rev-parse", "--abbrev-ref", "HEAD", cwd=target).strip() == "idea/dev-backend"
    assert (target / ".env").read_text() == "TOKEN=abc\n" and outcome.created.copied == (".env",)
    assert any("outside the main tree" in s for s in outcome.created.skipped)
    assert any("missing-*.cfg" in s for s in outcome.created.skipped)
    text = outcome.describe()
    assert str(target) in text and ".env" in text and "Not copied" in text and "npm ci" in text

    # The setup command runs in a shell cell whose folder is the worktree, shown in the grid.
    [setup_id] = t.setup_sessions()
    assert outcome.setup_session == setup_id
    spec = t.world.terminals.terminals[setup_id].spec
    assert spec is not None and spec.cwd == str(target)
    assert spec.argv == setup_argv(t.world.host.login_shell(), "npm ci  # node modules")
    assert lay.leaf_showing_session(t.runtime.active.root, setup_id) is not None


async def test_the_setup_script_runs_the_command_then_stays_in_an_interactive_shell(tmp_path: Path) -> None:
    argv = setup_argv("/bin/sh", "echo ran > proof.txt  # a comment ends with its line")
    script = argv[2].replace('exec \'/bin/sh\'', "exit 0").replace("exec /bin/sh", "exit 0")
    done = subprocess.run(["/bin/sh", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert (tmp_path / "proof.txt").read_text() == "ran\n"
    assert done.stdout.startswith("$ echo ran > proof.txt")
    assert argv[2].endswith("exec /bin/sh")


async def test_git_refusing_the_worktree_creates_no_agent(team: Team, tmp_path: Path) -> None:
    t = await opened(team)
    t.repo.checkout("main")
    t.git.git("checkout", "-q", "--detach", "HEAD", cwd=t.root)
    with pytest.raises(AppError, match="detached"):
        await t.runtime.worktrees.create_agent("QA", CLAUDE, "", own_worktree=True)
    assert t.runtime.agents.manifest().agents == ()
    assert not (t.root.parent / "shop.worktrees").exists()


async def test_an_agent_the_team_would_refuse_gets_no_worktree(team: Team) -> None:
    t = await opened(team)
    with pytest.raises(AppError, match="profile"):
        await t.runtime.worktrees.create_agent("QA", "no-such-profile", "", own_worktree=True)
    with pytest.raises(AppError, match="'/'"):
        await t.runtime.worktrees.create_agent("QA/bot", CLAUDE, "", own_worktree=True)
    assert t.runtime.agents.manifest().agents == () and "idea/qa" not in t.branches()
    assert not (t.root.parent / "shop.worktrees").exists()


async def test_two_agents_whose_names_give_one_slug_never_share_a_worktree(team: Team) -> None:
    t = await opened(team)
    await t.runtime.worktrees.create_agent("Dev Backend", CLAUDE, "", own_worktree=True)
    with pytest.raises(AppError, match="already runs in the worktree"):
        await t.runtime.worktrees.create_agent("Dev_Backend", CLAUDE, "", own_worktree=True)
    assert [a.name for a in t.runtime.agents.manifest().agents] == ["Dev Backend"]


async def test_turning_the_option_on_later_and_off_again_with_the_loss_confirmed(team: Team) -> None:
    t = await opened(team)
    agent = await t.runtime.agents.create("Architect", CLAUDE, "")
    saves = t.saves()
    outcome = await t.runtime.worktrees.enable(agent.agent_id)
    target = Path(outcome.created.info.path)
    assert t.saves() - saves == 1 and outcome.setup_session is None and not outcome.running
    assert t.runtime.agents.agent(agent.agent_id).worktree == Worktree(branch="idea/architect", path=str(target))

    (target / "draft.md").write_text("unsaved work\n")
    with pytest.raises(RemovalNeedsConfirmation) as refused:
        await t.runtime.worktrees.disable(agent.agent_id)
    assert [e.path for e in refused.value.report.uncommitted] == ["draft.md"]
    assert target.exists() and t.runtime.agents.agent(agent.agent_id).worktree is not None  # nothing changed

    await t.runtime.worktrees.disable(agent.agent_id, refused.value.report)
    assert not target.exists() and t.runtime.agents.agent(agent.agent_id).worktree is None
    assert "idea/architect" in t.branches()  # committed work can still be merged
    assert (t.root / "app.py").exists()  # the main tree is never touched

    again = await t.runtime.worktrees.enable(agent.agent_id)  # the branch is checked out anew
    assert again.created.info.branch == "idea/architect" and Path(again.created.info.path).is_dir()


async def test_a_running_agent_keeps_its_worktree_until_stopped(team: Team) -> None:
    t = await opened(team)
    created = await t.runtime.worktrees.create_agent("QA", CLAUDE, "", own_worktree=True)
    await t.runtime.placement.launch(created.agent.agent_id, InBackground())
    with pytest.raises(AppError, match="stop it before turning its worktree off"):
        await t.runtime.worktrees.disable(created.agent.agent_id)
    with pytest.raises(AppError, match="stop it before deleting it"):
        await t.runtime.worktrees.delete_agent(created.agent.agent_id)
    assert created.worktree is not None and Path(created.worktree.created.info.path).is_dir()

    other = await t.runtime.agents.create("Docs", CLAUDE, "")
    await t.runtime.placement.launch(other.agent_id, InBackground())
    outcome = await t.runtime.worktrees.enable(other.agent_id)
    assert outcome.running and "next launch" in outcome.describe()


async def test_deleting_an_agent_removes_its_worktree_after_the_confirmation(team: Team) -> None:
    t = await opened(team)
    created = await t.runtime.worktrees.create_agent("QA", CLAUDE, "", own_worktree=True)
    assert created.worktree is not None
    target = Path(created.worktree.created.info.path)
    t.git.set_identity()
    (target / "test_new.py").write_text("def test(): pass\n")
    t.git.git("add", "test_new.py", cwd=target)
    t.git.git("commit", "-qm", "a test", cwd=target)
    with pytest.raises(RemovalNeedsConfirmation) as refused:
        await t.runtime.worktrees.delete_agent(created.agent.agent_id)
    assert [c.summary for c in refused.value.report.unmerged] == ["a test"]
    assert t.runtime.agents.manifest().by_id(created.agent.agent_id) is not None

    await t.runtime.worktrees.delete_agent(created.agent.agent_id, refused.value.report)
    assert t.runtime.agents.manifest().agents == () and not target.exists()
    assert "idea/qa" in t.branches()


async def test_the_launch_uses_the_worktree_as_project_root_and_keeps_ideai_in_the_main_project(team: Team) -> None:
    t = await opened(team)
    created = await t.runtime.worktrees.create_agent("QA", CLAUDE, "", own_worktree=True)
    agent_id = created.agent.agent_id
    tree = str(t.root.parent / "shop.worktrees" / "qa")
    await t.world.permissions.update_agent_permissions(str(t.root), agent_id, preset("autonomous").permissions)
    await t.runtime.placement.launch(agent_id, InBackground())

    [request] = t.world.run_dirs.requests
    assert request.project_root == str(t.root) and request.work_root == tree  # run dir, .ideai/ and endpoint stay
    assert request.convention_text.startswith(f"# Project root\n\n{tree}\n")
    assert f"branch `idea/qa`" in request.convention_text and f"main project, {t.root}" in request.convention_text
    assert request.claude_permission_settings["permissions"]["additionalDirectories"] == [tree]
    grants = {g["path"] for g in (request.sandbox_plan or {}).get("grants", [])}
    assert tree in grants and str(t.root) not in grants
    assert f"{t.root}/.ideai/run/{agent_id}" in grants  # its run dir, in the main project
    by_path = {g["path"]: g["access"] for g in (request.sandbox_plan or {}).get("grants", [])}
    assert by_path[str(t.root / ".git")] == ["ro", "rw"]  # where git writes the worktree's commits
    env = t.world.terminals.terminals[t.runtime.runner.live(agent_id).session_id].spec.env  # type: ignore[union-attr]
    assert env["IDEA_PROJECT_ROOT"] == str(t.root)


async def test_a_read_only_policy_gets_no_write_to_the_repository_either(team: Team) -> None:
    t = await opened(team)
    created = await t.runtime.worktrees.create_agent("Reviewer", CLAUDE, "", own_worktree=True)
    await t.world.permissions.update_agent_permissions(str(t.root), created.agent.agent_id,
                                                       preset("reviewer").permissions)
    await t.runtime.placement.launch(created.agent.agent_id, InBackground())
    [request] = t.world.run_dirs.requests
    grants = {g["path"]: g for g in (request.sandbox_plan or {}).get("grants", [])}
    assert str(t.root / ".git") not in grants
    assert grants[str(t.root.parent / "shop.worktrees" / "reviewer")]["access"] == ["ro"]


async def test_a_missing_worktree_stops_the_launch_with_a_choice(team: Team) -> None:
    t = await opened(team)
    created = await t.runtime.worktrees.create_agent("QA", CLAUDE, "", own_worktree=True)
    agent_id = created.agent.agent_id
    tree = Path(t.root.parent / "shop.worktrees" / "qa")
    shutil.rmtree(tree)

    with pytest.raises(WorktreeMissing) as missing:
        await t.runtime.placement.launch(agent_id, InBackground())
    assert missing.value.path == str(tree) and "Recreate" in missing.value.message
    assert t.world.run_dirs.requests == [] and t.runtime.runner.live(agent_id) is None  # nothing written or run

    await t.runtime.worktrees.recreate(agent_id)  # the same branch, the same folder
    assert tree.is_dir() and t.git.git("rev-parse", "--abbrev-ref", "HEAD", cwd=tree).strip() == "idea/qa"
    await t.runtime.placement.launch(agent_id, InBackground())
    assert t.world.run_dirs.requests[-1].work_root == str(tree)
    await t.runtime.placement.stop(agent_id)

    shutil.rmtree(tree)
    await t.runtime.worktrees.use_main_tree(agent_id)
    assert t.runtime.agents.agent(agent_id).worktree is None
    await t.runtime.placement.launch(agent_id, InBackground())
    assert t.world.run_dirs.requests[-1].work_root is None
    assert "idea/qa" in t.branches()
