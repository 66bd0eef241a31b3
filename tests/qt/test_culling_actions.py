"""Accepting suggested rejects in view and dismissing one, both undoable, from the main window."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.qt.culling_actions import (
    accept_suggestions_in_view,
    dismiss_suggestions,
    suggested_in_view,
)
from aesthete_gui.qt.item_models import ImageRow
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.store import ImageUpdate

REJECT = [{"name": "noise", "value": 20.0, "verdict": "reject", "reason": "heavy noise (σ 20.0 of 255)"}]


@pytest.fixture
def window(qtbot, app_context, tmp_path: Path):
    app_context.settings["welcome_done"] = True
    app_context.settings["xmp_enabled"] = False
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    ids = app_context.profile.write_images(
        [ImageUpdate(path=str(tmp_path / f"{n}.jpg"), folder_id=None, status="ok") for n in range(4)]
    )
    app_context.profile.put_checks_many([(i, "1", REJECT, [], "reject") for i in ids[:3]])
    main.model.set_rows([ImageRow(image_id=i, path=str(tmp_path / f"{n}.jpg"), suggested_reject=n < 3)
                         for n, i in enumerate(ids)])  # fmt: skip
    yield main, ids
    main.marks.close()


def test_accept_all_in_view_rejects_them_and_undo_restores_the_suggestions(window, app_context) -> None:
    main, ids = window
    assert suggested_in_view(main.model) == ids[:3]
    assert accept_suggestions_in_view(main.model, main.marks) == 3
    main.marks.wait_written()
    assert [app_context.profile.mark_for(i).flag for i in ids] == ["reject", "reject", "reject", None]
    assert app_context.profile.suggested_rejects() == set()
    main.marks.undo_stack.undo()
    main.marks.wait_written()
    assert [app_context.profile.mark_for(i).flag for i in ids] == [None, None, None, None]
    assert app_context.profile.suggested_rejects() == set(ids[:3])


def test_dismissing_one_keeps_marks_and_is_undoable(window, app_context) -> None:
    main, ids = window
    assert dismiss_suggestions(app_context, main.model, main.marks, [ids[0], ids[3]]) == 1
    assert app_context.profile.suggested_rejects() == set(ids[1:3])
    assert app_context.profile.mark_for(ids[0]).flag is None
    main.marks.undo_stack.undo()
    assert app_context.profile.suggested_rejects() == set(ids[:3])
