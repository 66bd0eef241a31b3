"""Compare view: keyboard choices are stored at once with the order shown, undo removes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent

from aesthete_gui.qt.widgets.compare_view import CompareView, random_unjudged_pair
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import write_test_images


def add_images(context, folder: Path, count: int) -> list[int]:
    """Write real JPEGs and register them in the profile as imported images."""
    paths = write_test_images(folder, count, size=(200, 150))  # large enough to judge (>= 128 px)
    updates = [ImageUpdate(path=str(p), folder_id=None, status="ok", width=200, height=150,
                           format="JPEG") for p in paths]
    return context.profile.catalog.write_images(updates)


@pytest.fixture
def compare(qtbot, app_context, tmp_path):
    add_images(app_context, tmp_path / "shoot", 6)
    view = CompareView(app_context)
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    qtbot.waitUntil(lambda: view.current_pair() is not None)
    yield view
    view.close()


def test_left_key_stores_left_as_winner_in_order_shown(qtbot, compare, app_context) -> None:
    pair = compare.current_pair()
    qtbot.keyClick(compare, Qt.Key.Key_Left)
    choices = app_context.profile.choices.all()
    assert len(choices) == 1
    stored = choices[0]
    assert (stored.image_a, stored.image_b) == (pair.left.id, pair.right.id)
    assert stored.winner == "a"
    assert stored.dimension == "overall"
    assert stored.session == compare.session
    assert stored.app_state["left"] == pair.left.path
    assert compare.current_pair() != pair  # moved on to the next pair


def test_right_and_down_keys_store_b_and_tie(qtbot, compare, app_context) -> None:
    qtbot.keyClick(compare, Qt.Key.Key_Right)
    qtbot.keyClick(compare, Qt.Key.Key_Down)
    assert [c.winner for c in app_context.profile.choices.all()] == ["b", "tie"]
    assert "2 choices on overall" in compare.counter_label.text()


def test_ctrl_z_removes_the_last_choice_and_shows_its_pair_again(qtbot, compare, app_context) -> None:
    first = compare.current_pair()
    qtbot.keyClick(compare, Qt.Key.Key_Left)
    second = compare.current_pair()
    qtbot.keyClick(compare, Qt.Key.Key_Right)
    assert len(app_context.profile.choices.all()) == 2
    qtbot.keyClick(compare, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    remaining = app_context.profile.choices.all()
    assert [c.winner for c in remaining] == ["a"]
    assert compare.current_pair() == second
    qtbot.keyClick(compare, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert app_context.profile.choices.all() == []
    assert compare.current_pair() == first
    qtbot.keyClick(compare, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "Nothing to undo" in compare.status_label.text()


def test_dimension_key_cycles_and_choices_carry_the_dimension(qtbot, compare, app_context) -> None:
    qtbot.keyClick(compare, Qt.Key.Key_D)
    assert compare.dimension == "technique"
    qtbot.keyClick(compare, Qt.Key.Key_Left)
    assert [c.dimension for c in app_context.profile.choices.all()] == ["technique"]
    assert app_context.profile.choices.all("overall") == []


def test_choices_changed_signal_fires_for_choice_and_undo(qtbot, compare, app_context) -> None:
    with qtbot.waitSignal(app_context.signals.choices_changed):
        qtbot.keyClick(compare, Qt.Key.Key_Left)
    with qtbot.waitSignal(app_context.signals.choices_changed):
        compare.undo_button.click()
    assert app_context.profile.choices.all() == []


def test_previews_load_and_zoom_is_synchronised(qtbot, compare) -> None:
    qtbot.waitUntil(lambda: compare.left_view.has_image() and compare.right_view.has_image())
    left = compare.left_view
    centre = left.viewport().rect().center()
    wheel = QWheelEvent(QPointF(centre), QPointF(left.mapToGlobal(centre)), QPoint(0, 0),
                        QPoint(0, 240), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    left.wheelEvent(wheel)
    assert left.zoom > 1.4
    assert compare.right_view.zoom == pytest.approx(left.zoom)


def test_a_single_image_library_says_what_is_needed(qtbot, app_context, tmp_path) -> None:
    add_images(app_context, tmp_path / "one", 1)
    view = CompareView(app_context)
    qtbot.addWidget(view)
    view.show()
    assert view.current_pair() is None
    assert "at least two images" in view.status_label.text()
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert app_context.profile.choices.all() == []


def test_unreadable_image_shows_a_reason_instead_of_crashing(qtbot, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 2)
    broken = app_context.profile.catalog.image_by_id(ids[1])
    Path(broken.path).write_bytes(b"not an image at all")
    view = CompareView(app_context)
    qtbot.addWidget(view)
    view.show_pair(ids[0], ids[1])
    qtbot.waitUntil(lambda: "Cannot show" in view.right_view._message_item.toPlainText())
    assert view.left_view.has_image() or view._loader.wait_idle(5000)


def test_random_unjudged_pair_prefers_pairs_without_choices() -> None:
    import random

    pool = [1, 2, 3]
    judged = {frozenset((1, 2)), frozenset((1, 3))}
    for seed in range(20):
        pair = random_unjudged_pair(pool, judged, random.Random(seed))
        assert frozenset(pair) == frozenset((2, 3))
    assert random_unjudged_pair([1], set(), random.Random(0)) is None


def test_held_out_agreement_and_taste_suggestions_arrive(qtbot, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 12)
    pairs = [(ids[i], ids[j]) for i in range(len(ids)) for j in range(i + 1, len(ids))][:45]
    for early, late in pairs:  # this user always prefers the later (bluer) frame
        app_context.profile.choices.add(early, late, "b")
    view = CompareView(app_context)
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    qtbot.waitUntil(lambda: "Predicts your held-out choices" in view.agreement_label.text(),
                    timeout=180000)
    assert "base scorer" in view.agreement_label.text()
    qtbot.waitUntil(lambda: bool(view._suggestions), timeout=180000)
    qtbot.keyClick(view, Qt.Key.Key_Down)  # the pair on screen may still be a random one
    assert view.current_pair().suggested_by == "taste"
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert app_context.profile.choices.all()[-1].app_state["suggested_by"] == "taste"


def test_in_the_main_window_compare_keys_win_over_window_shortcuts(qtbot, app_context, tmp_path) -> None:
    from aesthete_gui.qt.main_window import MainWindow

    add_images(app_context, tmp_path / "shoot", 4)
    app_context.settings["welcome_done"] = True
    window = MainWindow(app_context)
    qtbot.addWidget(window)
    window.show()
    window.show_view("compare")
    compare = window.compare
    qtbot.waitUntil(lambda: compare.current_pair() is not None)
    compare.setFocus()
    qtbot.keyClick(compare, Qt.Key.Key_Right)
    assert [c.winner for c in app_context.profile.choices.all()] == ["b"]
    # Ctrl+Z is also the window's "undo marks" shortcut: in Compare it removes the choice.
    qtbot.keyClick(compare, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert app_context.profile.choices.all() == []
    window.marks.close()


def test_panning_one_image_pans_the_other(qtbot, compare) -> None:
    qtbot.waitUntil(lambda: compare.left_view.has_image() and compare.right_view.has_image())
    left, right = compare.left_view, compare.right_view
    left.zoom_by(4.0)
    assert right.zoom == pytest.approx(4.0)
    bar = left.horizontalScrollBar()
    bar.setValue(bar.minimum())  # what a drag to the far left does
    assert left.centre_fraction().x() < 0.3
    assert right.centre_fraction().x() == pytest.approx(left.centre_fraction().x(), abs=0.02)
    qtbot.keyClick(compare, Qt.Key.Key_F)
    assert left.zoom == 1.0 and right.zoom == 1.0


def test_compare_skips_rejects_and_tiny_images_unless_asked(qtbot, app_context, tmp_path) -> None:
    import random

    ids = add_images(app_context, tmp_path / "shoot", 5)
    tiny_path = write_test_images(tmp_path / "tiny", 1, size=(40, 30))[0]
    [tiny] = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(tiny_path), folder_id=None, status="ok", width=40, height=30, format="JPEG")])
    rejected = ids[0]
    app_context.profile.marks.set(rejected, flag="reject")
    view = CompareView(app_context)
    view._rng = random.Random(0)
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    qtbot.waitUntil(lambda: view.current_pair() is not None)

    def shown_over(skips: int) -> set[int]:
        seen: set[int] = set()
        for _ in range(skips):
            pair = view.current_pair()
            seen |= {pair.left.id, pair.right.id}
            qtbot.keyClick(view, Qt.Key.Key_S)
        return seen

    seen = shown_over(25)
    assert tiny not in seen and rejected not in seen
    assert seen == set(ids[1:])
    view.rejects_check.setChecked(True)
    assert app_context.settings["compare_include_rejects"] is True
    seen = shown_over(25)
    assert rejected in seen and tiny not in seen
