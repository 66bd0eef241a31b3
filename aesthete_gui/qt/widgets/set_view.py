"""Set: 2–8 images; the judge names best and worst with a three-stage explanation streamed stage by
stage; the user accepts or overrides, and either way the verdict is stored as their own choices."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QPixmap, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QBoxLayout,
    QButtonGroup,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.engine.judgments import SetJudgment
from aesthete_gui.jobs import CancelToken, ProgressCallback

if TYPE_CHECKING:
    from aesthete_gui.ml.prompt_judge import PromptJudge
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.task_runner import JobHandle
    from aesthete_gui.store import Profile
    from aesthete_gui.store.records import ImageRecord

log = logging.getLogger(__name__)

MIN_SET = 2
MAX_SET = 8
CARD_THUMB = 170
MIN_CARD_THUMB = 68
MAX_CARD_THUMB = 220
CARD_STYLE = ("QPushButton#best:checked { background-color: #3f7a4f; color: white; }"
              "QPushButton#worst:checked { background-color: #8a3f3f; color: white; }")
SET_ORDERINGS = 3
STAGES = ("analyser", "critic", "summariser")
STAGE_TITLES = ("1 · Analyser — what is in each image", "2 · Critic — what the analysis missed",
                "3 · Summariser — the decision")
NO_MODEL_TEXT = (
    "<b>No judge model is set up.</b> You can still pick the best and the worst yourself below "
    "and record them. A vision-language judge would add: its own best and worst pick, "
    "checked under several orderings of the set, with a three-stage explanation (facts, "
    "critique, decision) you can verify against the images.")


def choices_from_verdict(order: Sequence[int], best: int, worst: int) -> list[tuple[int, int, str]]:
    """The pairwise choices a best/worst verdict implies, as (image_a, image_b, winner).

    The best beats every other image and every other image beats the worst; within each pair the
    image shown first in the set is `image_a` (the order on screen is kept).
    """
    if best == worst:
        raise ValueError("best and worst must be different images")
    if best not in order or worst not in order:
        raise ValueError("best and worst must both be in the set")
    position = {image_id: index for index, image_id in enumerate(order)}
    wins: list[tuple[int, int]] = [(best, other) for other in order if other != best]
    wins += [(other, worst) for other in order if other not in (best, worst)]
    choices = []
    for winner, loser in wins:
        if position[winner] < position[loser]:
            choices.append((winner, loser, "a"))
        else:
            choices.append((loser, winner, "b"))
    return choices


StageSink = Callable[[Any], None]
"""Receives each finished explanation stage (ml.prompt_judge.StageEvent), in the worker thread."""
JudgeFactory = Callable[[Mapping[str, Any], StageSink], "PromptJudge"]
"""Builds the configured judge from the settings, wired to report each stage as it finishes."""


@dataclass(frozen=True)
class SetOutcome:
    """The judge's verdict on one set, with how stable it was and how subjective its wording."""

    judgment: SetJudgment
    orderings: int
    agreeing: int
    subjectivity: float
    subjective_words: tuple[str, ...]

    @property
    def best(self) -> str | None:
        """The path voted best, or None when the reply could not be read."""
        return self.judgment.best

    @property
    def worst(self) -> str | None:
        """The path voted worst, or None."""
        return self.judgment.worst

    @property
    def stages(self) -> tuple[str, ...]:
        """Analyser, critic and summariser texts of the first ordering."""
        return tuple(self.judgment.stages)

    @property
    def judge_id(self) -> str:
        """Which judge answered."""
        return self.judgment.judge_id


def default_judge_factory(settings: Mapping[str, Any], on_stage: StageSink) -> PromptJudge:
    """The judge named in the settings: a server URL, a local folder or a downloaded hub id."""
    from aesthete_gui.services.compare import JudgeSpec, open_judge

    judge = settings.get("judge")
    if not judge:
        raise ValueError("no judge model is set up (Models ▸ Model manager)")
    preset = settings.get("preset") or "photography"
    if str(judge).startswith(("http://", "https://")):
        model = settings.get("judge_server_model") or ""
        if not model:
            raise ValueError("the server judge needs a model name (Models ▸ Model manager)")
        spec = JudgeSpec(model=model, endpoint=judge, preset=preset, set_orderings=SET_ORDERINGS)
    else:
        spec = JudgeSpec(model=judge, preset=preset, set_orderings=SET_ORDERINGS)
    return open_judge(spec, on_stage=on_stage)


