"""The Git panel (spec 07 §1): the current project's branch, status, commit box, branch switcher, history
graph, worktrees and reviews. It follows the window's current tab, refreshes on the folder monitor's
`GitChanged` and when IdeA comes back to the foreground, and opens diff viewers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from idea.application.git.agent_worktrees import agent_in
from idea.application.git.service import GitSnapshot
from idea.application.projects import ProjectRuntime
from idea.domain.events import ProjectClosed
from idea.domain.git.diff import DiffKind, DiffSpec
from idea.domain.git.events import GitChanged
from idea.domain.git.model import RepoState, StatusReport
from idea.domain.git.notices import Gesture, refusal
from idea.domain.wording import counted
from idea.ui.core_client import CoreClient
from idea.ui.git.actions import PanelActions
from idea.ui.git.branch_menu import BranchButton
from idea.ui.git.commit_box import CommitBox
from idea.ui.git.git_client import GitClient
from idea.ui.git.log_view import HistoryPage
from idea.ui.git.panel_context import PanelContext
from idea.ui.git.reviews_page import ReviewsPage
from idea.ui.git.status_view import Group, StatusView
from idea.ui.git.worktree_actions import WorktreeActions
from idea.ui.git.worktree_list import WorktreeList
from idea.ui.widgets.labels import HintLabel, Notice
from idea.ui.widgets.messages import error_text

if TYPE_CHECKING:
    from idea.ui.git.diff_viewer import DiffWindow

PAGE_NO_PROJECT, PAGE_NO_REPOSITORY, PAGE_REPOSITORY = 0, 1, 2
TAB_CHANGES, TAB_HISTORY, TAB_WORKTREES, TAB_REVIEWS = 0, 1, 2, 3


class GitPanel(QWidget):
    statusMessage = Signal(str)

    def __init__(self, client: CoreClient, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._client = client
        self.git: GitClient | None = None
        self.snapshot: GitSnapshot | None = None
        self._refreshing = False
        self._pending = False
        self._stale = False
        self.diff_windows: list[DiffWindow] = []  # open viewers, told of GitChanged
        self.message = HintLabel("")
        self.commit = CommitBox()
        self.worktrees = WorktreeList()
        context = PanelContext(
            git=lambda: self.git, widget=self, show_message=self.show_message, show_error=self.show_error,
            refresh=self.refresh, open_diff=self.open_diff,
        )
        self.actions = PanelActions(context, self.commit)
        self.worktree_actions = WorktreeActions(context, self.actions, self.worktrees)

        self.pages = QStackedWidget()
        self.no_project = HintLabel("Open a project to see its repository here.")
        self.pages.addWidget(_top(self.no_project))
        self.no_repo_text = HintLabel("")
        self.init_button = QPushButton("Initialise a git repository here")
        self.init_button.clicked.connect(self.actions.init_repository)
        self.pages.addWidget(_top(self.no_repo_text, self.init_button))
        self.pages.addWidget(self._repository_page())
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addWidget(self.pages, 1)
        column.addWidget(self.message)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.applicationStateChanged.connect(self._application_state)

    def _repository_page(self) -> QWidget:
        actions = self.actions
        self.branch_button = BranchButton()
        self.branch_button.switchRequested.connect(actions.switch_branch)
        self.branch_button.createRequested.connect(actions.ask_new_branch)
        self.branch_button.deleteRequested.connect(actions.delete_branch)
        self.branch_button.compareRequested.connect(self.compare_branch)
        self.summary = QLabel()
        self.diff_button = QPushButton("Diff…")
        self.diff_button.setToolTip("Working tree vs HEAD, untracked files included")
        self.diff_button.clicked.connect(lambda: self.open_diff(DiffSpec(DiffKind.WORKING)))
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        header = QHBoxLayout()
        header.addWidget(self.branch_button)
        header.addWidget(self.summary, 1)
        header.addWidget(self.refresh_button)
        self.notices = QVBoxLayout()
        self.status_error = HintLabel("")

        self.status = StatusView()
        self.status.stageRequested.connect(actions.stage)
        self.status.unstageRequested.connect(actions.unstage)
        self.status.diffRequested.connect(lambda kind, path: self.open_diff(DiffSpec(kind), path))
        self.stage_all = QPushButton("Stage all")
        self.stage_all.clicked.connect(
            lambda: actions.stage(self.status.group_paths(Group.CHANGES) + self.status.group_paths(Group.UNTRACKED))
        )
        self.unstage_all = QPushButton("Unstage all")
        self.unstage_all.clicked.connect(lambda: actions.unstage(self.status.group_paths(Group.STAGED)))
        self.commit.commitRequested.connect(actions.commit)
        bulk = QHBoxLayout()
        bulk.addWidget(self.stage_all)
        bulk.addWidget(self.unstage_all)
        bulk.addStretch(1)
        bulk.addWidget(self.diff_button)  # here rather than in the header: the panel stays as narrow as Agents
        changes = _column(self.status, bulk, self.commit)

        self.history = HistoryPage(lambda: self.git, actions.failed)
        self.history.commitOpened.connect(lambda c: self.open_diff(DiffSpec(DiffKind.COMMIT, head=c.oid)))
        self.reviews = ReviewsPage(lambda: self.git, actions.failed)
        self.reviews.reviewOpened.connect(lambda review: self.open_diff(review.target.spec()))
        self.tabs = QTabWidget()
        for widget, title in ((changes, "Changes"), (self.history, "History"), (self.worktrees, "Worktrees"),
                              (self.reviews, "Reviews")):
            self.tabs.addTab(widget, title)
        self.tabs.currentChanged.connect(lambda _i: self._load_tab())
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(header)
        column.addLayout(self.notices)
        column.addWidget(self.status_error)
        column.addWidget(self.tabs, 1)
        return page

    # -- the project followed --

    def set_project(self, runtime: ProjectRuntime | None) -> None:
        if runtime is not None and self.git is not None and self.git.runtime is runtime:
            return
        self.git = GitClient(self._client, runtime) if runtime is not None else None
        self.snapshot = None
        self.history.clear()
        self.pages.setCurrentIndex(PAGE_NO_PROJECT)
        self.refresh()

    def on_event(self, event: object) -> None:
        for window in list(self.diff_windows):
            window.on_event(event)
        git = self.git
        if git is None:
            return
        match event:
            case GitChanged(project_id=git.runtime.id):
                if self.isVisible():
                    self.refresh()
                else:
                    self._stale = True
            case ProjectClosed(project_id=git.runtime.id):
                self.set_project(None)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def _application_state(self, state: Qt.ApplicationState) -> None:
        if state == Qt.ApplicationState.ApplicationActive and self.isVisible():
            self.refresh()  # back from a terminal or another program: show what changed meanwhile

    # -- reading --

    def refresh(self) -> None:
        self._stale = False
        git = self.git
        if git is None:
            self.pages.setCurrentIndex(PAGE_NO_PROJECT)
            return
        if self._refreshing:
            self._pending = True
            return
        self._refreshing = True
        git.call(lambda ws: ws.git.snapshot(), lambda s: self._show(git, s), lambda e: self._refresh_failed(git, e))

    def _refresh_done(self) -> None:
        self._refreshing = False
        if self._pending:
            self._pending = False
            self.refresh()

    def _refresh_failed(self, git: GitClient, error: BaseException) -> None:
        self._refresh_done()
        if git is self.git:
            self.pages.setCurrentIndex(PAGE_REPOSITORY)
            self.status_error.show_error(error_text(error))

    def _show(self, git: GitClient, snapshot: GitSnapshot) -> None:
        self._refresh_done()
        if git is not self.git:
            return
        self.snapshot = snapshot
        facts = snapshot.facts
        if facts is None:
            self.no_repo_text.show_hint(
                f"{snapshot.root} is not in a git repository. IdeA can create one here, with main as its "
                "first branch."
            )
            self.pages.setCurrentIndex(PAGE_NO_REPOSITORY)
            return
        self.pages.setCurrentIndex(PAGE_REPOSITORY)
        status = snapshot.status or StatusReport()
        self.branch_button.show_branches(facts.head, snapshot.branches, refusal(facts, Gesture.SWITCH))
        if facts.bare:
            self.summary.setText("bare repository")
        else:
            self.summary.setText("clean" if status.is_clean else counted(len(status.changed()), "changed file"))
        self._show_notices(list(snapshot.notices))
        if snapshot.status_error:
            self.status_error.show_error(snapshot.status_error)
        else:
            self.status_error.show_hint("")
        self.status.show_report(status)
        staged = len(status.staged())
        self.commit.set_state(staged, snapshot.identity, refusal(facts, Gesture.COMMIT),
                              merging=facts.state is RepoState.MERGE)
        self.commit.setVisible(not facts.bare)
        stage_refused = refusal(facts, Gesture.STAGE)
        self.stage_all.setEnabled(stage_refused is None and bool(status.unstaged() or status.untracked()))
        self.unstage_all.setEnabled(stage_refused is None and bool(staged))
        for button in (self.stage_all, self.unstage_all):
            button.setToolTip(stage_refused or "")
        self.worktrees.show_views(snapshot.worktrees, worktree_owners(git.runtime, snapshot))
        count = len(snapshot.worktrees)
        self.tabs.setTabText(TAB_WORKTREES, f"Worktrees ({count})" if count else "Worktrees")
        if facts.head.oid != self.history.loaded_head:
            self.history.loaded_head = None  # read again when the History tab shows
        self._load_tab()

    def _show_notices(self, texts: list[str]) -> None:
        while self.notices.count():
            widget = self.notices.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        for text in texts:
            self.notices.addWidget(Notice(text))

    def notice_texts(self) -> list[str]:
        return [self.notices.itemAt(i).widget().text() for i in range(self.notices.count())]

    def _load_tab(self) -> None:
        if self.snapshot is None or self.snapshot.facts is None:
            return
        if self.tabs.currentIndex() == TAB_HISTORY and self.history.loaded_head is None:
            self.history.load(self.snapshot.facts.head.oid or "")
        elif self.tabs.currentIndex() == TAB_REVIEWS:
            self.reviews.load()

    def show_message(self, text: str) -> None:
        self.message.show_ok(text)
        self.statusMessage.emit(text)

    def show_error(self, text: str) -> None:
        self.message.show_error(text)
        self.statusMessage.emit(text)

    # -- diffs --

    def open_diff(self, spec: DiffSpec, focus_path: str | None = None) -> DiffWindow | None:
        if self.git is None:
            return None
        from idea.ui.git.diff_viewer import DiffWindow  # loaded with the first diff (Pygments with it)

        window = DiffWindow(self.git, spec, focus_path)
        self.diff_windows.append(window)
        window.destroyed.connect(lambda _obj=None, w=window: self._forget_window(w))
        window.show()
        return window

    def compare_branch(self, branch: str) -> DiffWindow | None:
        """What `branch` changes since it left the current branch (what a pull request would show)."""
        facts = self.snapshot.facts if self.snapshot is not None else None
        base = facts.head.branch if facts is not None and facts.head.branch else "HEAD"
        return self.open_diff(DiffSpec(DiffKind.BRANCH, base=base, head=branch))

    def _forget_window(self, window: DiffWindow) -> None:
        if window in self.diff_windows:
            self.diff_windows.remove(window)


def worktree_owners(runtime: ProjectRuntime, snapshot: GitSnapshot) -> dict[str, str]:
    """Worktree folder → the agent of the project that works there."""
    manifest = runtime.agents.manifest()
    owners = ((view.info.path, agent_in(manifest, view.info.path)) for view in snapshot.worktrees)
    return {path: agent.name for path, agent in owners if agent is not None}


def _top(*widgets: QWidget) -> QWidget:
    page = QWidget()
    column = QVBoxLayout(page)
    for widget in widgets:
        column.addWidget(widget, 0, Qt.AlignmentFlag.AlignLeft)
    column.addStretch(1)
    return page


def _column(*parts: QWidget | QHBoxLayout) -> QWidget:
    page = QWidget()
    column = QVBoxLayout(page)
    column.setContentsMargins(0, 4, 0, 0)
    for part in parts:
        if isinstance(part, QWidget):
            column.addWidget(part, 1 if isinstance(part, StatusView) else 0)
        else:
            column.addLayout(part)
    return page


def git_dock(window: QMainWindow, client: CoreClient, beside: QDockWidget) -> tuple[GitPanel, QDockWidget]:
    """The Git panel in a dock, a tab beside `beside` (the Agents dock) so that the terminals keep their
    width; it can be dragged anywhere, and View ▸ Git panel (Ctrl+Alt+G) shows or hides it."""
    panel = GitPanel(client, window)
    dock = QDockWidget("Git", window)
    dock.setObjectName("GitDock")
    dock.setWidget(panel)
    window.tabifyDockWidget(beside, dock)
    QTimer.singleShot(0, beside, beside.raise_)  # the Agents tab in front once shown (no call once it is gone)
    action = dock.toggleViewAction()
    action.setText("Git panel")
    action.setShortcut("Ctrl+Alt+G")
    action.triggered.connect(lambda checked: dock.raise_() if checked else None)
    return panel, dock
