"""The Worktrees tab: each worktree with its branch, folder and ahead/behind; diff vs base; merge into base;
removal asked first, then the list of what would be lost, and done only once that list is confirmed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from idea.domain.git.diff import DiffKind
from idea.ui.git.dialogs import LossDialog
from idea.ui.git.git_panel import TAB_WORKTREES
from tests.git_support import RepoBuilder
from tests.ui.git.conftest import PanelWorld


def accept(box: object) -> None:
    assert isinstance(box, QMessageBox)
    button = next(b for b in box.buttons() if box.buttonRole(b) in (
        QMessageBox.ButtonRole.AcceptRole, QMessageBox.ButtonRole.DestructiveRole))
    button.click()


def two_worktrees(w: PanelWorld) -> tuple[RepoBuilder, Path, Path]:
    b = RepoBuilder(w.project)
    b.commit("base", {"app.py": "print('hi')\n", ".gitignore": ".env\n"})
    b.write(".env", "TOKEN=1\n")
    b.write(".worktreeinclude", ".env\n")
    runtime = w.open()
    workspace = runtime.git
    assert workspace is not None
    qa = Path(w.world.on_core(workspace.worktrees.create("QA")).info.path)
    dev = Path(w.world.on_core(workspace.worktrees.create("Dev Backend")).info.path)
    w.git.set_identity()
    for n in range(2):
        (qa / f"test_{n}.py").write_text("assert True\n")
        w.git.git("add", ".", cwd=qa)
        w.git.git("commit", "-qm", f"qa test {n}", cwd=qa)
    (dev / "app.py").write_text("print('work in progress')\n")
    b.commit("main moves", {"README.md": "# app\n"})
    return b, qa, dev


def test_the_worktree_list_and_its_actions(panel_world: PanelWorld) -> None:
    w = panel_world
    b, qa, dev = two_worktrees(w)
    w.panel.tabs.setCurrentIndex(TAB_WORKTREES)
    w.refreshed()
    worktrees = w.panel.worktrees
    w.wait(lambda: worktrees.list.count() == 2)
    assert w.panel.tabs.tabText(TAB_WORKTREES) == "Worktrees (2)"
    texts = [worktrees.list.item(i).text() for i in range(2)]
    assert texts[0] == "idea/dev-backend\n    …/project.worktrees/dev-backend\n    ↑0 ↓1 vs main, 1 uncommitted"
    assert texts[1] == "idea/qa\n    …/project.worktrees/qa\n    ↑2 ↓1 vs main"
    assert worktrees.list.item(1).toolTip().startswith(f"{qa}\n")
    assert (qa / ".env").read_text() == "TOKEN=1\n"  # .worktreeinclude copied it
    worktrees.list.setCurrentRow(1)
    assert worktrees.merge_button.isEnabled()
    w.screenshot(w.panel, "git-panel-worktrees")

    worktrees.diff_button.click()
    window = w.panel.diff_windows[-1]
    assert window.spec.kind is DiffKind.WORKTREE and window.spec.head == str(qa)
    w.wait(lambda: window.diff is not None)
    assert sorted(f.path for f in window.diff.files) == ["test_0.py", "test_1.py"]  # type: ignore[union-attr]

    worktrees.merge_button.click()
    accept(w.panel.worktree_actions.dialog)
    w.wait(lambda: "Merged idea/qa into main" in w.panel.message.text())
    assert (b.path / "test_0.py").exists()
    parents = w.git.git("log", "-1", "--format=%P", "main", cwd=b.path).split()
    assert len(parents) == 2

    worktrees.list.setCurrentRow(0)  # Dev Backend: uncommitted work
    worktrees.remove_button.click()
    accept(w.panel.worktree_actions.dialog)
    w.wait(lambda: isinstance(w.panel.worktree_actions.dialog, LossDialog))
    loss = w.panel.worktree_actions.dialog
    assert isinstance(loss, LossDialog)
    assert loss.details.toPlainText() == "1 uncommitted file:\n  app.py"
    w.screenshot(loss, "git-worktree-removal-confirmation")
    assert dev.exists()
    loss.accept_button.click()
    w.wait(lambda: not dev.exists())
    w.wait(lambda: worktrees.list.count() == 1)
    assert (b.path / "app.py").read_text() == "print('hi')\n"  # the main tree untouched
    assert w.git.git("branch", "--list", "idea/dev-backend", cwd=b.path).strip() == "idea/dev-backend"

    worktrees.list.setCurrentRow(0)  # QA, merged: nothing to lose
    worktrees.remove_button.click()
    accept(w.panel.worktree_actions.dialog)
    w.wait(lambda: not qa.exists() and worktrees.list.count() == 0)
    assert worktrees.empty.isVisibleTo(w.panel) and not worktrees.list.isVisibleTo(w.panel)  # words, no empty box
