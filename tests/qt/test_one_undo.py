"""One undo history across views, and profile changes announcing themselves to the views."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from aesthete_gui.imaging.xmp import XmpMarks, read_sidecar
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState
from aesthete_gui.services import scorer_registry
from aesthete_gui.services.choices import ChoiceBatch, ChoiceDraft, add_choices
from aesthete_gui.store import events
from tests.imaging.test_xmp_cas import sidecar_text, write_by_rename
from tests.qt.conftest import write_test_images


@pytest.fixture
def window(qtbot, app_context, tmp_path):
    """The main window over a profile with six imported images."""
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    write_test_images(tmp_path / "shoot", 6, size=(200, 150))  # Compare offers images >= 128 px only
    handle = main.import_folders([tmp_path / "shoot"])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == 6, timeout=10_000)
    yield main
    main.marks.close()


def test_one_undo_reverts_a_mark_a_choice_and_a_set_verdict_made_in_three_views(qtbot, window) -> None:
    profile = window.context.profile
    ids = [window.model.row_at(i).image_id for i in range(6)]

    window.show_view("grid")  # 1. a mark in the grid
    window.grid.setFocus()
    assert window.grid.select_image(ids[0])
    qtbot.keyClick(window.grid, Qt.Key.Key_P)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.marks.get(ids[0]).flag == "pick")

    compare = window.compare
    compare.rejects_check.setChecked(True)  # the smooth test gradients read as soft: suggested rejects
    window.show_view("compare")  # 2. a choice in Compare
    qtbot.waitUntil(lambda: compare.current_pair() is not None)
    compare.setFocus()
    qtbot.keyClick(compare, Qt.Key.Key_Left)
    assert [c.winner for c in profile.choices.all()] == ["a"]
    compare_choice = profile.choices.all()[0].id

    window.show_view("set")  # 3. a verdict in Set
    view = window.set_view
    assert view.set_images(ids[3:6])
    view._cards[0].best_button.click()
    view._cards[2].worst_button.click()
    view.record_button.click()
    assert len(profile.choices.all()) == 4

    window.show_view("grid")  # undo from any view, newest first
    window.undo_action.trigger()
    assert [c.id for c in profile.choices.all()] == [compare_choice]
    window.undo_action.trigger()
    assert profile.choices.all() == []
    assert profile.marks.get(ids[0]).flag == "pick"
    window.undo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.marks.get(ids[0]).flag is None)
    assert not window.context.undo_stack.canUndo()

    window.redo_action.trigger()  # redo walks forward again: the mark, then the Compare choice
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.marks.get(ids[0]).flag == "pick")
    window.redo_action.trigger()
    assert [c.winner for c in profile.choices.all()] == ["a"]


def test_changes_from_a_worker_thread_reach_the_views_on_the_ui_thread(qtbot, window) -> None:
    profile = window.context.profile
    ids = [window.model.row_at(i).image_id for i in range(2)]
    seen_threads: list[threading.Thread] = []
    window.context.signals.scores_changed.connect(lambda: seen_threads.append(threading.current_thread()))
    worker = threading.Thread(target=scorer_registry.score_with, args=(profile, "builtin", ids))
    with qtbot.waitSignal(window.context.signals.scores_changed, timeout=30_000):
        worker.start()
        worker.join()
    assert seen_threads == [threading.main_thread()]
    qtbot.waitUntil(lambda: bool(window.model.row_for(ids[0]).scores), timeout=10_000)


def test_a_choice_written_by_a_service_updates_compare_without_a_manual_signal(qtbot, window) -> None:
    compare = window.compare
    ids = [window.model.row_at(i).image_id for i in range(2)]
    before = compare.counter_label.text()
    add_choices(window.context.profile, ChoiceBatch((ChoiceDraft(ids[0], ids[1], "b"),)))
    assert compare.counter_label.text() != before and compare.counter_label.text().startswith("1 choice ")


def test_a_failing_subscriber_does_not_stop_the_others(app_context) -> None:
    seen: list[object] = []

    def broken(_event: object) -> None:
        raise RuntimeError("a broken view")

    undo_broken = app_context.profile.events.subscribe(broken)
    undo_seen = app_context.profile.events.subscribe(seen.append)
    image_id = app_context.profile.catalog.ensure_image("/photos/new.jpg")
    undo_broken()
    undo_seen()
    assert seen == [events.ImagesChanged((image_id,))]


def _sidecar(image_path: str) -> Path:
    return Path(image_path).with_suffix(".xmp")


def test_a_key_pressed_after_another_program_set_the_rating_keeps_it_and_the_view_shows_it(qtbot, window) -> None:
    """Issue 20: the window showed 1 star, another program set Rating 5; pressing 7 wrote 1 back."""
    profile = window.context.profile
    row = window.model.row_at(0)
    window.grid.setFocus()
    assert window.grid.select_image(row.image_id)
    qtbot.keyClick(window.grid, Qt.Key.Key_1)
    window.marks.wait_written()
    sidecar = _sidecar(row.path)
    qtbot.waitUntil(sidecar.is_file)
    time.sleep(0.02)
    write_by_rename(sidecar, sidecar_text(5, "wedding"))  # the window still shows 1 star
    assert window.model.row_for(row.image_id).stars == 1
    qtbot.keyClick(window.grid, Qt.Key.Key_7)
    window.marks.wait_written()
    assert read_sidecar(row.path) == XmpMarks(stars=5, label="Yellow")
    assert "<rdf:li>wedding</rdf:li>" in sidecar.read_text(encoding="utf-8")
    assert (profile.marks.get(row.image_id).stars, profile.marks.get(row.image_id).label) == (5, "Yellow")
    qtbot.waitUntil(lambda: window.model.row_for(row.image_id).stars == 5)  # the view shows the edit
    window.undo_action.trigger()  # undo takes back the label only, and the sidecar's bytes
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.marks.get(row.image_id).label is None)
    assert profile.marks.get(row.image_id).stars == 5
    assert sidecar.read_text(encoding="utf-8") == sidecar_text(5, "wedding")


def test_undo_of_a_batch_reject_restores_every_sidecar_and_keeps_other_programs_edits(qtbot, window) -> None:
    """Issue 19 point 6: a batch (as keep-best and accept-suggestions make) undone leaves no new sidecars."""
    rows = [window.model.row_at(i) for i in range(6)]
    kept = _sidecar(rows[0].path)
    kept.write_text(sidecar_text(2, "existing"), encoding="utf-8")
    original = kept.read_bytes()
    messages: list[str] = []
    window.marks.notice.connect(messages.append)
    window.marks.mark([r.image_id for r in rows], flag="reject")  # one undoable step
    window.marks.wait_written()
    assert all(read_sidecar(r.path).flag == "reject" for r in rows)
    write_by_rename(_sidecar(rows[5].path), sidecar_text(-1, "edited since"))
    window.undo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: bool(messages))
    assert kept.read_bytes() == original
    assert [_sidecar(r.path).exists() for r in rows] == [True, False, False, False, False, True]
    assert "edited since" in _sidecar(rows[5].path).read_text()  # not deleted: another program changed it
    assert read_sidecar(rows[5].path).flag is None  # but the reject is taken back there too
    assert messages == ["1 sidecar was changed by another program since the mark: only the marks were "
                        "taken back there, its other edits kept"]  # fmt: skip
    assert all(window.context.profile.marks.get(r.image_id).flag is None for r in rows)
    assert not [p for p in _sidecar(rows[0].path).parent.iterdir() if p.name.endswith(".tmp")]


def test_treat_pairs_as_one_is_a_checkable_edit_action_stored_for_the_command_line(window) -> None:
    from aesthete_gui.settings import PAIRS_AS_ONE_KEY, profile_setting

    action = window.pairs_action
    assert action.isCheckable() and not action.isChecked()
    assert action in window.menuBar().actions()[1].menu().actions()  # the Edit menu
    action.trigger()
    assert window.context.settings[PAIRS_AS_ONE_KEY] is True
    assert profile_setting(window.context.profile_path, PAIRS_AS_ONE_KEY) is True
