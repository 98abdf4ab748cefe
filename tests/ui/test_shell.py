"""The desktop shell end to end: projects in tabs, a grid of real terminals, layouts, windows, restart."""

from __future__ import annotations

import json
import platform
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, QTimer, qVersion
from PySide6.QtWidgets import QApplication, QMessageBox

from idea import __version__

from idea.domain import layout as lay
from idea.domain.workspace import NewCellContent
from idea.infrastructure.terminal.process_tree import process_name
from idea.ui.terminal.appearance import LIGHT_SCHEME
from tests.ui.gui_support import new_project


def test_open_a_project_build_a_2x2_grid_and_run_a_command(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    project, tab = gui.open_new_project(tmp_path)

    assert (project / ".ideai" / "agents.json").read_text() == '{\n  "agents": []\n}\n'
    assert "# >>> IdeA runtime" in (project / ".gitignore").read_text()
    window = gui.windows[0]
    assert window.tabs.tabText(0) == project.name and window.tabs.tabToolTip(0) == str(project)

    [first] = gui.wait_for_shells(tab, 1)
    tab.gestures.make_grid(first.leaf_id)  # Cell ▸ Make grid…: rows and columns asked, 2 × 2 offered
    dialog = tab.gestures.grid_dialog
    assert dialog is not None and dialog.size() == (2, 2) and dialog.summary.text() == "4 cells"
    dialog.accept()
    gui.wait(lambda: len(gui.leaves(tab)) == 4)
    for leaf in gui.leaves(tab)[1:]:
        tab.gestures.start_shell(leaf.id)
    cells = gui.wait_for_shells(tab, 4)
    assert isinstance(tab.runtime.active.root, lay.Grid)

    gui.type_line(cells[3], "echo typed-$((40+2))")
    gui.wait(lambda: "typed-42" in gui.screen(cells[3]))

    saved = json.loads((project / ".ideai" / "layouts.json").read_text())
    assert saved["layouts"][0]["tree"]["root"]["type"] == "grid"

    tab.gestures.set_grid_size(tab.runtime.active.root)  # Grid size…: the grid's own size offered
    resize = tab.gestures.grid_dialog
    assert resize is not None and resize is not dialog and resize.size() == (2, 2)
    resize.cols_box.setValue(3)
    resize.accept()
    gui.wait(lambda: len(gui.leaves(tab)) == 6)
    assert "typed-42" in gui.screen(cells[3])  # the terminals kept their places


def test_merge_close_and_switch_layouts_keep_every_process(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    left, right = gui.split_into_two_shells(tab)
    gui.type_line(right, "echo right-side")
    gui.wait(lambda: "right-side" in gui.screen(right))
    pids = {info.pid for info in tab.runtime.sessions.snapshot()}

    # Merging keeps the chosen cell; the other shell keeps running in the background.
    right_session = right.session.id
    tab.gestures.merge((left.leaf_id, right.leaf_id), keep=left.leaf_id)
    gui.wait(lambda: len(gui.leaves(tab)) == 1)
    assert [s.id for s in tab.runtime.background_sessions()] == [right_session]
    assert {info.pid for info in tab.runtime.sessions.snapshot() if info.is_live} == pids

    # A new layout, then back: same processes, same screen.
    original_layout = tab.runtime.document.active_id
    gui.session.client.call(tab.runtime.layouts.create("Review"))
    gui.wait(lambda: tab.runtime.document.active_id != original_layout)
    gui.wait_for_shells(tab, 1)
    tab.layout_bar.activate_layout(original_layout)
    gui.wait(lambda: tab.runtime.document.active_id == original_layout)
    [kept] = gui.wait_for_shells(tab, 1)
    assert kept.session.pid in pids

    # The background shell attaches to a new, empty cell with its screen intact.
    gui.session.app.preferences.update_settings(new_cell_content=NewCellContent.EMPTY)
    tab.gestures.split(kept.leaf_id, lay.Direction.COLUMN, "after")
    gui.wait(lambda: len(gui.leaves(tab)) == 2)
    empty = gui.leaves(tab)[1]
    gui.session.client.call(tab.runtime.attach(empty.id, right_session))
    gui.wait(lambda: gui.leaves(tab)[1].session == right_session)
    attached = gui.cell(tab, 1)
    gui.wait(lambda: attached.view is not None and "right-side" in gui.screen(attached))

    # Closing a cell with an idle shell stops it; the cell collapses.
    tab.gestures.close_cell(attached.leaf_id)
    gui.wait(lambda: len(gui.leaves(tab)) == 1)
    gui.wait(lambda: not tab.runtime.sessions.knows(right_session))


def test_drag_a_tab_out_into_a_new_window_keeps_processes_and_screens(gui_factory, qtbot, tmp_path: Path) -> None:
    first_project, second_project = new_project(tmp_path, "one"), new_project(tmp_path, "two")
    gui = gui_factory()
    gui.restore([first_project, second_project])
    tab = gui.tab(second_project)
    gui.tab(first_project)
    [cell] = gui.wait_for_shells(tab, 1)
    gui.type_line(cell, "echo before-the-move")
    gui.wait(lambda: "before-the-move" in gui.screen(cell))
    pid = cell.session.pid
    window = gui.windows[0]
    assert window.tabs.count() == 2

    # The gesture: press on the tab, move out of the bar; released where no IdeA bar accepts it.
    bar = window.tab_bar
    index = window.project_ids().index(tab.project_id)
    start = bar.tabRect(index).center()
    qtbot.mousePress(bar, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(bar, start + QPoint(0, 200))
    gui.wait(lambda: len(gui.windows) == 2)

    moved_to = gui.windows[1]
    assert moved_to.project_ids() == [tab.project_id]
    assert window.project_ids() == [gui.tab(first_project).project_id]
    assert cell.session.pid == pid and tab.runtime.sessions.is_live(cell.session.id)
    gui.wait(lambda: "before-the-move" in gui.screen(cell))
    gui.type_line(cell, "echo after-the-move")
    gui.wait(lambda: "after-the-move" in gui.screen(cell))

    # And back onto the first window's bar: the second window closes, nothing was stopped.
    gui.session.windows.move_tab(tab.project_id, window.tab_bar, 0, None)
    gui.wait(lambda: len(gui.windows) == 1)
    assert window.project_ids()[0] == tab.project_id
    assert cell.session.pid == pid
    QApplication.processEvents()


def test_restart_finds_the_same_windows_tabs_and_grid(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    project, tab = gui.open_new_project(tmp_path)
    gui.split_into_two_shells(tab)
    before = [leaf.id for leaf in gui.leaves(tab)]
    old_pids = set(gui.pids(tab).values())
    gui.windows[0].resize(640, 470)
    gui.close()

    again = gui_factory()
    again.restore([])
    reopened = again.tab(project)
    cells = again.wait_for_shells(reopened, 2)
    assert [leaf.id for leaf in again.leaves(reopened)] == before
    assert not old_pids & {c.session.pid for c in cells}
    # Offscreen screens are small: Qt fits the width to the screen, the height is exact.
    assert again.windows[0].height() == 470


def test_a_corrupt_layouts_file_is_kept_aside_and_reported(gui_factory, tmp_path: Path) -> None:
    project = new_project(tmp_path)
    (project / ".ideai").mkdir()
    (project / ".ideai" / "layouts.json").write_text('{"version": 1, "layouts": [')
    gui = gui_factory()
    gui.restore([project])
    tab = gui.tab(project)
    gui.wait_for_shells(tab, 1)

    kept = list((project / ".ideai").glob("layouts.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text() == '{"version": 1, "layouts": ['
    assert tab.banner.isVisible() or tab.banner.messages
    assert any("layouts.json" in message and "corrupt" in message for message in tab.banner.messages)


def test_a_program_that_exits_shows_its_code_and_can_restart(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    [cell] = gui.wait_for_shells(tab, 1)
    old_pid, old_session = cell.session.pid, cell.session.id
    gui.type_line(cell, "exit 3")
    gui.wait(lambda: cell.session is not None and not cell.session.is_live)
    assert cell.session.exit_code == 3
    assert cell._banner.isVisibleTo(cell) and "exited with code 3" in cell._banner_text.text()

    tab.gestures.restart(cell.leaf_id)
    gui.wait(lambda: cell.session is not None and cell.session.id != old_session and cell.session.is_live)
    [restarted] = gui.wait_for_shells(tab, 1)
    assert restarted.session.pid != old_pid
    assert not cell._banner.isVisibleTo(cell)


def test_swapping_two_cells_moves_their_terminals_not_their_processes(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    left, right = gui.split_into_two_shells(tab)
    gui.type_line(right, "echo i-was-on-the-right")
    gui.wait(lambda: "i-was-on-the-right" in gui.screen(right))
    left_pid, right_pid = left.session.pid, right.session.pid

    tab.gestures.swap_cells(left.leaf_id, right.leaf_id)

    gui.wait(lambda: gui.cell(tab, 0).session is not None and gui.cell(tab, 0).session.pid == right_pid)
    assert gui.cell(tab, 1).session.pid == left_pid
    gui.wait(lambda: "i-was-on-the-right" in gui.screen(gui.cell(tab, 0)))


def test_switching_to_the_light_theme_restyles_the_window_and_the_terminals(gui_factory, tmp_path: Path) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    [cell] = gui.wait_for_shells(tab, 1)

    gui.session.windows.settings.set_color_scheme("light")

    assert gui.session.app.preferences.settings.color_scheme.value == "light"
    window = gui.windows[0]
    assert window.palette().window().color().lightness() > 200
    assert cell.view.appearance.scheme == LIGHT_SCHEME


def test_cell_shortcuts_work_from_a_focused_terminal_and_leave_its_keys_alone(
    gui_factory, qtbot, tmp_path: Path
) -> None:
    gui = gui_factory()
    _, tab = gui.open_new_project(tmp_path)
    [cell] = gui.wait_for_shells(tab, 1)
    both = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    proxy = cell.view.terminal.focusProxy()

    qtbot.keyClick(proxy, Qt.Key.Key_E, both)
    gui.wait(lambda: len(gui.leaves(tab)) == 2)
    left, right = gui.wait_for_shells(tab, 2)
    gui.wait(lambda: tab.active_leaf == right.leaf_id)  # the new cell takes the focus

    qtbot.keyClick(proxy, Qt.Key.Key_X, both)
    gui.wait(lambda: tab.runtime.active.zoomed == right.leaf_id)
    qtbot.keyClick(proxy, Qt.Key.Key_X, both)
    gui.wait(lambda: tab.runtime.active.zoomed is None)
    tab.cell_activated(left.leaf_id, False)

    # Ctrl+C belongs to the program: it interrupts the running command, IdeA takes nothing.
    gui.type_line(left, "sleep 30; echo not-interrupted")
    terminal = tab.runtime.sessions.terminal(left.session.id)
    gui.wait(lambda: process_name(terminal.foreground_pid() or 0) == "sleep")
    qtbot.keyClick(proxy, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    gui.type_line(left, "echo after-ctrl-c")
    gui.wait(lambda: "after-ctrl-c" in gui.screen(left).replace("echo after-ctrl-c", ""))
    assert "not-interrupted" not in gui.screen(left).replace("echo not-interrupted", "")

    qtbot.keyClick(proxy, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    gui.wait(lambda: tab.active_leaf == right.leaf_id)
    qtbot.keyClick(proxy, Qt.Key.Key_Left, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    gui.wait(lambda: tab.active_leaf == left.leaf_id)


def test_about_names_the_versions_a_bug_report_needs_and_links_the_diagnostics_log(gui_factory, qtbot) -> None:
    gui = gui_factory()
    gui.restore([])
    window = gui.windows[0]
    [help_menu] = [a.menu() for a in window.menuBar().actions() if a.text() == "&Help"]
    [about] = [a for a in help_menu.actions() if a.text() == "About IdeA"]
    seen: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text())
        box.accept()

    QTimer.singleShot(0, read_and_close)
    about.trigger()

    log = gui.session.app.diagnostics.path
    [text] = seen
    assert f"IdeA {__version__}" in text and f"Qt {qVersion()}" in text
    assert f"Python {platform.python_version()}" in text
    assert f'<a href="{log.as_uri()}">' in text
