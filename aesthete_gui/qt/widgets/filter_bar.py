"""The bar above the grid: sort order, and filters by stars, flag, label, capture time, score range,
bursts, closed eyes, name; one-key toggles for the common filters."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from datetime import date, datetime, timedelta

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.engine.dimensions import DIMENSIONS, SCORE_MAX, SCORE_MIN
from aesthete_gui.qt.item_models import SORT_KEYS, SORT_LABELS, FilterState
from aesthete_gui.store import COLOR_LABELS

FLAG_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("Any flag", None),
    ("Picks", "pick"),
    ("Rejects", "reject"),
    ("Unflagged", "unflagged"),
    ("Hide rejects", "not_reject"),
    ("Suggested rejects", "suggested"),
)
UNRATED = -1
"""The stars box's "Unrated" entry (FilterState.unrated)."""
QUICK_FILTERS: dict[str, str] = {"picks": "pick", "hide_rejects": "not_reject", "suggested": "suggested"}
"""One-key flag filters (View ▸ Quick filters): pressing one again shows every flag."""
HOURS_UP_TO_DAYS = 14
"""The capture-time box lists each hour of each day while the library spans at most this many days."""
SEARCH_DELAY_MS = 200
"""How long the name search waits after a key press before it re-filters the library."""


CLEAR_ACTION = "_q_qlineeditclearaction"
"""The object name Qt gives the action behind a QLineEdit's clear (×) button."""


