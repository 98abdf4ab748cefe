"""The diff viewer and reviews: comments anchored to lines, drafts in .ideai/reviews/, "Send to agent ▸"
delivering one human ticket with the exact text to a running agent, sent comments marked, the hint of
which were addressed; a 10,000-line diff drawn lazily; a hunk staged from the viewer."""

from __future__ import annotations

import json

from idea.application.agents.placement_rules import InBackground
from idea.domain.git.diff import DiffKind, DiffSpec
from idea.domain.git.review import Hint
from idea.domain.git.rows import Row, RowKind
from idea.ui.git.diff_paint import CommentLine
from idea.ui.git.diff_viewer import DiffWindow
from idea.ui.git.review_pane import CommentDialog, SendReviewDialog
from tests.git_support import RepoBuilder
from tests.ui.accessibility import unnamed_controls
from tests.ui.git.conftest import PanelWorld

EXPECTED = (
    "Review of feature/storage-ports against develop — 2 comments:\n"
    "1. src/store.py:42 (new) `def save(self, doc):` — Write atomically (tmp + rename).\n"
    "2. README.md:10 (new) `## Install` — Mention the constraints file.\n"
    "Please address each comment, then summarise what you changed."
)
STORE = "".join(f"# line {n}\n" for n in range(1, 41))
README = "".join(f"line {n}\n" for n in range(1, 10))


def storage_branch(w: PanelWorld) -> RepoBuilder:
    b = RepoBuilder(w.project)
    b.commit("base", {"src/store.py": STORE, "README.md": README})
    b.branch("develop")
    b.branch("feature/storage-ports")
    b.checkout("feature/storage-ports")
    b.commit("storage ports", {
        "src/store.py": STORE + "class Store:\n    def save(self, doc):\n        pass\n",
        "README.md": README + "## Install\n",
    })
    return b


def loaded(w: PanelWorld, window: DiffWindow) -> None:
    w.wait(lambda: window.diff is not None and window.refresh_button.isEnabled())


def row_of(window: DiffWindow, path: str, new_line: int) -> int:
    diff = window.diff
    assert diff is not None
    for index in range(window.view.row_count()):
        row = window.view.line_at(index)
        if isinstance(row, Row) and row.kind is RowKind.LINE and diff.files[row.file].path == path:
            line = diff.files[row.file].hunks[row.hunk].lines[row.left]
            if line.new == new_line:
                return index
    raise AssertionError(f"{path}:{new_line} not drawn")


def comment(w: PanelWorld, window: DiffWindow, path: str, line: int, text: str) -> None:
    anchor = window.view.anchor_for(row_of(window, path, line))
    assert anchor is not None
    count = len(window.review.comments) if window.review else 0
    window.view.commentRequested.emit(anchor)
    [dialog] = [d for d in window.findChildren(CommentDialog) if d.isVisible()]
    assert not dialog.ok.isEnabled()
    assert unnamed_controls(dialog) == []
    dialog.text.setPlainText(text)
    dialog.buttons.accepted.emit()
    w.wait(lambda: window.review is not None and len(window.review.comments) == count + 1)


def test_a_review_is_written_in_the_viewer_and_sent_to_a_running_agent(panel_world: PanelWorld) -> None:
    w = panel_world
    b = storage_branch(w)
    profile = w.add_echo_profile()
    runtime = w.open()
    qa = w.world.create_agent(runtime, "QA", profile)
    live = w.world.on_core(runtime.placement.launch(qa.agent_id, InBackground(), reason="test"))
    w.wait(lambda: "Fake agent CLI ready" in w.world.on_core(live.terminal.screen_text()))

    b.checkout("develop")
    w.refreshed()
    assert w.panel.branch_button.text() == "⎇ develop"
    window = w.panel.compare_branch("feature/storage-ports")  # Diff against develop ▸ feature/storage-ports
    assert window is not None and window.spec == DiffSpec(DiffKind.BRANCH, base="develop", head="feature/storage-ports")
    loaded(w, window)
    assert window.title.text() == "<b>feature/storage-ports</b> vs <b>develop</b>"
    assert window.stats.text() == "2 files changed, +4 −0"
    assert window.files.count() == 2
    comment(w, window, "src/store.py", 42, "Write atomically (tmp + rename).")
    comment(w, window, "README.md", 10, "Mention the constraints file.")
    drawn = [window.view.line_at(i) for i in range(window.view.row_count())]
    assert [line.text for line in drawn if isinstance(line, CommentLine)] == [
        "Mention the constraints file.", "Write atomically (tmp + rename).",  # README.md is listed first
    ]
    review = window.review
    assert review is not None
    saved = json.loads((b.path / ".ideai" / "reviews" / f"{review.id}.json").read_text())
    assert [c["hunkHeader"] for c in saved["comments"]] == ["@@ -38,3 +38,6 @@", "@@ -7,3 +7,4 @@"]
    window.view.scroll_to_file(1)
    assert unnamed_controls(window) == []  # its files, its comments and their buttons
    w.screenshot(window, "diff-review-draft")

    window.pane.sendRequested.emit("QA")
    [send] = [d for d in window.findChildren(SendReviewDialog) if d.isVisible()]
    assert send.preview.toPlainText() == EXPECTED
    assert unnamed_controls(send) == []
    send.buttons.accepted.emit()
    w.wait(lambda: window.review is not None and not window.review.unsent())
    ticket = window.review.comments[0].sent_ticket
    assert ticket and all(c.sent_ticket == ticket and c.sent_to == "QA" for c in window.review.comments)
    assert "Sent to QA as ticket" in window.message.text()
    w.wait(lambda: "received: Review of feature/storage-ports against develop" in
           w.world.on_core(live.terminal.screen_text()))
    assert "sent to QA · ticket" in window.pane.comments.item(0).text()
    w.screenshot(window, "diff-review-sent")

    # The agent changes the README line: a later diff hints that this comment was addressed.
    b.checkout("feature/storage-ports")
    b.commit("install section", {"README.md": README + "## Installing\n"})
    again = w.panel.open_diff(DiffSpec(DiffKind.BRANCH, base="develop", head="feature/storage-ports"))
    assert again is not None
    loaded(w, again)
    w.wait(lambda: again.review is not None and again._hints != {})
    hints = {c.path: again._hints[c.id] for c in again.review.comments}  # type: ignore[union-attr]
    assert hints == {"src/store.py": Hint.UNCHANGED, "README.md": Hint.CHANGED}
    texts = [again.pane.comments.item(i).text() for i in range(again.pane.comments.count())]
    assert any("probably addressed" in t and "README.md" in t for t in texts)
    assert any("the line is unchanged" in t and "src/store.py" in t for t in texts)
    w.screenshot(again, "diff-review-hints")


