"""The filter bar's name search waits for a pause in typing (or Enter) before it filters."""

from __future__ import annotations

from PySide6.QtCore import Qt

from aesthete_gui.qt.item_models import FilterState
from aesthete_gui.qt.widgets.filter_bar import SEARCH_DELAY_MS, FilterBar


def _bar(qtbot) -> tuple[FilterBar, list[FilterState]]:
    bar = FilterBar()
    qtbot.addWidget(bar)
    emitted: list[FilterState] = []
    bar.filter_changed.connect(emitted.append)
    return bar, emitted


def test_typing_a_word_filters_once_after_a_pause(qtbot) -> None:
    bar, emitted = _bar(qtbot)
    qtbot.keyClicks(bar.search, "frame_01")
    assert emitted == []
    qtbot.waitUntil(lambda: len(emitted) == 1, timeout=SEARCH_DELAY_MS * 10)
    qtbot.wait(SEARCH_DELAY_MS * 2)
    assert [state.text for state in emitted] == ["frame_01"]


def test_enter_applies_the_search_at_once_and_only_once(qtbot) -> None:
    bar, emitted = _bar(qtbot)
    qtbot.keyClicks(bar.search, "img")
    qtbot.keyClick(bar.search, Qt.Key.Key_Return)
    assert [state.text for state in emitted] == ["img"]
    qtbot.wait(SEARCH_DELAY_MS * 2)
    assert len(emitted) == 1


def test_another_control_applies_pending_text_with_its_own_change(qtbot) -> None:
    bar, emitted = _bar(qtbot)
    qtbot.keyClicks(bar.search, "img")
    bar.stars.setCurrentIndex(bar.stars.findData(3))
    assert [(state.min_stars, state.text) for state in emitted] == [(3, "img")]
    qtbot.wait(SEARCH_DELAY_MS * 2)
    assert len(emitted) == 1


def test_a_saved_filter_sets_the_search_text_without_a_second_emission(qtbot) -> None:
    bar, emitted = _bar(qtbot)
    bar.set_state(FilterState(text="frame"))
    qtbot.wait(SEARCH_DELAY_MS * 2)
    assert [state.text for state in emitted] == ["frame"]
