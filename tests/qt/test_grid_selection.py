"""The grid keeps a large selection across model resets and publishes it once, not per image."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel

from aesthete_gui.qt.item_models import FilterState, ImageRow
from aesthete_gui.qt.main_window import MainWindow


@pytest.fixture
def window(qtbot, app_context):
    """The main window over a fresh profile, its grid filled with 5,000 rows."""
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    rows = [
        ImageRow(image_id=i + 1, path=f"/shoot/img_{i:05d}.jpg", capture_time=f"2024-05-01T{i:08d}")
        for i in range(5000)
    ]
    main.model.set_rows(rows)
    yield main
    main.marks.close()


def _select_rows(window: MainWindow, rows: list[int]) -> None:
    selection = QItemSelection()
    for row in rows:
        selection.select(window.model.index(row), window.model.index(row))
    window.grid.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)


def test_a_new_order_restores_a_large_selection_published_once(qtbot, window, app_context) -> None:
    kept_rows = [*range(0, 3000, 2), *range(3500, 4000)]  # 2,000 rows: alternate rows and one block
    _select_rows(window, kept_rows)
    window.grid.selectionModel().setCurrentIndex(
        window.model.index(3999), QItemSelectionModel.SelectionFlag.NoUpdate
    )
    selected_before = window.grid.selected_ids()
    assert len(selected_before) == 2000
    published: list[list[int]] = []
    app_context.selection.changed.connect(published.append)

    window.model.set_sort("capture_time", descending=True)

    assert len(published) == 1
    assert sorted(published[0]) == sorted(selected_before)
    assert published[0][-1] == selected_before[-1]  # the current image stays current
    assert sorted(window.grid.selected_ids()) == sorted(selected_before)
    assert window.model.row_at(window.grid.currentIndex().row()).image_id == selected_before[-1]


def test_a_narrower_filter_keeps_the_selected_images_shown(qtbot, window, app_context) -> None:
    _select_rows(window, list(range(0, 4000, 2)))
    published: list[list[int]] = []
    app_context.selection.changed.connect(published.append)

    window.model.set_filter(FilterState(text="img_01"))  # img_01000 .. img_01999

    assert len(published) == 1
    assert published[0] == [i + 1 for i in range(1000, 2000, 2)]
    assert window.grid.selected_ids() == published[0]
