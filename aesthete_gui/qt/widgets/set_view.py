"""Set: 2–8 images; the judge names best and worst with a three-stage explanation streamed stage by
stage; the user accepts or overrides, and either way the verdict is stored as their own choices."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.qt.undo import record_choices
from aesthete_gui.qt.widgets.set_cards import CandidateCard, CandidateStrip
from aesthete_gui.qt.widgets.set_judge_panes import STAGES, JudgeModelBanner, StageGrid, StageRelay
from aesthete_gui.qt.widgets.set_judging import (
    SET_ORDERINGS,
    JudgeFactory,
    SetOutcome,
    choices_from_verdict,
    default_judge_factory,
    describe_outcome,
    judge_set_job,
)
from aesthete_gui.services.choices import ChoiceBatch, ChoiceDraft

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.task_runner import JobHandle
    from aesthete_gui.store.records import ImageRecord

__all__ = [
    "SetOutcome",
    "SetView",
    "choices_from_verdict",
    "default_judge_factory",
    "describe_outcome",
    "judge_set_job",
]

log = logging.getLogger(__name__)

MIN_SET = 2
MAX_SET = 8


class SetView(QWidget):
    """The Qt view of one set selection: candidates, judge verdict with streamed stages, user choice."""

    verdict_ready = Signal(object)  # SetOutcome
    choices_recorded = Signal(list)  # the new choice ids

    def __init__(
        self,
        context: AppContext,
        parent: QWidget | None = None,
        judge_factory: JudgeFactory = default_judge_factory,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.judge_factory = judge_factory
        self._records: list[ImageRecord] = []
        self._job: JobHandle | None = None
        self._outcome: SetOutcome | None = None
        self._relay = StageRelay(self)
        self._relay.stage.connect(self._on_stage)
        self._build()
        context.thumbnails.ready.connect(self._on_thumbnail)
        context.signals.library_changed.connect(self._refresh_bursts)
        self._refresh_bursts()
        context.signals.settings_changed.connect(self._on_settings_changed)
        self._refresh_model_banner()
        self._update_buttons()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.source_label = QLabel(
            "Select 2–8 images in the grid, or a burst, then press Use selection."
        )
        self.source_label.setWordWrap(True)
        self.use_selection_button = QPushButton("Use selection")
        self.use_selection_button.clicked.connect(self.use_selection)
        self.burst_combo = QComboBox()
        self.burst_combo.setToolTip("Use the frames of one burst as the set")
        self.burst_combo.activated.connect(self._burst_chosen)
        self.judge_button = QPushButton("Ask the judge")
        self.judge_button.setToolTip(
            "Run the judge on this set under several orderings, with the three-stage explanation"
        )
        self.judge_button.clicked.connect(self.run_judge)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_judge)
        top = QHBoxLayout()
        top.addWidget(self.source_label, 1)
        top.addWidget(self.use_selection_button)
        top.addWidget(self.burst_combo)
        top.addWidget(self.judge_button)
        top.addWidget(self.cancel_button)

        self.model_banner = JudgeModelBanner()
        self.model_banner.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.open_manager_button = self.model_banner.open_manager_button
        self.open_manager_button.clicked.connect(self.open_model_manager)

        self.cards_scroll = CandidateStrip()
        self.cards_scroll.best_group.buttonToggled.connect(self._update_buttons)
        self.cards_scroll.worst_group.buttonToggled.connect(self._update_buttons)

        self.stage_grid = StageGrid()
        self.stage_titles = self.stage_grid.titles
        self.stage_panes = self.stage_grid.panes

        self.verdict_label = QLabel()
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextFormat(Qt.TextFormat.RichText)
        self.accept_button = QPushButton("Accept the judge's verdict")
        self.accept_button.clicked.connect(self.accept_verdict)
        self.record_button = QPushButton("Record my best && worst")
        self.record_button.setToolTip(
            "Store your pick: the best beats every other image, every other image beats the worst"
        )
        self.record_button.clicked.connect(self.record_user_choice)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status_label, 1)
        bottom.addWidget(self.accept_button)
        bottom.addWidget(self.record_button)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.model_banner)
        layout.addWidget(self.cards_scroll, 3)  # the thumbnails take the room the stages leave
        layout.addWidget(self.verdict_label)
        layout.addLayout(self.stage_grid, 2)
        layout.addLayout(bottom)

    # -- candidates ----------------------------------------------------------------------------
    def use_selection(self) -> None:
        """Take the grid selection (2–8 images) as the set."""
        self.set_images(self.context.selection.image_ids())

    def set_images(self, image_ids: Sequence[int], note: str = "") -> bool:
        """Show these images as the set, by capture time then file name as the grid lists them (not
        in the order they were picked, nor with a renamed or moved file last); False with a message
        when not 2–8 images. `note` is added to the line that says what the set is."""
        records = [
            r for r in (self.context.profile.catalog.image_by_id(i) for i in image_ids) if r is not None
        ]
        records.sort(key=lambda r: (r.capture_time or "", Path(r.path).name.casefold(), r.id))
        if not MIN_SET <= len(records) <= MAX_SET:
            # the set shown before is put away: a judge run or a choice now would be about frames the
            # user no longer has selected (second attack on 77bf4c2)
            self._show([], "No set: select 2 to 8 photographs, or one frame of a burst.")
            self.status_label.setText(
                f"A set needs {MIN_SET} to {MAX_SET} images; {len(records)} selected"
                + (": select fewer." if len(records) > MAX_SET else ".")
            )
            return False
        self._show(records, f"Set of {len(records)} images{note}, shown in this order to the judge "
                            "(it also sees shuffled orderings).")  # fmt: skip
        return True

    def _show(self, records: list[ImageRecord], caption: str) -> None:
        self.cancel_judge()
        self._records = records
        self._outcome = None
        self.cards_scroll.show_records(records, self.context.thumbnails)
        self.source_label.setText(caption)
        self.stage_grid.clear_texts()
        self.verdict_label.setText("")
        self.status_label.setText("")
        self._update_buttons()

    def use_burst(self, burst_id: int) -> bool:
        """Take the frames of one burst (in capture order) as the set."""
        burst = next((b for b in self.context.profile.catalog.bursts() if b.id == burst_id), None)
        if burst is None:
            self.status_label.setText("That burst no longer exists.")
            return False
        return self.set_images(burst.image_ids)

    def _refresh_bursts(self) -> None:
        self.burst_combo.clear()
        self.burst_combo.addItem("Use a burst…", None)
        for burst in self.context.profile.catalog.bursts():
            label = burst.label or f"Burst {burst.id}"
            self.burst_combo.addItem(f"{label} · {len(burst.image_ids)} frames", burst.id)
        self.burst_combo.setEnabled(self.burst_combo.count() > 1)

    def _burst_chosen(self, index: int) -> None:
        burst_id = self.burst_combo.itemData(index)
        if burst_id is not None:
            self.use_burst(int(burst_id))
        self.burst_combo.setCurrentIndex(0)

    def image_ids(self) -> list[int]:
        """The set, in the order shown."""
        return [r.id for r in self._records]

    def pick(self, best: int | None = None, worst: int | None = None) -> None:
        """Set the user's best and/or worst pick (what the Best / Worst buttons do)."""
        self.cards_scroll.pick(best, worst)

    def user_pick(self) -> tuple[int | None, int | None]:
        """The user's current best and worst (None where not picked)."""
        return self.cards_scroll.user_pick()

    @property
    def _cards(self) -> list[CandidateCard]:
        """The candidate cards, in the order shown."""
        return self.cards_scroll.cards

    # -- judging -------------------------------------------------------------------------------
    def judge_configured(self) -> bool:
        """True when the settings name a judge model."""
        return bool(self.context.settings.get("judge"))

    def run_judge(self) -> JobHandle | None:
        """Start the judge on the set as a GPU job; stages appear as they stream in."""
        if len(self._records) < MIN_SET:
            self.status_label.setText("Choose a set first.")
            return None
        if not self.judge_configured():
            self.status_label.setText(
                "No judge model is set up; pick best and worst yourself, or set up a model."
            )
            return None
        self.cancel_judge()
        self._outcome = None
        self.stage_grid.await_judge()
        self.cards_scroll.clear_verdicts()
        self.verdict_label.setText("The judge is looking at the set…")
        paths = [r.path for r in self._records]
        relay = self._relay
        self._job = self.context.runner.submit(
            "Judge best and worst",
            judge_set_job,
            self.judge_factory,
            dict(self.context.settings),
            self.context.profile,
            paths,
            lambda event: relay.stage.emit(event.ordering_index, event.stage, event.text),
            on_done=self._on_verdict,
            on_error=self._on_judge_error,
            gpu=True,
        )
        self._job.ended.connect(self._update_buttons)
        self._job.cancelled.connect(lambda: self.verdict_label.setText("Judging cancelled."))
        self._update_buttons()
        return self._job

    def cancel_judge(self) -> None:
        """Stop a running judge job (its partial stages stay visible)."""
        if self._job is not None and not self._job.done:
            self._job.cancel()

    def _on_stage(self, ordering: int, stage: str, text: str) -> None:
        """Show the first ordering's stages as they arrive; the others only as progress."""
        if stage not in STAGES:
            return
        if ordering == 0:
            self.stage_grid.show_stage(STAGES.index(stage), text)
        self.verdict_label.setText(
            f"The judge finished the {stage} stage for ordering {ordering + 1} of {SET_ORDERINGS}…"
        )

    def _on_verdict(self, outcome: SetOutcome) -> None:
        self._outcome = outcome
        self.stage_grid.show_texts(outcome.stages)
        names = {r.path: Path(r.path).name for r in self._records}
        if outcome.best is None or outcome.worst is None:
            self.verdict_label.setText(
                "<b>The judge's reply could not be read</b> (kept as an unparsed judgment). "
                "Pick best and worst yourself."
            )
        else:
            self.verdict_label.setText(describe_outcome(outcome, names))
            self.cards_scroll.mark_verdict(outcome.best, outcome.worst)
            by_path = {r.path: r.id for r in self._records}
            self.pick(best=by_path[outcome.best], worst=by_path[outcome.worst])
        self.verdict_ready.emit(outcome)
        self._update_buttons()

    def _on_judge_error(self, error: BaseException) -> None:
        self.verdict_label.setText(f"<b>The judge failed:</b> {error}")
        self._update_buttons()

    # -- recording -----------------------------------------------------------------------------
    def accept_verdict(self) -> list[int]:
        """Store the judge's best/worst as the user's choices."""
        if self._outcome is None or self._outcome.best is None or self._outcome.worst is None:
            return []
        by_path = {r.path: r.id for r in self._records}
        return self._record(by_path[self._outcome.best], by_path[self._outcome.worst], "accepted")

    def record_user_choice(self) -> list[int]:
        """Store the user's own best/worst pick (an override when it differs from the judge)."""
        best, worst = self.user_pick()
        if best is None or worst is None or best == worst:
            self.status_label.setText("Pick one best and a different worst first.")
            return []
        source = "own"
        if self._outcome is not None and self._outcome.best is not None:
            by_path = {r.path: r.id for r in self._records}
            judged_worst = self._outcome.worst
            worst_id = by_path.get(judged_worst) if judged_worst is not None else None
            agrees = (by_path.get(self._outcome.best), worst_id) == (best, worst)
            source = "accepted" if agrees else "override"
        return self._record(best, worst, source)

    def undo(self) -> None:
        """Take back the last mark or choice (the one undo history of every view)."""
        if self.context.undo_stack.canUndo():
            self.context.undo_stack.undo()

    def _record(self, best: int, worst: int, source: str) -> list[int]:
        order = self.image_ids()
        state: dict[str, Any] = {
            "view": "set",
            "order": order,
            "best": best,
            "worst": worst,
            "source": source,
        }
        if self._outcome is not None:
            state["judge"] = self._outcome.judge_id
        drafts = tuple(ChoiceDraft(a, b, winner) for a, b, winner in choices_from_verdict(order, best, worst))
        count = len(drafts)

        def undone() -> None:
            self.status_label.setText(f"Removed {count} choices.")
            self._update_buttons()

        ids = record_choices(self.context, ChoiceBatch(drafts, None, state), f"Set verdict ({count} choices)", undone)
        names = {r.id: Path(r.path).name for r in self._records}
        self.status_label.setText(
            f"Recorded {len(ids)} choices: {names[best]} best, {names[worst]} worst "
            f"({source}). Ctrl+Z removes them."
        )
        self.choices_recorded.emit(ids)
        self._update_buttons()
        return ids

    # -- state ---------------------------------------------------------------------------------
    def _update_buttons(self, *_: Any) -> None:
        running = self._job is not None and not self._job.done
        has_set = len(self._records) >= MIN_SET
        self.judge_button.setEnabled(has_set and not running and self.judge_configured())
        self.cancel_button.setEnabled(running)
        self.cancel_button.setVisible(running)
        best, worst = self.user_pick()
        self.record_button.setEnabled(best is not None and worst is not None and best != worst)
        self.accept_button.setEnabled(
            self._outcome is not None and self._outcome.best is not None and not running
        )

    def _refresh_model_banner(self) -> None:
        judge = self.judge_configured()
        self.model_banner.setVisible(not judge)
        # no judge: no empty "Waiting for the judge" panes; the candidates take the room
        self.stage_grid.set_visible(judge)

    def _on_settings_changed(self, key: str) -> None:
        if key == "judge":
            self._refresh_model_banner()
            self._update_buttons()

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Fit the candidate cards to the new width."""
        super().resizeEvent(event)
        self.cards_scroll.fit_cards()

    def _on_thumbnail(self, image_id: int) -> None:
        self.cards_scroll.update_thumbnail(image_id, self.context.thumbnails.pixmap(image_id))

    def open_model_manager(self) -> None:
        """Open the model manager so the user can set up a judge."""
        from aesthete_gui.qt.dialogs.model_manager import ModelManagerDialog

        dialog = ModelManagerDialog(self.context, self)
        dialog.open()
