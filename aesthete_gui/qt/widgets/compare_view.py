"""Compare: two images side by side; ← / → / ↓ record the user's choice at once; Ctrl+Z undoes it (one history)."""

from __future__ import annotations

import logging
import random
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.qt.undo import record_choices
from aesthete_gui.qt.widgets.compare_jobs import (
    agreement_job,
    format_agreement,
    random_unjudged_pair,
    suggest_pairs_job,
)
from aesthete_gui.qt.widgets.compare_panes import ComparePanes
from aesthete_gui.services.choices import ChoiceBatch, ChoiceDraft

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.task_runner import JobHandle
    from aesthete_gui.store.records import ImageRecord

__all__ = [
    "CompareView",
    "ShownPair",
    "agreement_job",
    "format_agreement",
    "random_unjudged_pair",
    "suggest_pairs_job",
]

log = logging.getLogger(__name__)

KEY_TO_WINNER = {Qt.Key.Key_Left: "a", Qt.Key.Key_Right: "b", Qt.Key.Key_Down: "tie"}
AGREEMENT_DELAY_MS = 2500
"""Re-measure agreement once the user pauses this long (it retrains on every choice)."""
SUGGESTION_BATCH = 8
SUGGESTION_LOW_WATER = 3
INCLUDE_REJECTS_SETTING = "compare_include_rejects"
"""Settings key: also offer rejected images in Compare (the taste service's suggestions too)."""
HINT = (
    "←  left better    →  right better    ↓  tie    D  dimension    S  skip    "
    "Ctrl+Z  undo    wheel / drag  zoom / pan both    F  fit"
)


@dataclass(frozen=True)
class ShownPair:
    """The two images on screen: `left` is stored as image_a, `right` as image_b."""

    left: ImageRecord
    right: ImageRecord
    suggested_by: str


