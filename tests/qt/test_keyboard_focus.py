"""Keys that always work: after the mouse used a combo box the culling keys still reach the current
image, and grid, loupe and inspector share one current image."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QToolTip

from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState


@pytest.fixture
def window(qtbot, app_context, image_folder):
    """The main window over twelve imported JPEGs, active, the grid focused on the first image."""
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    main.activateWindow()
    handle = main.import_folders([image_folder])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == 12, timeout=10_000)
    main.grid.select_image(main.model.row_at(0).image_id)
    yield main
    main.marks.close()


def _press(qtbot, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key press where the keyboard focus is, as a user's key would land."""
    qtbot.keyClick(QApplication.focusWidget(), key, modifier)


def test_after_choosing_a_sort_with_the_mouse_keys_act_on_the_grid(qtbot, window) -> None:
    sort = window.filter_bar.sort
    sort.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is sort)
    chosen = sort.findData("name")
    sort.setCurrentIndex(chosen)
    sort.activated.emit(chosen)  # what a mouse choice in the popup sends
    assert QApplication.focusWidget() is window.grid

    current_before = window.grid.selected_ids()[-1]
    _press(qtbot, Qt.Key.Key_Down)
    assert sort.currentIndex() == chosen  # ↓ did not change the sort
    moved_to = window.grid.selected_ids()[-1]
    assert moved_to != current_before
    _press(qtbot, Qt.Key.Key_3)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(moved_to).stars == 3)


def test_keys_pressed_on_a_focused_combo_box_or_button_reach_the_current_image(qtbot, window) -> None:
    for control in (window.filter_bar.flag, window.filter_bar.reverse, window.filter_bar.collapse):
        control.setFocus()
        current = window.grid.selected_ids()[-1]
        index_before = window.filter_bar.flag.currentIndex()
        qtbot.keyClick(control, Qt.Key.Key_P)
        window.marks.wait_written()
        qtbot.waitUntil(lambda c=current: window.context.profile.marks.get(c).flag == "pick")
        qtbot.keyClick(window.filter_bar.flag, Qt.Key.Key_Down)
        assert window.filter_bar.flag.currentIndex() == index_before
        assert QApplication.focusWidget() is window.grid


def test_a_text_field_keeps_its_keys(qtbot, window) -> None:
    search = window.filter_bar.search
    search.setFocus()
    current = window.grid.selected_ids()[-1]
    qtbot.keyClicks(search, "x5")
    assert search.text() == "x5"
    window.marks.wait_written()
    assert window.context.profile.marks.get(current).stars == 0


def test_loupe_steps_then_escape_leave_grid_and_inspector_on_the_same_frame(qtbot, window) -> None:
    first = window.model.row_at(0).image_id
    window.open_in_loupe(first)
    for _ in range(3):
        _press(qtbot, Qt.Key.Key_Right)
    fourth = window.model.row_at(3).image_id
    assert window.loupe.image_id == fourth
    _press(qtbot, Qt.Key.Key_Escape)
    assert window.current_view == "grid"
    assert window.grid.selected_ids() == [fourth]
    assert window.model.row_at(window.grid.currentIndex().row()).image_id == fourth
    qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.image_id == fourth)
    _press(qtbot, Qt.Key.Key_2)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(fourth).stars == 2)
    assert window.context.profile.marks.get(first).stars == 0
    _press(qtbot, Qt.Key.Key_Right)  # the grid moves on from the frame the loupe left
    assert window.grid.selected_ids() == [window.model.row_at(4).image_id]


def test_w_and_n_pressed_on_the_library_tree_reach_the_grid(qtbot, window) -> None:
    """A trial's W went to the library tree (focused at start) and did nothing; N opens the survey."""
    tree = window.library.tree
    tree.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree)
    QToolTip.hideText()
    assert QToolTip.text() == ""
    qtbot.keyClick(tree, Qt.Key.Key_W)
    assert QApplication.focusWidget() is window.grid
    assert QToolTip.text()  # the grid's explanation of the current frame
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_N)
    assert window.current_view == "survey"


def test_after_the_clear_button_of_the_file_name_box_keys_act_on_the_grid(qtbot, window) -> None:
    """A trial typed 0083, clicked the box's ×, pressed Alt+R and X: the x went into the box (the grid
    emptied, the inspector said "No image selected") instead of rejecting the current frame."""
    from PySide6.QtWidgets import QToolButton

    search = window.filter_bar.search
    search.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is search)
    qtbot.keyClicks(search, "0003")
    qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=5_000)
    current = window.model.row_at(0).image_id
    window.grid.select_image(current)
    clear = next(b for b in search.findChildren(QToolButton) if b.isVisible())  # the ×
    qtbot.mouseClick(clear, Qt.MouseButton.LeftButton)
    assert search.text() == ""
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.grid, timeout=2_000)
    qtbot.waitUntil(lambda: window.model.rowCount() == 12, timeout=2_000)  # the whole shoot again, at once
    _press(qtbot, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # suggested rejects only
    assert window.filter_bar.flag.currentData() == "suggested"
    _press(qtbot, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # and off again
    _press(qtbot, Qt.Key.Key_X)
    assert search.text() == ""
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(current).flag == "reject")
