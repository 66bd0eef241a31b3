"""Accepting suggested rejects in view and dismissing one, both undoable, from the main window."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from aesthete_gui.qt.culling_actions import (
    BURST_MARKS_SETTING,
    accept_suggestions_in_view,
    dismiss_suggestions,
    expand_to_bursts,
    rest_of_bursts,
    suggested_in_view,
)
from aesthete_gui.qt.item_models import FilterState, ImageRow
from aesthete_gui.services.library_checks import checks_version
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import settle_profile_events, shown_main_window

REJECT = [{"name": "noise", "value": 20.0, "verdict": "reject", "reason": "heavy noise (σ 20.0 of 255)"}]


@pytest.fixture
def window(qtbot, app_context, tmp_path: Path):
    main = shown_main_window(qtbot, app_context, xmp=False)
    ids = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(tmp_path / f"{n}.jpg"), folder_id=None, status="ok") for n in range(4)]
    )
    app_context.profile.checks.put_many([(i, checks_version(), REJECT, [], "reject") for i in ids[:3]])
    settle_profile_events(qtbot, main)
    main.model.set_rows([ImageRow(image_id=i, path=str(tmp_path / f"{n}.jpg"), suggested_reject=n < 3)
                         for n, i in enumerate(ids)])  # fmt: skip
    yield main, ids
    main.marks.close()


def test_accept_all_in_view_rejects_them_and_undo_restores_the_suggestions(window, app_context) -> None:
    main, ids = window
    assert suggested_in_view(main.model) == ids[:3]
    assert accept_suggestions_in_view(main.model, main.marks) == (3, 0)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == ["reject", "reject", "reject", None]
    assert app_context.profile.checks.suggested_rejects() == set()
    main.marks.undo_stack.undo()
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == [None, None, None, None]


def test_the_keyboard_accepts_suggested_rejects_without_the_mouse(qtbot, window, app_context) -> None:
    # a trial found no key for either action in a keyboard-driven cull
    from PySide6.QtCore import Qt

    main, ids = window
    main.activateWindow()
    main.grid.setFocus()
    qtbot.keyClick(main.grid, Qt.Key.Key_X, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == ["reject", "reject", "reject", None]


def test_keeping_the_best_of_bursts_spares_frames_the_user_starred_or_labelled(qtbot, burst_window) -> None:
    main, ids = burst_window
    judged = {ids[0]: {"stars": 5}, ids[2]: {"label": "Red"}}
    main.model.set_rows([replace(row, **judged.get(row.image_id, {})) for row in main.model.all_rows()])
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    assert rest_of_bursts(main.model.all_rows()) == []
    assert main._keep_best_of_bursts() is None  # no dialog: nothing to reject
    assert "No burst frames to reject" in main.statusBar().currentMessage()


def test_dismissing_one_keeps_marks_and_is_undoable(qtbot, window, app_context) -> None:
    main, ids = window
    assert dismiss_suggestions(app_context, main.model, main.marks, [ids[0], ids[3]]) == 1
    assert app_context.profile.checks.suggested_rejects() == set(ids[1:3])
    assert app_context.profile.marks.get(ids[0]).flag is None
    # the grid follows at once (a held11 trial: the "?" and the filter stayed until later marks)
    qtbot.waitUntil(lambda: not main.model.row_for(ids[0]).suggested_reject, timeout=5_000)
    main.marks.undo_stack.undo()
    assert app_context.profile.checks.suggested_rejects() == set(ids[:3])
    qtbot.waitUntil(lambda: main.model.row_for(ids[0]).suggested_reject, timeout=5_000)


def test_ctrl_shift_u_says_what_it_dismissed(qtbot, window, app_context) -> None:
    main, ids = window
    main.grid.select_image(ids[1])
    main.grid.setFocus()
    qtbot.keyClick(main.grid, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert main.statusBar().currentMessage().startswith("Dismissed 1 suggested reject: no longer suggested")
    qtbot.waitUntil(lambda: not main.model.row_for(ids[1]).suggested_reject, timeout=5_000)


@pytest.fixture
def burst_window(qtbot, app_context, tmp_path: Path):
    main = shown_main_window(qtbot, app_context, xmp=False)
    ids = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(tmp_path / f"b{n}.jpg"), folder_id=None, status="ok") for n in range(4)]
    )
    overall = [3.0, 4.5, 2.0, 3.3]
    settle_profile_events(qtbot, main)
    main.model.set_rows([ImageRow(image_id=i, path=str(tmp_path / f"b{n}.jpg"), burst_id=7 if n < 3 else None,
                                  scores={"overall": overall[n]}) for n, i in enumerate(ids)])  # fmt: skip
    main.model.set_filter(FilterState(collapse_bursts=True))
    qtbot.waitUntil(lambda: not main.model.loading and main.model.burst_size(7) == 3, timeout=10_000)
    yield main, ids
    main.marks.close()


def test_a_mark_on_a_collapsed_burst_marks_the_frame_shown_unless_set_to_all_frames(qtbot, burst_window, app_context) -> None:
    main, ids = burst_window
    assert set(main.model.visible_ids()) == {ids[1], ids[3]}  # the burst shows its best frame
    assert expand_to_bursts(main.model, [ids[1]]) == [ids[1]]
    assert sorted(expand_to_bursts(main.model, [ids[1]], all_frames=True)) == ids[:3]
    assert main.grid.select_image(ids[1])
    qtbot.keyClick(main.grid, Qt.Key.Key_P)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == [None, "pick", None, None]
    assert "picks 0 → 1" in main.statusBar().currentMessage()
    main.marks.undo_stack.undo()
    main.marks.wait_written()
    app_context.settings[BURST_MARKS_SETTING] = True
    qtbot.keyClick(main.grid, Qt.Key.Key_P)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == ["pick", "pick", "pick", None]
    message = main.statusBar().currentMessage()
    assert "P applied to 3 frames (2 hidden in collapsed bursts)" in message and "picks 0 → 3" in message


def test_filtering_to_one_frame_of_a_burst_and_picking_picks_that_frame_only(qtbot, burst_window, app_context) -> None:
    main, ids = burst_window
    app_context.settings[BURST_MARKS_SETTING] = True  # even when marks reach a collapsed burst's frames
    main.filter_bar.search.setText("b0")
    main.filter_bar.search.editingFinished.emit()
    qtbot.waitUntil(lambda: main.model.visible_ids() == [ids[0]], timeout=5_000)
    assert main.grid.select_image(ids[0])
    qtbot.keyClick(main.grid, Qt.Key.Key_P)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == ["pick", None, None, None]
    assert "picks 0 → 1" in main.statusBar().currentMessage()


def test_a_collapsed_burst_shows_the_frame_the_user_marked(qtbot, burst_window) -> None:
    main, ids = burst_window
    rows = {r.image_id: r for r in main.model.all_rows()}
    assert ids[1] in main.model.visible_ids() and ids[2] not in main.model.visible_ids()  # nothing marked: the best
    for marks, cover in (({"stars": 2}, ids[2]), ({"label": "Red"}, ids[2]), ({"flag": "pick", "stars": 2}, ids[2])):
        main.model.set_rows([replace(row, **marks) if row.image_id == ids[2] else row for row in rows.values()])
        assert cover in main.model.visible_ids() and ids[1] not in main.model.visible_ids()
    # a pick beats more stars elsewhere; a reject is no choice: the auto best comes back
    main.model.set_rows([replace(rows[ids[0]], stars=5), replace(rows[ids[2]], flag="pick"), *(rows[i] for i in (ids[1], ids[3]))])
    assert ids[2] in main.model.visible_ids()
    main.model.set_rows([replace(rows[ids[2]], flag="reject"), *(rows[i] for i in (ids[0], ids[1], ids[3]))])
    assert ids[1] in main.model.visible_ids()
    index = main.model.index(main.model.position_of(ids[1]))
    assert "shows the technically best frame" in main.grid.explain(index)


def test_collapsing_bursts_keeps_a_hidden_frame_selected_as_its_burst(qtbot, burst_window) -> None:
    # a photographer on the third frame of a burst pressed Alt+B and was thrown back to the first
    # photograph of the shoot (trial on held6)
    main, ids = burst_window
    rows = main.model.all_rows()
    main.model.set_rows([replace(r, path=r.path.replace("b3", "a3"), name="", sort_name="") for r in rows])  # the single frame first
    main.model.set_filter(FilterState(collapse_bursts=False))
    qtbot.waitUntil(lambda: not main.model.loading and ids[2] in main.model.visible_ids(), timeout=10_000)
    assert main.model.visible_ids()[0] == ids[3]
    assert main.grid.select_image(ids[2])
    main.model.set_filter(FilterState(collapse_bursts=True))
    qtbot.waitUntil(lambda: not main.model.loading and ids[2] not in main.model.visible_ids(), timeout=10_000)
    assert main.grid.selected_ids() == [ids[1]]  # the burst's cover stands for the frame that was selected
    main.model.set_filter(FilterState(collapse_bursts=False))
    qtbot.waitUntil(lambda: not main.model.loading and ids[2] in main.model.visible_ids(), timeout=10_000)
    assert main.grid.selected_ids() == [ids[1]]


def test_copy_picks_to_a_folder_runs_as_a_job(qtbot, app_context, tmp_path: Path) -> None:
    from PIL import Image

    main = shown_main_window(qtbot, app_context)
    paths = [tmp_path / f"c{n}.jpg" for n in range(3)]
    for n, path in enumerate(paths):
        Image.new("RGB", (64, 48), (40 * n, 90, 120)).save(path)
    ids = app_context.profile.catalog.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in paths])
    main.model.set_rows([ImageRow(image_id=i, path=str(p), flag="pick" if n != 1 else None)
                         for n, (i, p) in enumerate(zip(ids, paths, strict=True))])  # fmt: skip
    dest = tmp_path / "picks"
    handle = main.copy_to_folder(str(dest))
    assert handle is not None
    qtbot.waitUntil(lambda: sorted(p.name for p in dest.glob("*.jpg")) == ["c0.jpg", "c2.jpg"], timeout=10_000)
    qtbot.waitUntil(lambda: "Copied 2 photographs" in main.statusBar().currentMessage(), timeout=10_000)
    main.marks.close()


def test_the_loupe_outlines_stored_faces_and_names_their_eyes(qtbot, app_context, tmp_path: Path) -> None:
    from PIL import Image

    main = shown_main_window(qtbot, app_context)
    path = tmp_path / "portrait.jpg"
    Image.new("RGB", (200, 100), (90, 90, 90)).save(path)
    (image_id,) = app_context.profile.catalog.write_images([ImageUpdate(path=str(path), folder_id=None, status="ok")])
    faces = [{"box": [0.25, 0.2, 0.2, 0.4], "eyes": "open", "sharpness": 3.0}]
    app_context.profile.checks.put_many([(image_id, checks_version(), REJECT, faces, "reject")])
    main.model.set_rows([ImageRow(image_id=image_id, path=str(path), suggested_reject=True)])
    main.loupe.view.set_image(None)
    main.loupe.show_image(image_id)
    from PySide6.QtGui import QImage

    main.loupe.view.set_image(QImage(200, 100, QImage.Format.Format_RGB32))
    (outline,) = main.loupe.view.overlay_items
    assert outline.rect().getRect() == (50.0, 20.0, 40.0, 40.0)
    assert "1 face (eyes open)" in main.loupe.caption.text()
    assert "Suggested reject" in main.loupe.caption.text()
    # a trial read "1 face100%": a long caption is cut at its own edge, never run into the zoom
    main.show_view("loupe")
    main.resize(420, 480)
    qtbot.waitUntil(lambda: main.loupe.zoom_label.text() != "")
    QApplication.processEvents()
    assert main.loupe.zoom_label.geometry().left() - main.loupe.caption.geometry().right() >= 12
    assert main.loupe.caption.toolTip() == main.loupe.caption.text()
    main.marks.close()


def test_keep_the_best_lists_what_it_rejects_and_ctrl_z_right_after_undoes_it(qtbot, burst_window, app_context) -> None:
    from PySide6.QtWidgets import QApplication

    main, ids = burst_window
    main.filter_bar.search.setFocus()  # where the keys were before the menu was used
    assert rest_of_bursts(main.model.all_rows()) == [ids[0], ids[2]]
    dialog = main._keep_best_of_bursts()
    assert dialog is not None and dialog.isVisible()
    assert [(t.row.image_id, t.kept) for t in dialog.tiles] == [(ids[1], True), (ids[0], False), (ids[2], False)]
    assert "Reject 2 frames of 1 burst" in dialog.summary.text() and dialog.reject_button.text() == "Reject 2 frames"
    assert dialog.scroll_area.widgetResizable()  # a long list scrolls
    qtbot.mouseClick(dialog.reject_button, Qt.MouseButton.LeftButton)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == ["reject", None, "reject", None]
    assert "Ctrl+Z undoes it" in main.statusBar().currentMessage()
    # the window has the keyboard again, on the grid (not on the file-name box, which would eat Ctrl+Z)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is main.grid)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == [None, None, None, None]


def test_ctrl_z_in_the_file_name_box_with_nothing_typed_undoes_the_last_mark(qtbot, burst_window, app_context) -> None:
    from PySide6.QtWidgets import QApplication

    main, ids = burst_window
    main.activateWindow()
    assert main.grid.select_image(ids[3])
    qtbot.keyClick(main.grid, Qt.Key.Key_3)
    main.marks.wait_written()
    assert app_context.profile.marks.get(ids[3]).stars == 3
    main.filter_bar.search.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is main.filter_bar.search)
    qtbot.keyClick(main.filter_bar.search, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    main.marks.wait_written()
    assert app_context.profile.marks.get(ids[3]).stars == 0


def test_a_pick_on_a_hidden_frame_becomes_the_collapsed_bursts_frame(qtbot, burst_window, app_context) -> None:
    """A trial picked a frame in the survey; back in the grid the collapsed burst still showed the
    over-exposed frame it had shown, without a P, and Enter opened that frame."""
    main, ids = burst_window
    assert main.grid.select_image(ids[1])  # the burst's cover, its technically best frame
    main.marks.mark([ids[2]], flag="pick")  # picked elsewhere (the survey): a frame the grid hides
    main.marks.wait_written()
    qtbot.waitUntil(lambda: ids[2] in main.model.visible_ids(), timeout=5_000)
    assert ids[1] not in main.model.visible_ids()
    assert main.grid.selected_ids() == [ids[2]]  # the selection follows the burst to its new frame


def test_a_reject_of_the_frame_a_collapsed_burst_shows_leaves_it_in_view(qtbot, burst_window, app_context) -> None:
    """An attack: X on the burst's frame, and a second later the view moved to another frame of the
    burst by itself; a second X, pressed because the first seemed lost, rejected a frame never seen."""
    main, ids = burst_window
    assert main.grid.select_image(ids[1])
    qtbot.keyClick(main.grid, Qt.Key.Key_X)
    main.marks.wait_written()
    qtbot.wait(1_500)  # past the re-arrangement a pick would start
    assert ids[1] in main.model.visible_ids() and main.grid.selected_ids() == [ids[1]]
    qtbot.keyClick(main.grid, Qt.Key.Key_X)  # again: still the same frame, nothing else rejected
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == [None, "reject", None, None]


def test_accepting_suggestions_takes_the_frames_behind_a_collapsed_bursts_tile_and_says_so(qtbot, burst_window, app_context) -> None:
    """A trial: with bursts collapsed, Ctrl+Shift+X rejected the 38 tiles shown and left the 27
    suggestions behind them, without a word."""
    main, ids = burst_window
    rows = {r.image_id: r for r in main.model.all_rows()}
    main.model.set_rows([replace(r, suggested_reject=r.image_id in (ids[0], ids[2])) for r in rows.values()])
    qtbot.waitUntil(lambda: not main.model.loading and main.model.burst_size(7) == 3, timeout=10_000)
    assert ids[0] not in main.model.visible_ids() and ids[2] not in main.model.visible_ids()
    main.grid.setFocus()
    qtbot.keyClick(main.grid, Qt.Key.Key_X, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == ["reject", None, "reject", None]
    assert "Rejected 2 suggested frames (2 hidden in collapsed bursts)" in main.statusBar().currentMessage()
    culling = next(a.menu() for a in main.menuBar().actions() if a.text() == "&Culling")
    assert main.keep_best_action in culling.actions() and main.accept_suggestions_action in culling.actions()


def test_accepting_suggestions_never_rejects_a_frame_the_user_picked(qtbot, burst_window, app_context) -> None:
    """An attack: a pick on a hidden frame that the checks had suggested (the row still said so) became a
    reject under Ctrl+Shift+X, out of sight."""
    main, ids = burst_window
    rows = {r.image_id: r for r in main.model.all_rows()}
    main.model.set_rows([replace(r, suggested_reject=r.image_id in (ids[0], ids[2])) for r in rows.values()])
    qtbot.waitUntil(lambda: not main.model.loading and main.model.burst_size(7) == 3, timeout=10_000)
    main.marks.mark([ids[2]], flag="pick")
    main.marks.wait_written()
    qtbot.waitUntil(lambda: main.model.row_for(ids[2]).flag == "pick", timeout=5_000)
    assert not main.model.row_for(ids[2]).suggested_reject  # the row itself says so now, for every view
    assert accept_suggestions_in_view(main.model, main.marks)[0] == 1
    main.marks.wait_written()
    assert app_context.profile.marks.get(ids[2]).flag == "pick" and app_context.profile.marks.get(ids[0]).flag == "reject"


def test_enter_or_escape_in_the_file_name_box_gives_the_keys_back_to_the_grid(qtbot, window) -> None:
    # held11 trial: after Enter in the file-name box the next X typed "IMG_0096x" into it
    main, _ids = window
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Escape):
        main.filter_bar.search.setFocus()
        qtbot.waitUntil(lambda: QApplication.focusWidget() is main.filter_bar.search)
        qtbot.keyClicks(main.filter_bar.search, "1")
        qtbot.keyClick(main.filter_bar.search, key)
        qtbot.waitUntil(lambda: QApplication.focusWidget() is main.grid)
        assert main.filter_bar.search.text() == ("1" if key == Qt.Key.Key_Return else "11")


def test_picking_a_selection_leaves_an_unreadable_file_unpicked_and_says_so(qtbot, app_context, tmp_path: Path) -> None:
    # held11 trial: Select all, P picked the truncated file, which would have gone out with the delivery
    main = shown_main_window(qtbot, app_context, xmp=False)
    ids = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(tmp_path / f"{n}.jpg"), folder_id=None, status="ok" if n < 2 else "error") for n in range(3)]
    )
    settle_profile_events(qtbot, main)
    main.model.set_rows([ImageRow(image_id=i, path=str(tmp_path / f"{n}.jpg"), status="ok" if n < 2 else "error")
                         for n, i in enumerate(ids)])  # fmt: skip
    main.grid.selectAll()
    main.grid.setFocus()
    qtbot.keyClick(main.grid, Qt.Key.Key_P)
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids] == ["pick", "pick", None]
    qtbot.waitUntil(lambda: "1 unreadable left unpicked" in main.statusBar().currentMessage(), timeout=5_000)
    main.grid.select_image(ids[2])
    qtbot.keyClick(main.grid, Qt.Key.Key_X)  # a reject of it alone is fine
    main.marks.wait_written()
    assert app_context.profile.marks.get(ids[2]).flag == "reject"
    main.marks.close()


@pytest.fixture
def suggested_window(qtbot, app_context, tmp_path: Path):
    """The window over eight frames, the first six suggested rejects, showing Suggested rejects only,
    the keyboard on the grid at the first frame."""
    main = shown_main_window(qtbot, app_context, xmp=False)
    ids = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(tmp_path / f"IMG_{n:04d}.jpg"), folder_id=None, status="ok") for n in range(8)]
    )
    app_context.profile.checks.put_many([(i, checks_version(), REJECT, [], "reject") for i in ids[:6]])
    app_context.signals.library_changed.emit()
    settle_profile_events(qtbot, main)
    qtbot.waitUntil(lambda: not main.model.loading and sum(r.suggested_reject for r in main.model.all_rows()) == 6, timeout=10_000)
    main.activateWindow()
    main.grid.setFocus()
    qtbot.keyClick(main.grid, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # suggested rejects only
    assert main.model.visible_ids() == ids[:6]
    assert main.grid.select_image(ids[0])
    yield main, ids
    main.marks.close()


def test_frames_dealt_with_under_a_filter_stay_listed_when_something_else_rearranges_it(
    qtbot, suggested_window, app_context
) -> None:
    """A trial under Suggested rejects only, Right then X: a mark from the command line (or one
    Ctrl+Shift+U) re-applied the filter, every frame already rejected vanished at once (53 → 23) and
    the next key landed on another frame than the one the photographer was on."""
    from aesthete_gui.store import open_profile

    main, ids = suggested_window
    model = main.model
    qtbot.keyClick(main.grid, Qt.Key.Key_X)
    qtbot.keyClick(main.grid, Qt.Key.Key_Right)
    qtbot.keyClick(main.grid, Qt.Key.Key_X)
    main.marks.wait_written()
    assert main.grid.selected_ids() == [ids[1]]
    with qtbot.waitSignal(model.arranged, timeout=10_000):  # a mark from the command line re-applies the filter
        command_line = open_profile(app_context.profile_path, actor="cli")
        command_line.marks.set(ids[5], stars=2)
        command_line.close()
    assert model.row_for(ids[5]).stars == 2
    assert model.visible_ids() == ids[:6]  # the two rejected frames are still listed, in place
    assert main.grid.selected_ids() == [ids[1]]  # and the photographer is still on the same frame
    assert main.count_label.text().startswith("6 of 8 shown (2 no longer pass the filter: kept until you change it)")
    qtbot.keyClick(main.grid, Qt.Key.Key_Right)
    qtbot.keyClick(main.grid, Qt.Key.Key_X)  # the next frame in the rhythm, not one further on
    main.marks.wait_written()
    assert [app_context.profile.marks.get(i).flag for i in ids[:4]] == ["reject", "reject", "reject", None]

    qtbot.keyClick(main.grid, Qt.Key.Key_Right)
    with qtbot.waitSignal(model.arranged, timeout=10_000):  # one dismiss re-reads its checks and re-applies it too
        qtbot.keyClick(main.grid, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert app_context.profile.checks.suggested_rejects() == set(ids[4:6])
    assert model.visible_ids() == ids[:6] and main.grid.selected_ids() == [ids[3]]
    assert main.count_label.text().startswith("6 of 8 shown (4 no longer pass the filter")
    app_context.signals.library_changed.emit()  # a whole reload (an import elsewhere) keeps them too
    settle_profile_events(qtbot, main)
    assert model.visible_ids() == ids[:6] and main.grid.selected_ids() == [ids[3]]

    qtbot.keyClick(main.grid, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # the photographer's own change
    qtbot.keyClick(main.grid, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # of the filter applies it afresh
    assert model.visible_ids() == ids[4:6]
    assert main.count_label.text().startswith("2 of 8 shown") and "no longer pass" not in main.count_label.text()