def judge_set_job(
    factory: JudgeFactory,
    settings: Mapping[str, Any],
    profile: Profile,
    paths: Sequence[str],
    on_stage: StageSink,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> SetOutcome:
    """Ask the judge for best and worst with the three-stage explanation; the judgment is stored."""
    from aesthete_gui.services import compare

    judge = factory(settings, on_stage)
    record = compare.compare_set(judge, list(paths), explain=True, profile=profile,
                                 progress=progress, cancel=cancel)
    votes = tuple(getattr(record, "votes", ()) or ((record.best, record.worst),))
    agreeing = sum(1 for vote in votes if record.best is not None and vote == (record.best, record.worst))
    report = compare.explanation_subjectivity(record)
    return SetOutcome(record, len(votes), agreeing, report.rate, report.found)


def describe_outcome(outcome: SetOutcome, names: Mapping[str, str]) -> str:
    """Rich text: best, worst, consistency across orderings and the subjective-word rate."""
    best, worst = names.get(outcome.best or "", "?"), names.get(outcome.worst or "", "?")
    found = ", ".join(dict.fromkeys(outcome.subjective_words)) or "none"
    text = (f"<b>Judge: best {best}, worst {worst}.</b> Same verdict in {outcome.agreeing} of "
            f"{outcome.orderings} orderings of the set. Hedge and feeling words: "
            f"{outcome.subjectivity:.1%} of the explanation ({found}) — lower is more concrete.")
    per_dimension = [
        f"{dimension}: {names.get(b or '', '?')} / {names.get(w or '', '?')}"
        for dimension, (b, w) in outcome.judgment.per_dimension.items()
        if b is not None and w is not None and dimension != "overall"
    ]
    if per_dimension:
        text += "<br>Best / worst per dimension — " + "; ".join(per_dimension)
    return text


class _StageRelay(QObject):
    """Carries stage texts from the judge's worker thread to the UI thread."""

    stage = Signal(int, str, str)


class _Card(QFrame):
    """One candidate: thumbnail, name, and the user's Best / Worst buttons."""

    def __init__(self, record: ImageRecord, position: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record = record
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.thumb = QLabel("…")
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.thumb.setFixedSize(CARD_THUMB, CARD_THUMB)
        self._name = f"{position}. {Path(record.path).name}"
        self.name_label = name = QLabel(self._name)
        name.setToolTip(record.path)
        name.setAlignment(Qt.AlignmentFlag.AlignCenter)
        name.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.verdict = QLabel("")
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.best_button = QPushButton("Best")
        self.best_button.setObjectName("best")
        self.worst_button = QPushButton("Worst")
        self.worst_button.setObjectName("worst")
        self.setStyleSheet(CARD_STYLE)
        self._pixmap: QPixmap | None = None
        for button in (self.best_button, self.worst_button):
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._buttons = buttons = QHBoxLayout()
        buttons.addWidget(self.best_button)
        buttons.addWidget(self.worst_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.thumb, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(name)
        layout.addWidget(self.verdict)
        layout.addLayout(buttons)
        self.setFixedWidth(CARD_THUMB + 16)

    def set_pixmap(self, pixmap: QPixmap | None) -> None:
        if pixmap is None or pixmap.isNull():
            self.thumb.setText("no preview")
            return
        self._pixmap = pixmap
        side = self.thumb.width()
        self.thumb.setPixmap(pixmap.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))

    def buttons_stacked(self) -> bool:
        """True when the card is too narrow for Best and Worst side by side."""
        return self._buttons.direction() == QBoxLayout.Direction.TopToBottom

    def set_thumb_size(self, side: int) -> None:
        """Resize the card so a whole set fits the view's width."""
        if side == self.thumb.width():
            return
        self.thumb.setFixedSize(side, side)
        self.setFixedWidth(side + 16)
        # narrow cards (6-8 images on a small screen) stack Best over Worst instead of squeezing them
        needed = self.best_button.sizeHint().width() + self.worst_button.sizeHint().width() + 8
        self._buttons.setDirection(
            QBoxLayout.Direction.LeftToRight if side >= needed else QBoxLayout.Direction.TopToBottom
        )
        self.name_label.setText(self.name_label.fontMetrics().elidedText(
            self._name, Qt.TextElideMode.ElideMiddle, side))
        if self._pixmap is not None:
            self.set_pixmap(self._pixmap)


class SetView(QWidget):
    """The Qt view of one set selection: candidates, judge verdict with streamed stages, user choice."""

    verdict_ready = Signal(object)  # SetOutcome
    choices_recorded = Signal(list)  # the new choice ids

    def __init__(self, context: AppContext, parent: QWidget | None = None,
                 judge_factory: JudgeFactory = default_judge_factory) -> None:
        super().__init__(parent)
        self.context = context
        self.judge_factory = judge_factory
        self._records: list[ImageRecord] = []
        self._cards: list[_Card] = []
        self._job: JobHandle | None = None
        self._outcome: SetOutcome | None = None
        self._last_recorded: list[int] = []
        self._relay = _StageRelay(self)
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
        self.source_label = QLabel("Select 2–8 images in the grid, or a burst, then press Use selection.")
        self.source_label.setWordWrap(True)
        self.use_selection_button = QPushButton("Use selection")
        self.use_selection_button.clicked.connect(self.use_selection)
        self.burst_combo = QComboBox()
        self.burst_combo.setToolTip("Use the frames of one burst as the set")
        self.burst_combo.activated.connect(self._burst_chosen)
        self.judge_button = QPushButton("Ask the judge")
        self.judge_button.setToolTip("Run the judge on this set under several orderings, with the "
                                     "three-stage explanation")
        self.judge_button.clicked.connect(self.run_judge)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_judge)
        top = QHBoxLayout()
        top.addWidget(self.source_label, 1)
        top.addWidget(self.use_selection_button)
        top.addWidget(self.burst_combo)
        top.addWidget(self.judge_button)
        top.addWidget(self.cancel_button)

        self.model_banner = QFrame()
        self.model_banner.setFrameShape(QFrame.Shape.StyledPanel)
        banner_text = QLabel(NO_MODEL_TEXT)
        banner_text.setWordWrap(True)
        banner_text.setTextFormat(Qt.TextFormat.RichText)
        self.open_manager_button = QPushButton("Set up a model…")
        self.open_manager_button.clicked.connect(self.open_model_manager)
        banner_layout = QHBoxLayout(self.model_banner)
        banner_layout.addWidget(banner_text, 1)
        banner_layout.addWidget(self.open_manager_button)

        self.cards_host = QWidget()
        self.cards_layout = QHBoxLayout(self.cards_host)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.addStretch(1)
        self.cards_scroll = cards_scroll = QScrollArea()
        cards_scroll.setWidgetResizable(True)
        cards_scroll.setWidget(self.cards_host)
        cards_scroll.setFrameShape(QFrame.Shape.NoFrame)
        cards_scroll.setFixedHeight(CARD_THUMB + 110)
        cards_scroll.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.best_group = QButtonGroup(self)
        self.worst_group = QButtonGroup(self)
        self.best_group.buttonToggled.connect(self._update_buttons)
        self.worst_group.buttonToggled.connect(self._update_buttons)

        self.stage_titles: list[QLabel] = []
        self.stage_panes: list[QPlainTextEdit] = []
        stages = QGridLayout()
        for column, title in enumerate(STAGE_TITLES):
            label = QLabel(title)
            pane = QPlainTextEdit()
            pane.setReadOnly(True)
            pane.setPlaceholderText("Waiting for the judge…")
            pane.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            stages.addWidget(label, 0, column)
            stages.addWidget(pane, 1, column)
            self.stage_titles.append(label)
            self.stage_panes.append(pane)

        self.verdict_label = QLabel()
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextFormat(Qt.TextFormat.RichText)
        self.accept_button = QPushButton("Accept the judge's verdict")
        self.accept_button.clicked.connect(self.accept_verdict)
        self.record_button = QPushButton("Record my best && worst")
        self.record_button.setToolTip("Store your pick: the best beats every other image, every "
                                      "other image beats the worst")
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
        layout.addWidget(cards_scroll)
        layout.addWidget(self.verdict_label)
        layout.addLayout(stages, 1)
        layout.addLayout(bottom)
        undo = QShortcut(QKeySequence.StandardKey.Undo, self, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo.activated.connect(self.undo_last_record)

    # -- candidates ----------------------------------------------------------------------------
    def use_selection(self) -> None:
        """Take the grid selection (2–8 images) as the set."""
        self.set_images(self.context.selection.image_ids())

    def set_images(self, image_ids: Sequence[int]) -> bool:
        """Show these images (in this order) as the set; False with a message when not 2–8 images."""
        records = [r for r in (self.context.profile.image_by_id(i) for i in image_ids) if r is not None]
        if not MIN_SET <= len(records) <= MAX_SET:
            self.status_label.setText(
                f"A set needs {MIN_SET} to {MAX_SET} images; {len(records)} selected.")
            return False
        self.cancel_judge()
        self._records = records
        self._outcome = None
        for card in self._cards:
            self.best_group.removeButton(card.best_button)
            self.worst_group.removeButton(card.worst_button)
            card.deleteLater()
        self._cards = []
        for position, record in enumerate(records, start=1):
            card = _Card(record, position)
            self.best_group.addButton(card.best_button)
            self.worst_group.addButton(card.worst_button)
            card.set_pixmap(self.context.thumbnails.request(record.id))
            if self.context.thumbnails.pixmap(record.id) is None:
                card.thumb.setText("loading…")
            self.cards_layout.insertWidget(self.cards_layout.count() - 1, card)
            self._cards.append(card)
        self._fit_cards()
        self.source_label.setText(f"Set of {len(records)} images, shown in this order to the judge "
                                  "(it also sees shuffled orderings).")
        for pane in self.stage_panes:
            pane.clear()
        self.verdict_label.setText("")
        self.status_label.setText("")
        self._update_buttons()
        return True

    def use_burst(self, burst_id: int) -> bool:
        """Take the frames of one burst (in capture order) as the set."""
        burst = next((b for b in self.context.profile.bursts() if b.id == burst_id), None)
        if burst is None:
            self.status_label.setText("That burst no longer exists.")
            return False
        return self.set_images(burst.image_ids)

    def _refresh_bursts(self) -> None:
        self.burst_combo.clear()
        self.burst_combo.addItem("Use a burst…", None)
        for burst in self.context.profile.bursts():
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
        for card in self._cards:
            if best is not None:
                card.best_button.setChecked(card.record.id == best)
            if worst is not None:
                card.worst_button.setChecked(card.record.id == worst)

    def user_pick(self) -> tuple[int | None, int | None]:
        """The user's current best and worst (None where not picked)."""
        best = next((c.record.id for c in self._cards if c.best_button.isChecked()), None)
        worst = next((c.record.id for c in self._cards if c.worst_button.isChecked()), None)
        return best, worst

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
            self.status_label.setText("No judge model is set up; pick best and worst yourself, "
                                      "or set up a model.")
            return None
        self.cancel_judge()
        self._outcome = None
        for index, pane in enumerate(self.stage_panes):
            pane.clear()
            pane.setPlaceholderText("Waiting for the judge…" if index else "Writing…")
        for card in self._cards:
            card.verdict.setText("")
        self.verdict_label.setText("The judge is looking at the set…")
        paths = [r.path for r in self._records]
        relay = self._relay
        self._job = self.context.runner.submit(
            "Judge best and worst", judge_set_job, self.judge_factory, dict(self.context.settings),
            self.context.profile, paths,
            lambda event: relay.stage.emit(event.ordering_index, event.stage, event.text),
            on_done=self._on_verdict, on_error=self._on_judge_error, gpu=True,
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
        index = STAGES.index(stage)
        if ordering == 0:
            self.stage_panes[index].setPlainText(text)
            if index + 1 < len(self.stage_panes):
                self.stage_panes[index + 1].setPlaceholderText("Writing…")
        self.verdict_label.setText(
            f"The judge finished the {stage} stage for ordering {ordering + 1} of {SET_ORDERINGS}…")

    def _on_verdict(self, outcome: SetOutcome) -> None:
        self._outcome = outcome
        for index, text in enumerate(outcome.stages[: len(self.stage_panes)]):
            self.stage_panes[index].setPlainText(text)
        names = {r.path: Path(r.path).name for r in self._records}
        if outcome.best is None or outcome.worst is None:
            self.verdict_label.setText(
                "<b>The judge's reply could not be read</b> (kept as an unparsed judgment). "
                "Pick best and worst yourself.")
        else:
            self.verdict_label.setText(describe_outcome(outcome, names))
            for card in self._cards:
                if card.record.path == outcome.best:
                    card.verdict.setText("judge: BEST")
                elif card.record.path == outcome.worst:
                    card.verdict.setText("judge: WORST")
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
            agrees = (by_path.get(self._outcome.best), by_path.get(self._outcome.worst)) == (best, worst)
            source = "accepted" if agrees else "override"
        return self._record(best, worst, source)

    def undo_last_record(self) -> None:
        """Remove the choices stored by the last Accept / Record."""
        if not self._last_recorded:
            return
        for choice_id in self._last_recorded:
            self.context.profile.delete_choice(choice_id)
        self.status_label.setText(f"Removed {len(self._last_recorded)} choices.")
        self._last_recorded = []
        self.context.signals.choices_changed.emit()
        self._update_buttons()

    def _record(self, best: int, worst: int, source: str) -> list[int]:
        order = self.image_ids()
        state: dict[str, Any] = {"view": "set", "order": order, "best": best, "worst": worst,
                                 "source": source}
        if self._outcome is not None:
            state["judge"] = self._outcome.judge_id
        ids = [
            self.context.profile.add_choice(a, b, winner, dimension="overall", app_state=state)
            for a, b, winner in choices_from_verdict(order, best, worst)
        ]
        self._last_recorded = ids
        names = {r.id: Path(r.path).name for r in self._records}
        self.status_label.setText(
            f"Recorded {len(ids)} choices: {names[best]} best, {names[worst]} worst "
            f"({source}). Ctrl+Z removes them.")
        self.context.signals.choices_changed.emit()
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
            self._outcome is not None and self._outcome.best is not None and not running)

    def _refresh_model_banner(self) -> None:
        self.model_banner.setVisible(not self.judge_configured())

    def _on_settings_changed(self, key: str) -> None:
        if key == "judge":
            self._refresh_model_banner()
            self._update_buttons()

    def _fit_cards(self) -> None:
        if not self._cards:
            return
        spacing = self.cards_layout.spacing()
        share = (self.cards_scroll.viewport().width() - 4) // len(self._cards) - spacing - 16
        side = max(MIN_CARD_THUMB, min(MAX_CARD_THUMB, share))
        for card in self._cards:
            card.set_thumb_size(side)
        stacked = any(card.buttons_stacked() for card in self._cards)
        self.cards_scroll.setFixedHeight(side + (140 if stacked else 110))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Fit the candidate cards to the new width."""
        super().resizeEvent(event)
        self._fit_cards()

    def _on_thumbnail(self, image_id: int) -> None:
        for card in self._cards:
            if card.record.id == image_id:
                card.set_pixmap(self.context.thumbnails.pixmap(image_id))

    def open_model_manager(self) -> None:
        """Open the model manager so the user can set up a judge."""
        from aesthete_gui.qt.dialogs.model_manager import ModelManagerDialog

        dialog = ModelManagerDialog(self.context, self)
        dialog.open()
