"""The Git panel on real repositories: status groups, staging, committing with the author asked when
unset, branches, history with its graph, refresh on changes made outside IdeA, init offered, and the
notices of an unusual repository."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from idea.ui.git.actions import PanelActions
from idea.ui.git.dialogs import IdentityDialog, LineDialog
from idea.ui.git.git_panel import PAGE_NO_REPOSITORY, PAGE_REPOSITORY, TAB_HISTORY
from idea.ui.git.status_view import Group
from tests.git_support import RepoBuilder
from tests.ui.git.conftest import PanelWorld
from tests.ui.accessibility import unnamed_controls


def group_rows(w: PanelWorld, name: str) -> list[str]:
    top = w.panel.status._groups.get(name)
    return [top.child(i).text(0) for i in range(top.childCount())] if top is not None else []


def project_with_changes(w: PanelWorld) -> RepoBuilder:
    b = RepoBuilder(w.project)
    b.commit("Initial import", {"src/app.py": "def f(x):\n    return x\n", "README.md": "# Shop\n"})
    b.write("src/app.py", "def f(x):\n    return x * 2\n")
    b.write("docs/guide.md", "# Guide\n")
    b.write("notes.txt", "staged\n")
    w.git.git("add", "notes.txt", cwd=b.path)
    return b


def test_status_groups_stage_and_commit_asking_for_the_author(panel_world: PanelWorld) -> None:
    w = panel_world
    b = project_with_changes(w)
    w.open()
    w.wait(lambda: w.panel.pages.currentIndex() == PAGE_REPOSITORY and bool(group_rows(w, Group.CHANGES)))
    assert group_rows(w, Group.STAGED) == ["A  notes.txt"]
    assert group_rows(w, Group.CHANGES) == ["M  src/app.py"]
    # .gitignore and the team manifest are IdeA's versioned files; its runtime files never show.
    assert group_rows(w, Group.UNTRACKED) == ["?  .gitignore", "?  .ideai/agents.json", "?  docs/guide.md"]
    assert w.panel.branch_button.text() == "⎇ main"
    assert "no author configured yet" in w.panel.commit.author.text()
    w.screenshot(w.panel, "git-panel-changes")

    w.panel.actions.stage(["src/app.py"])
    w.wait(lambda: "M  src/app.py" in group_rows(w, Group.STAGED))
    assert w.git.git("diff", "--cached", "--name-only", cwd=b.path).split() == ["notes.txt", "src/app.py"]

    w.panel.commit.message.setPlainText("Double f")
    assert w.panel.commit.button.isEnabled()
    w.qtbot.keyClick(w.panel.commit.message, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    w.wait(lambda: isinstance(w.panel.actions.dialog, IdentityDialog))
    dialog = w.panel.actions.dialog
    assert isinstance(dialog, IdentityDialog)
    assert unnamed_controls(dialog) == []
    dialog.name.setText("Ada Tester")
    dialog.email.setText("ada@example.org")
    dialog.buttons.accepted.emit()
    w.wait(lambda: w.git.git("log", "-1", "--format=%s", cwd=b.path).strip() == "Double f")
    assert w.git.git("log", "-1", "--format=%an <%ae>", cwd=b.path).strip() == "Ada Tester <ada@example.org>"
    assert w.git.git("config", "user.name", cwd=b.path).strip() == "Ada Tester"  # this repository only
    w.wait(lambda: group_rows(w, Group.STAGED) == [] and w.panel.commit.message.toPlainText() == "")
    assert "Committed" in w.panel.message.text()


def test_changes_made_outside_idea_appear_without_a_manual_refresh(panel_world: PanelWorld) -> None:
    w = panel_world
    b = project_with_changes(w)
    w.open()
    w.wait(lambda: group_rows(w, Group.CHANGES) == ["M  src/app.py"])
    (b.path / "README.md").write_text("# Shop, edited in a terminal\n")
    w.wait(lambda: group_rows(w, Group.CHANGES) == ["M  README.md", "M  src/app.py"])
    w.git.set_identity()
    w.git.git("commit", "-qam", "committed by an agent", cwd=b.path)
    w.wait(lambda: group_rows(w, Group.CHANGES) == [] and group_rows(w, Group.STAGED) == [])
    w.git.git("checkout", "-qb", "idea/qa", cwd=b.path)
    w.wait(lambda: w.panel.branch_button.text() == "⎇ idea/qa")


def test_init_is_offered_when_the_project_has_no_repository(panel_world: PanelWorld) -> None:
    w = panel_world
    w.open()
    w.wait(lambda: w.panel.pages.currentIndex() == PAGE_NO_REPOSITORY)
    assert "is not in a git repository" in w.panel.no_repo_text.text()
    w.screenshot(w.panel, "git-panel-no-repository")
    w.qtbot.mouseClick(w.panel.init_button, Qt.MouseButton.LeftButton)
    w.wait(lambda: w.panel.pages.currentIndex() == PAGE_REPOSITORY)
    assert w.git.git("symbolic-ref", "HEAD", cwd=w.project).strip() == "refs/heads/main"
    assert w.panel.branch_button.text() == "⎇ main"


def test_history_pages_and_graph(panel_world: PanelWorld) -> None:
    w = panel_world
    b = RepoBuilder(w.project)
    b.commit("base", {"a.txt": "0\n"})
    b.branch("side")
    b.checkout("side")
    b.commit("side work", {"s.txt": "s\n"})
    b.checkout("main")
    for n in range(130):
        b.commit(f"commit {n}", {"a.txt": f"{n}\n"})
    w.git.set_identity()
    w.git.git("merge", "-q", "--no-ff", "-m", "merge side", "side", cwd=b.path)
    w.open()
    w.wait(lambda: w.panel.pages.currentIndex() == PAGE_REPOSITORY)
    w.panel.tabs.setCurrentIndex(TAB_HISTORY)
    model = w.panel.history.log.log
    w.wait(lambda: model.rowCount() == 100)
    assert model.commits[0].summary == "merge side" and model.rows[0].merge
    assert model.rows[1].width == 2  # the side branch's lane runs beside main
    assert w.panel.history.more_button.isVisible()
    w.screenshot(w.panel, "git-panel-history")
    w.qtbot.mouseClick(w.panel.history.more_button, Qt.MouseButton.LeftButton)
    w.wait(lambda: model.rowCount() == 133)
    assert [c.oid for c in model.commits] == w.git.git("rev-list", "--date-order", "HEAD", cwd=b.path).split()
    assert not w.panel.history.more_button.isVisible()
    assert model.rows[-1].top == ((0, 0), (1, 0))  # the side lane joins main at the fork


def test_branches_from_the_switcher(panel_world: PanelWorld) -> None:
    w = panel_world
    b = RepoBuilder(w.project)
    b.commit("base", {"a.txt": "0\n"})
    w.open()
    w.wait(lambda: w.panel.branch_button.text() == "⎇ main")
    actions: PanelActions = w.panel.actions
    dialog = actions.ask_new_branch()
    assert isinstance(dialog, LineDialog)
    assert unnamed_controls(dialog) == []
    dialog.field.setText("feature/login")
    dialog.buttons.accepted.emit()
    w.wait(lambda: w.panel.branch_button.text() == "⎇ feature/login")
    menu_texts = [a.text() for a in w.panel.branch_button.menu_.actions()]
    assert "main" in menu_texts and "New branch…" in menu_texts
    assert any("Push / fetch / pull request" in text for text in menu_texts)
    b.write("a.txt", "unsaved\n")
    b.branch("other")
    w.git.git("commit", "-qam", "x", "--author", "A <a@b>", cwd=b.path, check=False)
    actions.switch_branch("main")
    w.wait(lambda: w.panel.branch_button.text() == "⎇ main")


def test_a_merge_in_progress_and_a_stale_lock_are_explained_in_the_panel(panel_world: PanelWorld) -> None:
    w = panel_world
    b = RepoBuilder(w.project)
    b.commit("base", {"a.txt": "base\n"})
    b.diverge("topic", {"a.txt": "main\n"}, {"a.txt": "topic\n"})
    w.git.set_identity()
    w.git.git("merge", "topic", cwd=b.path, check=False)
    (b.path / ".git" / "index.lock").write_text("")
    w.open()
    w.wait(lambda: len(w.panel.notice_texts()) == 2)
    texts = w.panel.notice_texts()
    assert texts[0].startswith("Another git process holds") and texts[1].startswith("A merge is in progress.")
    assert group_rows(w, Group.CONFLICTED) == ["U  a.txt"]
    assert not w.panel.commit.button.isEnabled()
    w.screenshot(w.panel, "git-panel-merge-in-progress")
    assert os.path.exists(b.path / ".git" / "index.lock") and os.path.exists(b.path / ".git" / "MERGE_HEAD")
    assert all(isinstance(b, QPushButton) for b in (w.panel.stage_all, w.panel.unstage_all))
