"""The shell end to end: import a folder as a job, cull with the keyboard, XMP written, undo, cancel."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from aesthete_gui.imaging.xmp import read_sidecar
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState
from tests.qt.conftest import write_test_images


@pytest.fixture
def window(qtbot, app_context):
    """The main window over a fresh profile (welcome already dismissed)."""
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    yield main
    main.marks.close()


def _import(qtbot, window: MainWindow, folder: Path) -> None:
    handle = window.import_folders([folder])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: not window.model.loading and window.model.rowCount() > 0, timeout=10_000)


def test_import_then_cull_with_keyboard_writes_profile_and_xmp(qtbot, window, image_folder) -> None:
    _import(qtbot, window, image_folder)
    assert window.model.rowCount() == 12
    grid = window.grid
    grid.setFocus()
    assert grid.select_image(window.model.row_at(0).image_id)
    first = window.model.row_at(0)

    qtbot.keyClick(grid, Qt.Key.Key_3)
    qtbot.keyClick(grid, Qt.Key.Key_P)
    qtbot.keyClick(grid, Qt.Key.Key_6)
    qtbot.keyClick(grid, Qt.Key.Key_Right)
    qtbot.keyClick(grid, Qt.Key.Key_X)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.model.row_for(first.image_id).stars == 3)

    profile = window.context.profile
    mark = profile.marks.get(first.image_id)
    assert (mark.stars, mark.flag, mark.label) == (3, "pick", "Red")
    second = window.model.row_at(1)
    assert profile.marks.get(second.image_id).flag == "reject"
    sidecar = read_sidecar(first.path)
    assert sidecar is not None and sidecar.stars == 3 and sidecar.label == "Red"
    rejected = read_sidecar(second.path)
    assert rejected is not None and rejected.flag == "reject"
    # the delegate's row shows the new marks at once
    assert window.model.row_for(first.image_id).flag == "pick"


def test_a_mark_beside_an_unreadable_sidecar_is_kept_and_the_status_bar_says_so(qtbot, window, image_folder) -> None:
    first = sorted(image_folder.iterdir())[0]
    hostile = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="1e400"/></rdf:RDF></x:xmpmeta>'
    sidecar = first.with_name(first.name + ".xmp")
    sidecar.write_text(hostile)
    _import(qtbot, window, image_folder)
    row = next(window.model.row_at(i) for i in range(window.model.rowCount()) if window.model.row_at(i).path == str(first))
    window.grid.setFocus()
    assert window.grid.select_image(row.image_id)
    with qtbot.waitSignal(window.marks.failed, timeout=10_000) as failed:
        qtbot.keyClick(window.grid, Qt.Key.Key_3)  # stars: the field whose value cannot be read
    assert failed.args[0].startswith("mark saved in the profile; sidecar not written")
    assert "xmp:Rating is not a number" in failed.args[0]
    assert window.context.profile.marks.get(row.image_id).stars == 3
    assert sidecar.read_text() == hostile  # an unreadable value is never overwritten


def test_ctrl_z_undoes_the_last_mark_in_profile_and_view(qtbot, window, image_folder) -> None:
    _import(qtbot, window, image_folder)
    grid = window.grid
    grid.setFocus()
    image_id = window.model.row_at(2).image_id
    grid.select_image(image_id)
    qtbot.keyClick(grid, Qt.Key.Key_4)
    qtbot.keyClick(grid, Qt.Key.Key_2)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(image_id).stars == 2)

    window.undo_action.trigger()  # Ctrl+Z
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(image_id).stars == 4)
    assert window.model.row_for(image_id).stars == 4
    window.undo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(image_id).stars == 0)
    window.redo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(image_id).stars == 4)


def test_keyboard_shortcut_ctrl_z_reaches_the_undo_action(qtbot, window, image_folder) -> None:
    _import(qtbot, window, image_folder)
    window.activateWindow()
    grid = window.grid
    grid.setFocus()
    image_id = window.model.row_at(0).image_id
    grid.select_image(image_id)
    qtbot.keyClick(grid, Qt.Key.Key_5)
    window.marks.wait_written()
    assert window.undo_action.shortcut().toString() == "Ctrl+Z"
    qtbot.keyClick(grid, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(image_id).stars == 0)


def test_cancelled_import_leaves_a_consistent_profile_and_resumes(qtbot, window, tmp_path) -> None:
    folder = tmp_path / "big"
    write_test_images(folder, 150, size=(900, 600))
    handle = window.import_folders([folder])
    row = next(r for r in window.jobs.rows() if r.handle is handle)
    qtbot.waitUntil(lambda: handle.last_progress is not None and (handle.last_progress.total or 0) > 0,
                    timeout=30_000)  # fmt: skip
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state in (JobState.CANCELLED, JobState.FINISHED)

    profile = window.context.profile
    assert profile.integrity_check() == "ok"
    stored = profile.catalog.images()
    assert all(r.status == "ok" and r.content_hash for r in stored)
    assert len(stored) <= 150
    # importing again completes the library without duplicates
    _import(qtbot, window, folder)
    paths = [r.path for r in profile.catalog.images()]
    assert len(paths) == 150 == len(set(paths))
    qtbot.waitUntil(lambda: window.model.rowCount() == 150, timeout=10_000)


def test_loupe_steps_with_arrows_and_marks(qtbot, window, image_folder) -> None:
    _import(qtbot, window, image_folder)
    first = window.model.row_at(0).image_id
    window.open_in_loupe(first)
    assert window.current_view == "loupe"
    loupe = window.loupe
    qtbot.keyClick(loupe, Qt.Key.Key_Right)
    second = window.model.row_at(1).image_id
    assert loupe.image_id == second
    qtbot.keyClick(loupe, Qt.Key.Key_1)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(second).stars == 1)
    qtbot.waitUntil(lambda: loupe.view.has_image(), timeout=10_000)
    qtbot.keyClick(loupe, Qt.Key.Key_Escape)
    assert window.current_view == "grid"


def test_filter_bar_and_library_panel_scope_the_grid(qtbot, window, image_folder) -> None:
    _import(qtbot, window, image_folder)
    ids = window.model.visible_ids()
    window.marks.mark(ids[:3], stars=4)
    window.marks.mark(ids[:1], flag="pick")
    window.marks.wait_written()
    window.filter_bar.stars.setCurrentIndex(window.filter_bar.stars.findData(4))
    assert window.model.visible_ids() == ids[:3]
    window.filter_bar.flag.setCurrentIndex(window.filter_bar.flag.findData("pick"))
    assert window.model.visible_ids() == ids[:1]
    window.filter_bar.flag.setCurrentIndex(0)
    window.filter_bar.stars.setCurrentIndex(0)
    window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("name"))
    window.filter_bar.reverse.setChecked(True)
    assert window.model.visible_ids() == sorted(
        ids, key=lambda i: window.model.row_for(i).name, reverse=True
    )
    folder_id = window.context.profile.catalog.folders()[0].id
    window.library.scope_selected.emit(folder_id, None)
    assert window.model.rowCount() == 12
    window.library.scope_selected.emit(folder_id + 999, None)
    assert window.model.rowCount() == 0


def test_score_selection_and_library_with_builtin_scorer_fill_grid_and_inspector(qtbot, window, image_folder) -> None:
    _import(qtbot, window, image_folder)
    ids = window.model.visible_ids()
    window.grid.select_image(ids[0])
    handle = window.score_selection()
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: "overall" in window.model.row_for(ids[0]).scores, timeout=10_000)
    assert window.model.row_for(ids[1]).scores == {}
    qtbot.waitUntil(lambda: window.inspector.details is not None and bool(window.inspector.details.scores),
                    timeout=10_000)  # fmt: skip
    assert set(window.inspector.bars.scores()) == {"technique", "coloration", "composition", "mood", "overall"}

    handle = window.score_library()
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: all(window.model.row_for(i).scores for i in ids), timeout=10_000)
    window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("overall"))
    overall = [window.model.row_for(i).scores["overall"] for i in window.model.visible_ids()]
    assert overall == sorted(overall, reverse=True)


def _write_burst(folder: Path, frames: int) -> None:
    from PIL import Image

    write_test_images(folder, frames + 2, size=(160, 120))
    for index, path in enumerate(sorted(folder.glob("*.jpg"))):
        exif = Image.Exif()
        ifd = exif.get_ifd(0x8769)
        # the first `frames` files 0.3 s apart (a burst), the last two an hour later, apart
        seconds = index * 0.3 if index < frames else 3600 + index * 600
        ifd[0x9003] = f"2026:06:13 15:{int(seconds // 60) % 60:02d}:{int(seconds % 60):02d}"
        ifd[0x9291] = f"{round((seconds % 1) * 100):02d}"
        with Image.open(path) as img:
            img.load()
            rgb = img.convert("RGB")
        rgb.save(path, quality=90, exif=exif)


def test_bursts_listed_collapsed_and_scoped(qtbot, window, tmp_path) -> None:
    folder = tmp_path / "bursty"
    _write_burst(folder, 4)
    _import(qtbot, window, folder)
    qtbot.waitUntil(lambda: window.model.rowCount() == 6, timeout=10_000)
    bursts = {r.burst_id for r in window.model.all_rows() if r.burst_id is not None}
    assert len(bursts) == 1
    burst_id = bursts.pop()
    tree = window.library.tree
    titles = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert "Bursts  (1)" in titles
    section = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0) == "Bursts  (1)")
    assert section.child(0).text(0) == "frame_0000–0003  (4)"  # named by its frames, not "Burst 1"
    window.filter_bar.collapse.setChecked(True)
    assert window.model.rowCount() == 3
    assert window.model.burst_size(burst_id) == 4
    window.filter_bar.collapse.setChecked(False)
    window.library.scope_selected.emit(None, burst_id)
    assert window.model.rowCount() == 4


def test_saved_filter_and_theme_switch(qtbot, window, image_folder, monkeypatch) -> None:
    from PySide6.QtWidgets import QApplication

    _import(qtbot, window, image_folder)
    ids = window.model.visible_ids()
    window.marks.mark(ids[:2], flag="pick")
    window.marks.wait_written()
    window.filter_bar.flag.setCurrentIndex(window.filter_bar.flag.findData("pick"))
    monkeypatch.setattr("aesthete_gui.qt.main_window.QInputDialog.getText", lambda *a, **k: ("My picks", True))
    qtbot.mouseClick(window.filter_bar.save, Qt.MouseButton.LeftButton)
    assert "My picks" in window.context.settings["saved_filters"]
    window.filter_bar.flag.setCurrentIndex(0)
    assert window.model.rowCount() == 12
    tree = window.library.tree
    saved = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).text(0) == "Saved filters")  # fmt: skip
    item = next(saved.child(i) for i in range(saved.childCount()) if saved.child(i).text(0) == "My picks")
    tree.itemClicked.emit(item, 0)
    assert window.model.visible_ids() == ids[:2]

    window.theme_action.trigger()
    assert window.context.settings["theme"] == "light"
    light = QApplication.palette().window().color().lightness()
    window.theme_action.trigger()
    assert window.context.settings["theme"] == "dark"
    assert QApplication.palette().window().color().lightness() < light - 100


def test_cancelled_scoring_job_leaves_whole_score_rows(qtbot, window, tmp_path) -> None:
    folder = tmp_path / "to-score"
    write_test_images(folder, 40, size=(700, 500))
    _import(qtbot, window, folder)
    handle = window.score_library()
    row = next(r for r in window.jobs.rows() if r.handle is handle)
    qtbot.waitUntil(lambda: handle.state is not JobState.QUEUED, timeout=10_000)
    qtbot.mouseClick(row.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state in (JobState.CANCELLED, JobState.FINISHED)
    profile = window.context.profile
    assert profile.integrity_check() == "ok"
    stored = profile.scores.of_scorer("builtin")
    assert all(len(scores) == 5 for scores in stored.values())
    # scoring again finishes the job
    handle = window.score_library()
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    assert len(profile.scores.of_scorer("builtin")) == 40


def test_my_ranking_sort_follows_the_active_adapter_scores(qtbot, window, image_folder) -> None:
    from aesthete_gui.qt.actions import personal_scorer_id

    _import(qtbot, window, image_folder)
    profile = window.context.profile
    ids = window.model.visible_ids()
    assert personal_scorer_id(profile) is None
    profile.adapters.save("mine", "builtin", b"weights", {"note": "stored by the test"})
    profile.adapters.set_active("mine")
    scorer = personal_scorer_id(profile)
    assert scorer == "taste:mine"
    for rank, image_id in enumerate(ids):
        profile.scores.put(image_id, scorer, {"overall": 1.0 + rank * 0.25})
    window.context.signals.adapters_changed.emit()
    # every row, not the first: the scores arrive one event each, and a fresh clone's run once sorted
    # when only the first had its score
    qtbot.waitUntil(lambda: all(window.model.row_for(i).personal is not None for i in ids), timeout=10_000)
    window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("personal"))
    assert window.model.visible_ids() == ids[::-1]  # best personal score first


def test_reload_keeps_the_scroll_position(qtbot, window, tmp_path) -> None:
    folder = tmp_path / "many"
    write_test_images(folder, 60, size=(64, 48))
    _import(qtbot, window, folder)
    qtbot.waitUntil(lambda: window.model.rowCount() == 60, timeout=10_000)
    window.resize(900, 600)
    bar = window.grid.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)
    bar.setValue(bar.maximum() // 2)
    before = bar.value()
    window.model.reload()  # what an import's partial refresh or a finished scoring job does
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    assert bar.value() == before


def test_menus_open_taste_panel_and_explain_distillation_without_a_judge(qtbot, window, monkeypatch) -> None:
    from aesthete_gui.qt.dialogs import open_taste_panel

    dialog = open_taste_panel(window.context, window)
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and dialog.windowTitle() == "Taste and scores"
    told: list[str] = []
    monkeypatch.setattr("aesthete_gui.qt.window_jobs.QMessageBox.information",
                        lambda _parent, _title, text: told.append(text))  # fmt: skip
    assert window.distil() is None
    assert told and "Model manager" in told[0]
    assert not [h for h in window.context.runner.active_jobs() if h.name.startswith("Distil")]


def test_dropping_a_folder_on_the_window_imports_it(qtbot, window, image_folder, tmp_path) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    stray_file = tmp_path / "note.txt"
    stray_file.write_text("not a folder")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(image_folder)), QUrl.fromLocalFile(str(stray_file))])
    drop = QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)  # fmt: skip
    window.dropEvent(drop)
    qtbot.waitUntil(lambda: window.model.rowCount() == 12, timeout=60_000)
    assert [f.path for f in window.context.profile.catalog.folders()] == [str(image_folder)]


def test_in_the_set_view_edit_undo_removes_the_recorded_set_not_a_mark(qtbot, window, image_folder) -> None:
    _import(qtbot, window, image_folder)
    ids = [window.model.row_at(i).image_id for i in range(3)]
    window.show_view("set")
    view = window.set_view
    assert view.set_images(ids)
    view._cards[0].best_button.click()
    view._cards[2].worst_button.click()
    view.record_button.click()
    assert len(window.context.profile.choices.all()) == 3
    assert window.undo_action.shortcut().toString() == "Ctrl+Z"  # one Undo, in every view
    window.undo_action.trigger()
    assert window.context.profile.choices.all() == []