class SearchBox(QLineEdit):
    """The file-name box: Enter or Esc ends typing (`done`), so the view takes the culling keys again
    (a held11 trial typed "IMG_0096x" into it after Enter, the X meant for the grid); so does its
    clear button (`cleared`, then `done`: a trial's × left the keyboard in the box, and the next X
    was typed into it)."""

    done = Signal()
    cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setClearButtonEnabled(True)
        clear = self.findChild(QAction, CLEAR_ACTION)
        if clear is not None:
            # queued: after Qt's own slot has emptied the box, whichever was connected first
            clear.triggered.connect(self._clear_used, Qt.ConnectionType.QueuedConnection)

    def _clear_used(self) -> None:
        self.cleared.emit()
        self.done.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter or Esc applies the text as typed and gives the keys back (the ⊗ button clears it)."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape):
            self.editingFinished.emit()
            self.done.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class FilterBar(QWidget):
    """Edits a FilterState and the sort order; emits them on every change."""

    filter_changed = Signal(object)  # FilterState
    sort_changed = Signal(str, bool)  # key, descending
    save_requested = Signal()
    control_used = Signal()  # a combo box, button or check box was used: give focus back to the view

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filterBar")
        self._state = FilterState()
        self._updating = False

        self.sort = QComboBox(self)
        for key in SORT_KEYS:
            self.sort.addItem(SORT_LABELS[key], key)
        self.sort.setToolTip("Sort by")
        self.reverse = QToolButton(self)
        self.reverse.setCheckable(True)
        self.reverse.setText("⇅")
        self.reverse.setToolTip("Reverse the order")

        self.stars = QComboBox(self)
        self.stars.addItem("Any stars", 0)
        self.stars.addItem("Unrated", UNRATED)
        for n in range(1, 6):
            self.stars.addItem("≥ " + "★" * n, n)
        self.flag = QComboBox(self)
        for text, value in FLAG_CHOICES:
            self.flag.addItem(text, value)
        self.label = QComboBox(self)
        self.label.addItem("Any label", None)
        for name in COLOR_LABELS:
            self.label.addItem(name, name)

        self.captured = QComboBox(self)
        self.captured.setToolTip("Only photographs captured on this day or in this hour")
        self.captured.addItem("Any time", None)

        self.dimension = QComboBox(self)
        for key in DIMENSIONS:
            self.dimension.addItem(key.capitalize(), key)
        self.dimension.setCurrentIndex(DIMENSIONS.index("overall"))
        self.dimension.setToolTip("Dimension for the score range")
        self.score_min = self._score_box("Lowest score shown (1.00 = no limit)", SCORE_MIN)
        self.score_max = self._score_box("Highest score shown (5.00 = no limit)", SCORE_MAX)

        self.collapse = QCheckBox("Collapse bursts", self)
        self.collapse.setToolTip("Show each burst as its best frame")
        self.eyes_closed = QCheckBox("Eyes closed", self)
        self.eyes_closed.setToolTip("Only photographs in which a face has both eyes closed")
        self.search = SearchBox(self)
        self.search.setPlaceholderText("File name…")
        self.search.setMaximumWidth(180)
        self.save = QPushButton("Save filter…", self)
        self._search_delay = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)

        # two rows, so that every control stays readable in a 1280 px window with both side panels
        first = QHBoxLayout()
        first.setSpacing(6)
        first.addWidget(QLabel("Sort", self))
        first.addWidget(self.sort)
        first.addWidget(self.reverse)
        first.addSpacing(12)
        for widget in (self.stars, self.flag, self.label, self.captured):
            first.addWidget(widget)
        first.addStretch(1)
        first.addWidget(self.search)
        second = QHBoxLayout()
        second.setSpacing(6)
        second.addWidget(QLabel("Score", self))
        second.addWidget(self.dimension)
        second.addWidget(self.score_min)
        second.addWidget(QLabel("to", self))
        second.addWidget(self.score_max)
        second.addSpacing(12)
        second.addWidget(self.collapse)
        second.addWidget(self.eyes_closed)
        second.addStretch(1)
        second.addWidget(self.save)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        layout.addLayout(first)
        layout.addLayout(second)

        self.sort.currentIndexChanged.connect(self._emit_sort)
        self.reverse.toggled.connect(self._emit_sort)
        for combo in (self.stars, self.flag, self.label, self.captured, self.dimension):
            combo.currentIndexChanged.connect(self._emit_filter)
        self.score_min.valueChanged.connect(self._emit_filter)
        self.score_max.valueChanged.connect(self._emit_filter)
        self.collapse.toggled.connect(self._emit_filter)
        self.eyes_closed.toggled.connect(self._emit_filter)
        # each key press would re-filter and re-sort the whole library: wait for a pause in typing
        self.search.textChanged.connect(self._search_typed)
        self._search_delay.timeout.connect(self._emit_filter)
        self.search.editingFinished.connect(self._apply_pending_search)
        self.search.cleared.connect(self._apply_pending_search)  # the whole library again at once
        self.save.clicked.connect(self.save_requested)
        # after a choice made with the mouse, the keys belong to the images again, not to the control
        for combo in (self.sort, self.stars, self.flag, self.label, self.captured, self.dimension):
            combo.activated.connect(self.control_used)
        self.reverse.clicked.connect(self.control_used)
        self.collapse.clicked.connect(self.control_used)
        self.eyes_closed.clicked.connect(self.control_used)
        self.search.done.connect(self.control_used)

    def _score_box(self, tip: str, value: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(SCORE_MIN, SCORE_MAX)
        box.setDecimals(2)
        box.setSingleStep(0.25)
        box.setValue(value)
        box.setToolTip(tip)
        return box

    @property
    def state(self) -> FilterState:
        """The filter shown (library panel parts such as folder and burst included)."""
        return self._state

    def set_scope(self, folder_id: int | None = None, burst_id: int | None = None, unreadable: bool = False) -> None:
        """Restrict to one folder, one burst or the unreadable files (chosen in the library panel);
        None and False = everything."""
        self._state = replace(self._state, folder_id=folder_id, burst_id=burst_id, unreadable=unreadable)
        self.filter_changed.emit(self._state)

    def set_state(self, state: FilterState) -> None:
        """Show `state` in the controls (a saved filter) and emit it."""
        self._updating = True
        try:
            self.stars.setCurrentIndex(max(0, self.stars.findData(UNRATED if state.unrated else state.min_stars)))
            self.flag.setCurrentIndex(max(0, self.flag.findData(state.flag)))
            self.label.setCurrentIndex(max(0, self.label.findData(state.label)))
            self._show_capture_range(state.captured_from, state.captured_to)
            self.dimension.setCurrentIndex(max(0, self.dimension.findData(state.score_dimension)))
            self.score_min.setValue(state.score_min if state.score_min is not None else SCORE_MIN)
            self.score_max.setValue(state.score_max if state.score_max is not None else SCORE_MAX)
            self.collapse.setChecked(state.collapse_bursts)
            self.eyes_closed.setChecked(state.eyes_closed)
            self.search.setText(state.text)
        finally:
            self._updating = False
            self._search_delay.stop()
        self._state = state
        self.filter_changed.emit(state)

    @property
    def sort_order(self) -> tuple[str, bool]:
        """The sort key and whether it is descending."""
        return str(self.sort.currentData()), self.reverse.isChecked()

    def set_sort(self, key: str, descending: bool = False) -> None:
        """Show and emit a sort order (a remembered one); an unknown key falls back to the first."""
        self.sort.blockSignals(True)
        self.reverse.blockSignals(True)
        try:
            self.sort.setCurrentIndex(max(0, self.sort.findData(key)))
            self.reverse.setChecked(bool(descending))
        finally:
            self.sort.blockSignals(False)
            self.reverse.blockSignals(False)
        self._emit_sort()

    def _search_typed(self, _text: str) -> None:
        self._search_delay.start()

    def _apply_pending_search(self) -> None:
        if self._search_delay.isActive():
            self._emit_filter()

    def _emit_filter(self) -> None:
        if self._updating:
            return
        self._search_delay.stop()
        low, high = self.score_min.value(), self.score_max.value()
        stars = int(self.stars.currentData() or 0)
        captured = _range_of(self.captured.currentData())
        self._state = replace(
            self._state,
            min_stars=max(0, stars),
            unrated=stars == UNRATED,
            captured_from=captured[0],
            captured_to=captured[1],
            flag=self.flag.currentData(),
            label=self.label.currentData(),
            score_dimension=str(self.dimension.currentData()),
            score_min=low if low > SCORE_MIN else None,
            score_max=high if high < SCORE_MAX else None,
            collapse_bursts=self.collapse.isChecked(),
            eyes_closed=self.eyes_closed.isChecked(),
            text=self.search.text().strip(),
        )
        self.filter_changed.emit(self._state)

    def toggle_quick(self, name: str) -> None:
        """A one-key filter: "picks", "hide_rejects", "suggested" (the flag box), "unrated" (the
        stars box) or "bursts" (collapse them); the same key again shows everything again."""
        if name == "bursts":
            self.collapse.toggle()
            return
        # a flag name or the stars box's number: both boxes keep their entries' values as item data
        value: str | int
        if name == "unrated":
            box, value = self.stars, UNRATED
        else:
            box, value = self.flag, QUICK_FILTERS[name]
        box.setCurrentIndex(0 if box.currentData() == value else box.findData(value))

    def clear_quick(self) -> None:
        """Show every flag and any stars again (the quick filters off)."""
        self.flag.setCurrentIndex(0)
        self.stars.setCurrentIndex(0)

    def set_capture_times(self, times: Iterable[str | None]) -> None:
        """List the days (and, for a short span, the hours) the library's photographs were taken,
        with their counts; the choice shown stays when it is still there."""
        days: Counter[str] = Counter()
        hours: Counter[str] = Counter()
        for when in times:
            if when and len(when) >= 13:
                days[when[:10]] += 1
                hours[when[:13]] += 1
        chosen = self.captured.currentData()
        self.captured.blockSignals(True)
        try:
            self.captured.clear()
            self.captured.addItem("Any time", None)
            for day in sorted(days):
                start = date.fromisoformat(day)
                self.captured.addItem(f"{start:%a %d %b %Y}  ({days[day]})", _range_key(day, (start + timedelta(days=1)).isoformat()))
                if len(days) > HOURS_UP_TO_DAYS:
                    continue
                for hour in sorted(h for h in hours if h.startswith(day)):
                    begin = datetime.fromisoformat(hour + ":00")
                    end = begin + timedelta(hours=1)
                    self.captured.addItem(f"    {begin:%H:%M}–{end:%H:%M}  ({hours[hour]})",
                                          _range_key(begin.isoformat(timespec="minutes"), end.isoformat(timespec="minutes")))  # fmt: skip
            self._show_capture_range(*_range_of(chosen))
        finally:
            self.captured.blockSignals(False)

    def _show_capture_range(self, start: str | None, end: str | None) -> None:
        if start is None and end is None:
            self.captured.setCurrentIndex(0)
            return
        index = self.captured.findData(_range_key(start, end))
        if index < 0:  # a saved filter's range the library no longer has: keep it, named
            self.captured.addItem(f"{start or '…'} – {end or '…'}", _range_key(start, end))
            index = self.captured.count() - 1
        self.captured.setCurrentIndex(index)

    def _emit_sort(self) -> None:
        self.sort_changed.emit(str(self.sort.currentData()), self.reverse.isChecked())


def _range_key(start: str | None, end: str | None) -> str:
    """A capture-time range as the combo box keeps it: "start/end" (either may be empty)."""
    return f"{start or ''}/{end or ''}"


def _range_of(key: str | None) -> tuple[str | None, str | None]:
    """The (start, end) of a _range_key (None, None for "Any time")."""
    if not key:
        return None, None
    start, _, end = key.partition("/")
    return start or None, end or None