class CompareView(QWidget):
    """The Qt view of the user's pairwise choices: shows a pair, records the key pressed, undoes."""

    choice_recorded = Signal(int)  # choice id
    choice_undone = Signal(int)
    inspected = Signal(int)  # the image of the pair the inspector should describe (the side pointed at)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.session = uuid.uuid4().hex[:12]
        self._rng = random.Random()
        self._pair: ShownPair | None = None
        self._inspected_side = "left"  # the side last pointed at or clicked
        self._session_count = 0
        self._agreement_job: JobHandle | None = None
        self._suggestion_job: JobHandle | None = None
        self._suggestions: list[tuple[int, int]] = []
        self._comparable: list[int] | None = None  # the library's images worth comparing (cached)
        self._library_pairs = False  # True: the taste service's pairs from the whole library, not the selection
        self._build()
        self._agreement_timer = QTimer(self, singleShot=True, interval=AGREEMENT_DELAY_MS)
        self._agreement_timer.timeout.connect(self._refresh_agreement)
        context.signals.choices_changed.connect(self._on_choices_changed)
        context.signals.library_changed.connect(self._on_library_changed)
        context.signals.marks_changed.connect(self._forget_comparable)
        context.selection.changed.connect(self._selection_changed)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._update_counter()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.dimension_combo = QComboBox()
        self.dimension_combo.addItems([d.capitalize() for d in DIMENSIONS])
        self.dimension_combo.setCurrentIndex(DIMENSIONS.index("overall"))
        self.dimension_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.dimension_combo.setToolTip("Which quality you are judging (D cycles)")
        self.dimension_combo.currentIndexChanged.connect(self._on_dimension_changed)
        self.counter_label = QLabel()
        self.agreement_label = QLabel("Agreement: measuring…")
        self.agreement_label.setToolTip(
            "How often the scorer (with your taste adapter when one is active) predicts the choices "
            "you made that it was not trained on; the range is a 95% confidence interval."
        )
        self.skip_button = QPushButton("Skip")
        self.skip_button.setToolTip("Show another pair without recording anything (S)")
        self.undo_button = QPushButton("Undo")
        self.undo_button.setToolTip("Take back your last choice (and show that pair again) or your last mark (Ctrl+Z)")
        self.rejects_check = QCheckBox("Include rejects")
        self.rejects_check.setToolTip("Also compare images you rejected (images too small to judge "
                                      "are never offered unless you select them in the grid)")
        self.rejects_check.setChecked(bool(self.context.settings.get(INCLUDE_REJECTS_SETTING, False)))
        self.rejects_check.toggled.connect(self._on_include_rejects)
        for button in (self.skip_button, self.undo_button, self.rejects_check):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.skip_button.clicked.connect(self.show_next_pair)
        self.undo_button.clicked.connect(self.undo)

        self.agreement_label.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Judging:"))
        top.addWidget(self.dimension_combo)
        top.addSpacing(16)
        top.addWidget(self.counter_label, 1)
        top.addWidget(self.rejects_check)
        top.addWidget(self.skip_button)
        top.addWidget(self.undo_button)

        self.panes = ComparePanes(self.context.thumbnails)
        self._loader = self.panes.loader
        self.left_view, self.right_view = self.panes.left_view, self.panes.right_view
        self.left_caption, self.right_caption = self.panes.left_caption, self.panes.right_caption
        for view in (self.left_view, self.right_view):
            view.installEventFilter(self)

        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel(HINT)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setWordWrap(True)
        hint.setEnabled(False)  # drawn in the muted text colour

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.agreement_label)
        layout.addWidget(self.panes, 1)
        layout.addWidget(self.status_label)
        layout.addWidget(hint)

    # -- public --------------------------------------------------------------------------------
    @property
    def dimension(self) -> str:
        """The dimension the user is judging."""
        return DIMENSIONS[self.dimension_combo.currentIndex()]

    def set_dimension(self, dimension: str) -> None:
        """Judge `dimension` from now on."""
        self.dimension_combo.setCurrentIndex(DIMENSIONS.index(dimension))

    def inspected_id(self) -> int | None:
        """The image of the pair the inspector describes (the side pointed at last), or None."""
        if self._pair is None:
            return None
        return (self._pair.left if self._inspected_side == "left" else self._pair.right).id

    def inspect_side(self, side: str) -> None:
        """Describe the "left" or "right" image in the inspector (pointing at a side does this)."""
        self._inspected_side = side
        for caption, name in ((self.left_caption, "left"), (self.right_caption, "right")):
            font = caption.font()
            font.setBold(name == side)
            caption.setFont(font)
        image_id = self.inspected_id()
        if image_id is not None:
            self.inspected.emit(image_id)

    def eventFilter(self, watched: Any, event: QEvent) -> bool:
        """Pointing at or clicking a pane makes its image the one the inspector describes."""
        if event.type() in (QEvent.Type.Enter, QEvent.Type.MouseButtonPress) and self._pair is not None:
            side = "left" if watched is self.left_view else "right"
            if side != self._inspected_side or event.type() == QEvent.Type.MouseButtonPress:
                self.inspect_side(side)
        return super().eventFilter(watched, event)

    def current_pair(self) -> ShownPair | None:
        """The pair on screen, or None when there are not two images to compare."""
        return self._pair

    def show_pair(self, left_id: int, right_id: int, suggested_by: str = "user") -> None:
        """Put two given images on screen (left = image_a)."""
        left = self.context.profile.catalog.image_by_id(left_id)
        right = self.context.profile.catalog.image_by_id(right_id)
        if left is None or right is None:
            self._show_nothing("One of the images to compare is no longer in the library.")
            return
        self._set_pair(ShownPair(left, right, suggested_by))

    def show_next_pair(self) -> None:
        """Ask for the next pair (the taste service's most informative one, else a random new one)."""
        pool = self._pool()
        if len(pool) < 2:
            self._show_nothing(
                "Import at least two images (or select them in the grid) to compare."
            )
            return
        avoid = frozenset((self._pair.left.id, self._pair.right.id)) if self._pair else None
        suggested = self._suggest_pair(pool, avoid)
        if suggested is None:
            self._show_nothing("No pair to show.")
            return
        left_id, right_id, source = suggested
        if self._rng.random() < 0.5:  # balance which side the suggested "first" image appears on
            left_id, right_id = right_id, left_id
        self.show_pair(left_id, right_id, source)

    def compare_suggested_pairs(self) -> None:
        """Show the pairs the taste service suggests from the whole library (not the grid's
        selection) until the selection changes: the quickest way to enough choices to measure."""
        self._library_pairs = True
        self._suggestions.clear()
        self._pair = None
        self.show_next_pair()

    def _selection_changed(self, _ids: list) -> None:
        self._library_pairs = False

    def record(self, winner: str) -> int | None:
        """Store the choice for the pair on screen ('a' left, 'b' right, 'tie'), then move on."""
        if self._pair is None:
            return None
        pair = self._pair
        state: dict[str, Any] = {
            "view": "compare",
            "left": pair.left.path,
            "right": pair.right.path,
            "suggested_by": pair.suggested_by,
            "zoom": round(self.left_view.zoom, 3),
        }
        batch = ChoiceBatch((ChoiceDraft(pair.left.id, pair.right.id, winner, self.dimension),), self.session, state)
        recorded: list[int] = []

        def undone() -> None:
            self._session_count -= 1
            self._update_counter()
            self.choice_undone.emit(recorded[0])
            self._set_pair(pair)
            self.status_label.setText("Last choice removed.")

        def redone(ids: list[int]) -> None:
            recorded[:] = ids
            self._session_count += 1
            self._update_counter()

        recorded.extend(record_choices(self.context, batch, f"Choice {winner} on {self.dimension}", undone, redone))
        self._session_count += 1
        self._update_counter()
        self.choice_recorded.emit(recorded[0])
        self.show_next_pair()
        return recorded[0]

    def undo(self) -> None:
        """Take back the last mark or choice (the one undo history of every view)."""
        stack = self.context.undo_stack
        if not stack.canUndo():
            self.status_label.setText("Nothing to undo in this session.")
            return
        stack.undo()

    # -- keyboard ------------------------------------------------------------------------------
    def _handles(self, event: QKeyEvent) -> bool:
        if event.matches(QKeySequence.StandardKey.Undo):
            return True
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        return event.key() in (*KEY_TO_WINNER, Qt.Key.Key_D, Qt.Key.Key_S, Qt.Key.Key_F)

    def event(self, event: QEvent) -> bool:
        """Claim our keys before window-wide shortcuts (the grid's arrows, the marks' Ctrl+Z)."""
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and self._handles(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """← left wins, → right wins, ↓ tie, D next dimension, S skip, F fit, Ctrl+Z undo."""
        if not self._handles(event):
            super().keyPressEvent(event)
            return
        if event.matches(QKeySequence.StandardKey.Undo):
            self.undo()
        elif event.key() in KEY_TO_WINNER:
            self.record(KEY_TO_WINNER[Qt.Key(event.key())])
        elif event.key() == Qt.Key.Key_D:
            combo = self.dimension_combo
            combo.setCurrentIndex((combo.currentIndex() + 1) % combo.count())
        elif event.key() == Qt.Key.Key_S:
            self.show_next_pair()
        elif event.key() == Qt.Key.Key_F:
            self.panes.fit()
        event.accept()

    # -- internals -----------------------------------------------------------------------------
    def _pool(self) -> list[int]:
        selected = self.context.selection.image_ids()
        if len(selected) >= 2 and not self._library_pairs:
            return selected  # the user picked exactly these
        if self._comparable is None:
            from aesthete_gui.services.taste_guard import comparable_image_ids

            self._comparable = comparable_image_ids(self.context.profile, self.rejects_check.isChecked())
        return self._comparable

    def _forget_comparable(self, *_: Any) -> None:
        self._comparable = None

    def _on_include_rejects(self, checked: bool) -> None:
        self.context.settings[INCLUDE_REJECTS_SETTING] = checked
        self._comparable = None
        self._suggestions.clear()

    def _suggest_pair(
        self, pool: list[int], avoid: frozenset[int] | None
    ) -> tuple[int, int, str] | None:
        judged = self.context.profile.choices.judged_pairs(self.dimension)
        in_pool = set(pool)
        chosen: tuple[int, int] | None = None
        while self._suggestions and chosen is None:
            a, b = self._suggestions.pop(0)
            pair = frozenset((a, b))
            if a in in_pool and b in in_pool and pair not in judged and pair != avoid:
                chosen = (a, b)
        if len(self._suggestions) < SUGGESTION_LOW_WATER:
            self._refill_suggestions(pool)
        if chosen is not None:
            return chosen[0], chosen[1], "taste"
        # Nothing suggested yet (first pair, or the service is still thinking): never make the
        # user wait, show a random pair they have not judged.
        unjudged = random_unjudged_pair(pool, judged, self._rng, avoid)
        return (unjudged[0], unjudged[1], "random") if unjudged else None

    def _refill_suggestions(self, pool: list[int]) -> None:
        # One taste job at a time: both read (and on first use compute) the library's embeddings.
        if _running(self._suggestion_job) or _running(self._agreement_job):
            return
        dimension = self.dimension
        on_screen = (self._pair.left.id, self._pair.right.id) if self._pair else ()

        def take(pairs: list[tuple[int, int]]) -> None:
            if dimension == self.dimension:
                self._suggestions.extend(p for p in pairs if set(p).isdisjoint(on_screen))

        self._suggestion_job = self.context.runner.submit(
            "Pick informative pairs to compare",
            suggest_pairs_job,
            self.context.profile,
            pool,
            dimension,
            SUGGESTION_BATCH,
            self.rejects_check.isChecked(),
            on_done=take,
            on_error=lambda error: log.info("no pair suggestions: %s", error),
        )

    def _set_pair(self, pair: ShownPair) -> None:
        self._pair = pair
        self.panes.show_images(pair.left, pair.right)
        self.status_label.setText("")
        self.inspect_side(self._inspected_side)

    def _show_nothing(self, message: str) -> None:
        self._pair = None
        self.panes.show_nothing()
        self.status_label.setText(message)

    def _on_dimension_changed(self) -> None:
        self._suggestions.clear()
        self._update_counter()
        self._agreement_timer.start()

    def _on_choices_changed(self) -> None:
        self._update_counter()
        self._agreement_timer.start()

    def _on_library_changed(self) -> None:
        self._comparable = None
        if self._pair is None and self.isVisible():
            self.show_next_pair()

    def _update_counter(self) -> None:
        total = self.context.profile.choices.count(self.dimension)
        self.counter_label.setText(
            f"{total} choice{'s' if total != 1 else ''} on {self.dimension} · "
            f"{self._session_count} this session"
        )

    def _refresh_agreement(self) -> None:
        if not self.isVisible():
            return  # measured again when Compare is shown
        if _running(self._suggestion_job) or _running(self._agreement_job):
            self._agreement_timer.start()  # try again once the running taste job is done
            return
        self._agreement_job = self.context.runner.submit(
            "Measure agreement with your choices",
            agreement_job,
            self.context.profile,
            on_done=self._show_agreement,
            on_error=self._show_agreement_error,
        )

    def _show_agreement(self, result: Any) -> None:
        self.agreement_label.setText(format_agreement(result))

    def _show_agreement_error(self, error: BaseException) -> None:
        self.agreement_label.setText("Agreement: not available yet")
        self.agreement_label.setToolTip(f"Could not measure agreement: {error}")

    def showEvent(self, event) -> None:
        """Show a first pair when opened, and take the keyboard."""
        super().showEvent(event)
        self._update_counter()  # choices may have come from elsewhere (Set view, CLI import)
        if self._pair is None:
            self.show_next_pair()
        self._agreement_timer.start()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def closeEvent(self, event) -> None:
        """Let background decodes finish before the widget goes away."""
        self._loader.wait_idle(2000)
        super().closeEvent(event)


def _running(job: JobHandle | None) -> bool:
    return job is not None and not job.done