def test_a_10000_line_diff_is_drawn_lazily_in_both_layouts(panel_world: PanelWorld) -> None:
    w = panel_world
    b = RepoBuilder(w.project)
    b.commit("base", {"big.py": "".join(f"value_{n} = {n}\n" for n in range(5000))})
    b.write("big.py", "".join(f"value_{n} = {n} * 2  # doubled\n" for n in range(5000)))
    w.open()
    window = w.panel.open_diff(DiffSpec(DiffKind.WORKING))
    assert window is not None
    loaded(w, window)
    assert window.diff is not None
    big = window.diff.file("big.py")
    assert big is not None and big.changed_lines == 10_000  # beside it: IdeA's .gitignore and manifest
    view = window.view
    assert view.row_count() > 10_000
    index = window.diff.files.index(big)

    def lexed_chunks() -> int:
        return sum(1 for (file, _hunk, _chunk) in view._highlighter._chunks if file == index)

    view.set_diff(window.diff)  # afresh: nothing lexed yet
    view.scroll_to_file(index)
    view.repaint()  # the first screen is drawn before any colour is computed ...
    assert lexed_chunks() == 0
    w.wait(lambda: lexed_chunks() >= 1)  # ... and its colours follow at once
    assert lexed_chunks() <= 2  # of 157: only what is on screen was lexed
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())
    view.repaint()
    w.wait(lambda: lexed_chunks() >= 2)
    assert lexed_chunks() <= 4
    window.side_by_side.click()
    assert view.side_by_side and 5000 < view.row_count() < 5100  # removed and added lines face each other
    view.repaint()
    w.screenshot(window, "diff-10000-lines-side-by-side")


def test_a_hunk_is_staged_from_the_unstaged_diff(panel_world: PanelWorld) -> None:
    w = panel_world
    b = RepoBuilder(w.project)
    text = "".join(f"{n}\n" for n in range(1, 21))
    b.commit("base", {"n.txt": text})
    b.write("n.txt", text.replace("2\n", "two\n", 1).replace("18\n", "eighteen\n"))
    w.open()
    window = w.panel.open_diff(DiffSpec(DiffKind.UNSTAGED))
    assert window is not None
    loaded(w, window)
    assert window.view.hunk_action_text == "Stage this hunk"
    assert window.diff is not None
    numbers = [f.path for f in window.diff.files].index("n.txt")
    window.view.hunkActionRequested.emit(numbers, 1)
    w.wait(lambda: "+eighteen" in w.git.git("diff", "--cached", cwd=b.path))
    assert "+two" not in w.git.git("diff", "--cached", cwd=b.path)
    w.wait(lambda: window.diff is not None and len(window.diff.file("n.txt").hunks) == 1)  # type: ignore[union-attr]


def test_an_open_diff_says_when_the_files_changed_under_it(panel_world: PanelWorld) -> None:
    w = panel_world
    b = RepoBuilder(w.project)
    b.commit("base", {"a.txt": "a\n"})
    b.write("a.txt", "b\n")
    w.open()
    window = w.panel.open_diff(DiffSpec(DiffKind.WORKING), focus_path="a.txt")
    assert window is not None
    loaded(w, window)
    assert window.stale.isHidden()
    b.write("a.txt", "c\n")
    w.wait(lambda: not window.stale.isHidden())
    window.refresh_button.click()
    w.wait(lambda: window.stale.isHidden() and window.diff is not None
           and window.diff.file("a.txt").hunks[0].lines[-1].text == "c")  # type: ignore[union-attr]
