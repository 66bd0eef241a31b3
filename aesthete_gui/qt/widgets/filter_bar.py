"""The bar above the grid: sort order, and filters by stars, flag, label, score range, bursts, closed eyes, name."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QTimer, Signal
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
    ("Suggested rejects", "suggested"),
)
SEARCH_DELAY_MS = 200
"""How long the name search waits after a key press before it re-filters the library."""


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
        for n in range(1, 6):
            self.stars.addItem("≥ " + "★" * n, n)
        self.flag = QComboBox(self)
        for text, value in FLAG_CHOICES:
            self.flag.addItem(text, value)
        self.label = QComboBox(self)
        self.label.addItem("Any label", None)
        for name in COLOR_LABELS:
            self.label.addItem(name, name)

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
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("File name…")
        self.search.setClearButtonEnabled(True)
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
        for widget in (self.stars, self.flag, self.label):
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
        for combo in (self.stars, self.flag, self.label, self.dimension):
            combo.currentIndexChanged.connect(self._emit_filter)
        self.score_min.valueChanged.connect(self._emit_filter)
        self.score_max.valueChanged.connect(self._emit_filter)
        self.collapse.toggled.connect(self._emit_filter)
        self.eyes_closed.toggled.connect(self._emit_filter)
        # each key press would re-filter and re-sort the whole library: wait for a pause in typing
        self.search.textChanged.connect(self._search_typed)
        self._search_delay.timeout.connect(self._emit_filter)
        self.search.editingFinished.connect(self._apply_pending_search)
        self.save.clicked.connect(self.save_requested)
        # after a choice made with the mouse, the keys belong to the images again, not to the control
        for combo in (self.sort, self.stars, self.flag, self.label, self.dimension):
            combo.activated.connect(self.control_used)
        self.reverse.clicked.connect(self.control_used)
        self.collapse.clicked.connect(self.control_used)
        self.eyes_closed.clicked.connect(self.control_used)

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

    def set_scope(self, folder_id: int | None = None, burst_id: int | None = None) -> None:
        """Restrict to one folder or burst (chosen in the library panel); None = everything."""
        self._state = replace(self._state, folder_id=folder_id, burst_id=burst_id)
        self.filter_changed.emit(self._state)

    def set_state(self, state: FilterState) -> None:
        """Show `state` in the controls (a saved filter) and emit it."""
        self._updating = True
        try:
            self.stars.setCurrentIndex(max(0, self.stars.findData(state.min_stars)))
            self.flag.setCurrentIndex(max(0, self.flag.findData(state.flag)))
            self.label.setCurrentIndex(max(0, self.label.findData(state.label)))
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
        self._state = replace(
            self._state,
            min_stars=int(self.stars.currentData() or 0),
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

    def _emit_sort(self) -> None:
        self.sort_changed.emit(str(self.sort.currentData()), self.reverse.isChecked())
