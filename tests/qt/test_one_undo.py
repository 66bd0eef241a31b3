"""One undo history across views, and profile changes announcing themselves to the views."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState
from aesthete_gui.services import events, scorer_registry
from aesthete_gui.services.choices import ChoiceBatch, ChoiceDraft, add_choices
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
    qtbot.waitUntil(lambda: profile.mark_for(ids[0]).flag == "pick")

    window.show_view("compare")  # 2. a choice in Compare
    compare = window.compare
    qtbot.waitUntil(lambda: compare.current_pair() is not None)
    compare.setFocus()
    qtbot.keyClick(compare, Qt.Key.Key_Left)
    assert [c.winner for c in profile.choices()] == ["a"]
    compare_choice = profile.choices()[0].id

    window.show_view("set")  # 3. a verdict in Set
    view = window.set_view
    assert view.set_images(ids[3:6])
    view._cards[0].best_button.click()
    view._cards[2].worst_button.click()
    view.record_button.click()
    assert len(profile.choices()) == 4

    window.show_view("grid")  # undo from any view, newest first
    window.undo_action.trigger()
    assert [c.id for c in profile.choices()] == [compare_choice]
    window.undo_action.trigger()
    assert profile.choices() == []
    assert profile.mark_for(ids[0]).flag == "pick"
    window.undo_action.trigger()
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.mark_for(ids[0]).flag is None)
    assert not window.context.undo_stack.canUndo()

    window.redo_action.trigger()  # redo walks forward again: the mark, then the Compare choice
    window.marks.wait_written()
    qtbot.waitUntil(lambda: profile.mark_for(ids[0]).flag == "pick")
    window.redo_action.trigger()
    assert [c.winner for c in profile.choices()] == ["a"]


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

    undo_broken = events.subscribe(app_context.profile, broken)
    undo_seen = events.subscribe(app_context.profile, seen.append)
    events.emit(app_context.profile, events.ImagesImported(3))
    undo_broken()
    undo_seen()
    assert seen == [events.ImagesImported(3)]
