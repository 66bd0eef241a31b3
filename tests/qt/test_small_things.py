"""Small things from the keyboard trial: --help without a display, "1 pick", the Set view opens on the
selection and gives no room to empty judge panes when no judge is set up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt

from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState

REPO = Path(__file__).resolve().parents[2]


def test_gui_help_works_without_a_display() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from aesthete_gui.app import main; sys.exit(main(['--help']))"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "usage: aesthete-gui" in done.stdout and "--profile" in done.stdout
    assert "no display" not in done.stderr


@pytest.fixture
def window(qtbot, app_context, image_folder):
    """The main window over twelve imported JPEGs, no judge set up."""
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    handle = main.import_folders([image_folder])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == 12, timeout=10_000)
    yield main
    main.marks.close()


def test_one_pick_is_singular(qtbot, window) -> None:
    window.grid.select_image(window.model.row_at(0).image_id)
    qtbot.keyClick(window.grid, Qt.Key.Key_P)
    assert "1 pick" in window.count_label.text() and "1 picks" not in window.count_label.text()
    window.grid.select_image(window.model.row_at(1).image_id)
    qtbot.keyClick(window.grid, Qt.Key.Key_P)
    assert "2 picks" in window.count_label.text()


def test_the_set_view_opens_on_the_selection_without_empty_judge_panes(qtbot, window) -> None:
    selection = QItemSelection()
    selection.select(window.model.index(1), window.model.index(3))
    window.grid.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    chosen = sorted(window.context.selection.image_ids())
    assert len(chosen) == 3
    window.show_view("set")
    assert sorted(window.set_view.image_ids()) == chosen
    assert window.set_view.model_banner.isVisible()
    assert not any(pane.isVisible() for pane in window.set_view.stage_panes)
    qtbot.waitUntil(lambda: window.set_view.cards_scroll.isVisible())
    # the banner stays a banner: it does not take the room the panes would have taken
    assert window.set_view.model_banner.height() <= window.set_view.model_banner.sizeHint().height() + 4
