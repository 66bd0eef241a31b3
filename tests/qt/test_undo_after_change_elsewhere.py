"""Undo and redo never write the window's older value over a newer one made elsewhere (issue 20).

Ctrl+Z used to write the step's old value back whatever had happened since: the window set 3 stars,
the command line 5 (the view showed 5), Ctrl+Z put 0 into the profile, the sidecar and the view;
likewise over another program's Rating in the sidecar. Undo is now compare-and-set per field.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt

from aesthete_gui.imaging.xmp import read_sidecar
from aesthete_gui.services.library_marks import mark_image
from aesthete_gui.store import open_profile
from tests.imaging.test_xmp_cas import sidecar_text, write_by_rename
from tests.qt.conftest import *  # noqa: F403  (app_context and the other fixtures)
from tests.qt.test_one_undo import window  # noqa: F401


def _mark_elsewhere(profile_path: Path, image_id: int, **fields: object) -> None:
    """What `aesthete mark` does: another open profile (its own writer id) marks, sidecar included."""
    other = open_profile(profile_path, actor="cli")
    try:
        mark_image(other, image_id, write_xmp=True, **fields)  # type: ignore[arg-type]
    finally:
        other.close()


def _key(qtbot, window, image_id: int, key: Qt.Key) -> None:  # noqa: F811
    window.grid.setFocus()
    assert window.grid.select_image(image_id)
    qtbot.keyClick(window.grid, key)
    window.marks.wait_written()


def test_undo_leaves_a_mark_the_command_line_changed_since_and_says_so(qtbot, window) -> None:  # noqa: F811
    profile = window.context.profile
    row, other = window.model.row_at(0), window.model.row_at(1)
    messages: list[str] = []
    window.marks.notice.connect(messages.append)
    window.marks.mark([row.image_id, other.image_id], stars=3)  # one step on two images
    window.marks.wait_written()
    _mark_elsewhere(window.context.profile_path, row.image_id, stars=5)
    qtbot.waitUntil(lambda: window.model.row_for(row.image_id).stars == 5, timeout=3000)
    window.undo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: bool(messages), timeout=3000)
    assert profile.marks.get(row.image_id).stars == 5  # the newer value stays
    assert read_sidecar(row.path).stars == 5
    assert profile.marks.get(other.image_id).stars == 0  # the untouched image is taken back
    qtbot.waitUntil(lambda: window.model.row_for(row.image_id).stars == 5, timeout=3000)
    assert window.model.row_for(other.image_id).stars == 0
    assert messages == ["Undo left 1 mark as it is: it was changed elsewhere since (the command line or "
                        "another program)"]  # fmt: skip


def test_undo_takes_back_only_the_fields_still_as_the_step_left_them(qtbot, window) -> None:  # noqa: F811
    profile = window.context.profile
    row = window.model.row_at(0)
    window.marks.mark([row.image_id], stars=2, flag="pick")
    window.marks.wait_written()
    _mark_elsewhere(window.context.profile_path, row.image_id, flag="reject")
    qtbot.waitUntil(lambda: window.model.row_for(row.image_id).flag == "reject", timeout=3000)
    window.undo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.marks.get(row.image_id).stars == 0, timeout=3000)
    assert profile.marks.get(row.image_id).flag == "reject"
    assert (read_sidecar(row.path).stars or 0, read_sidecar(row.path).flag) == (0, "reject")


def test_undo_leaves_a_rating_another_program_wrote_into_the_sidecar(qtbot, window) -> None:  # noqa: F811
    profile = window.context.profile
    row = window.model.row_at(0)
    _key(qtbot, window, row.image_id, Qt.Key.Key_1)
    sidecar = Path(row.path).with_suffix(".xmp")
    qtbot.waitUntil(sidecar.is_file)
    time.sleep(0.02)
    write_by_rename(sidecar, sidecar_text(5, "lightroom"))  # Lightroom: 5 stars and a keyword
    window.undo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.marks.get(row.image_id).stars == 5, timeout=3000)
    assert sidecar.read_text(encoding="utf-8") == sidecar_text(5, "lightroom")
    qtbot.waitUntil(lambda: window.model.row_for(row.image_id).stars == 5, timeout=3000)


def test_redo_leaves_a_mark_changed_elsewhere_after_the_undo(qtbot, window) -> None:  # noqa: F811
    profile = window.context.profile
    row = window.model.row_at(0)
    _key(qtbot, window, row.image_id, Qt.Key.Key_3)
    window.undo_action.trigger()
    window.marks.wait_written()
    assert profile.marks.get(row.image_id).stars == 0
    _mark_elsewhere(window.context.profile_path, row.image_id, stars=4)
    window.redo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.model.row_for(row.image_id).stars == 4, timeout=3000)
    assert profile.marks.get(row.image_id).stars == 4
    assert read_sidecar(row.path).stars == 4
