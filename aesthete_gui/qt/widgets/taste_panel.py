"""Taste and scores panel: score the selection or library, distil a fast scorer, train a taste
adapter — each a job with progress and Cancel — then show agreement and plots."""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.engine.scorers import BUILTIN
from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback
from aesthete_gui.qt import actions
from aesthete_gui.qt.dialogs.train_dialog import TrainDialog, TrainOptions
from aesthete_gui.qt.widgets.plots import CurvePoint, LearningCurvePlot, ScoreDistributionPlot
from aesthete_gui.services.taste_guard import (
    choices_still_needed,
    expected_held_out,
    too_few_to_measure,
)

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.task_runner import JobHandle
    from aesthete_gui.services.taste import AdapterFigures, TasteReport
    from aesthete_gui.store import Profile

log = logging.getLogger(__name__)

NO_ADAPTER = "(none: base scorer only)"


def learning_curve(
    profile: Profile,
    base_scorer: str,
    dimension: str = "overall",
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[list[CurvePoint], list[CurvePoint]]:
    """The adapter's and the base scorer's learning-curve points (services.taste.learning_curve)."""
    from aesthete_gui.services import taste

    points, base = taste.learning_curve(profile, base_scorer, dimension, progress, cancel)
    adapter_points = [CurvePoint(n, a.mean, a.low, a.high) for n, a in points]
    return adapter_points, [CurvePoint(n, base.mean, base.low, base.high) for n, _ in points]


def train_with_options(
    profile: Profile,
    options: TrainOptions,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> tuple[Any, tuple[list[CurvePoint], list[CurvePoint]] | None]:
    """Train and store the adapter with its ranking for the grid (the service decides whether it
    becomes active), and optionally the learning curve (when agreement could be measured)."""
    from aesthete_gui.services import taste

    report = taste.train_taste(profile, name=options.name, base_scorer=options.base_scorer,
                               progress=progress, cancel=cancel)
    curve = None
    if options.learning_curve and report.measured:
        try:
            curve = learning_curve(profile, report.base_scorer, "overall", progress, cancel)
        except taste.TasteError as error:  # e.g. the overall choices alone hold out too few
            log.info("no learning curve: %s", error)
    return report, curve


def format_report(report: TasteReport) -> str:
    """Rich text: held-out agreement of the base scorer and of the adapter, with 95% intervals,
    or why there is none; and whether the adapter is active."""
    return format_figures(report, report.active)


def format_figures(figures: AdapterFigures | TasteReport, active: bool) -> str:
    """Rich text from an adapter's stored figures or a fresh report, and whether it is active."""
    name, base, adapter = figures.name, figures.base, figures.adapter
    held_out = figures.held_out or 0
    if base is None or adapter is None:
        state = ("It is active." if active else
                 "The base scorer stays active; choose the adapter above to use it anyway.")
        return (f"<b>{name}</b>: {too_few_to_measure(figures.choices, held_out)} (your latest "
                f"choices are kept out of training; whole Set verdicts and bursts count together). "
                f"<i>Compare suggested pairs</i> shows the pairs that teach it most. {state}")
    worse = adapter.mean < base.mean
    if active:
        state = "It is active, although it measured worse." if worse else "It is active."
    else:
        state = ("Not active: it measured worse than the base scorer, which stays in charge."
                 if worse else "Not active.")
    return (f"<b>{name}</b> predicts your held-out choices <b>{adapter.mean:.0%}</b> of the "
            f"time (95% CI {adapter.low:.0%}–{adapter.high:.0%}); the base scorer "
            f"<b>{base.mean:.0%}</b> ({base.low:.0%}–{base.high:.0%}). Tested on your "
            f"latest {held_out} choices after training on the earlier ones. {state}")


class TastePanel(QWidget):
    """The Qt view of scoring, distillation and the personal adapter, with their plots."""

    compare_requested = Signal()  # "Compare suggested pairs": Compare on the taste service's pairs

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._job: JobHandle | None = None
        self.last_report: Any = None
        self._build()
        self._refresh_scorers()
        self._refresh_adapters()
        self._refresh_counts()
        self.refresh_distribution()
        self.curve_plot.show_curve([], [])
        signals = context.signals
        signals.choices_changed.connect(self._refresh_counts)
        context.selection.changed.connect(self._refresh_counts)
        signals.scores_changed.connect(self.refresh_distribution)
        signals.adapters_changed.connect(self._refresh_adapters)  # the taste service announces them
        signals.adapters_changed.connect(self.refresh_distribution)
        signals.settings_changed.connect(self._on_settings_changed)

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        score_box = QGroupBox("Scores")
        self.scorer_combo = QComboBox()
        self.scorer_combo.setMinimumContentsLength(14)
        self.scorer_combo.currentTextChanged.connect(self.refresh_distribution)
        self.score_selection_button = QPushButton("Score selection")
        self.score_selection_button.clicked.connect(lambda: self.score(selection_only=True))
        self.score_library_button = QPushButton("Score library")
        self.score_library_button.clicked.connect(lambda: self.score(selection_only=False))
        score_layout = QHBoxLayout(score_box)
        score_layout.addWidget(QLabel("Scorer:"))
        score_layout.addWidget(self.scorer_combo, 1)
        score_layout.addWidget(self.score_selection_button)
        score_layout.addWidget(self.score_library_button)

        distil_box = QGroupBox("Fast scorer from the judge")
        self.distil_label = QLabel()
        self.distil_label.setWordWrap(True)
        self.distil_button = QPushButton("Run distillation")
        self.distil_button.clicked.connect(self.distil)
        distil_layout = QHBoxLayout(distil_box)
        distil_layout.addWidget(self.distil_label, 1)
        distil_layout.addWidget(self.distil_button)

        taste_box = QGroupBox("Your taste")
        self.choices_label = QLabel()
        self.train_button = QPushButton("Train taste adapter…")
        self.train_button.clicked.connect(self.ask_and_train)
        self.adapter_combo = QComboBox()
        self.adapter_combo.setMinimumContentsLength(18)
        self.adapter_combo.activated.connect(self._adapter_chosen)
        self.agreement_label = QLabel(
            "Train an adapter to see how often it predicts the choices it was not trained on, "
            "next to the base scorer.")
        self.agreement_label.setWordWrap(True)
        self.agreement_label.setTextFormat(Qt.TextFormat.RichText)
        self.activate_button = QPushButton("Use it anyway")
        self.activate_button.setToolTip("Make the adapter shown here active although it did not "
                                         "measure at least as good as the base scorer.")
        self.activate_button.clicked.connect(self.activate_shown_adapter)
        self.activate_button.setVisible(False)
        self.compare_button = QPushButton("Compare suggested pairs")
        self.compare_button.setToolTip("Open Compare on the pairs your choices would teach the most "
                                       "(from the whole library)")
        self.compare_button.clicked.connect(self.compare_requested)
        self.compare_button.setVisible(False)
        self._shown_adapter: str | None = None
        self._unmeasured_shown = False  # the figures shown say "not enough held-out choices"
        taste_layout = QGridLayout(taste_box)
        taste_layout.addWidget(self.choices_label, 0, 0)
        taste_layout.addWidget(QLabel("Active adapter:"), 0, 1, Qt.AlignmentFlag.AlignRight)
        taste_layout.addWidget(self.adapter_combo, 0, 2)
        taste_layout.addWidget(self.train_button, 0, 3)
        taste_layout.addWidget(self.agreement_label, 1, 0, 1, 3)
        side = QVBoxLayout()
        side.addWidget(self.activate_button)
        side.addWidget(self.compare_button)
        side.addStretch(1)
        taste_layout.addLayout(side, 1, 3)
        taste_layout.setColumnStretch(0, 1)

        self.job_label = QLabel()
        self.job_progress = QProgressBar()
        self.job_progress.setTextVisible(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        job_row = QHBoxLayout()
        job_row.addWidget(self.job_label, 1)
        job_row.addWidget(self.job_progress, 1)
        job_row.addWidget(self.cancel_button)

        self.distribution_plot = ScoreDistributionPlot()
        curve_page = QWidget()
        self.curve_plot = LearningCurvePlot()
        self.curve_button = QPushButton("Draw learning curve")
        self.curve_button.clicked.connect(self.draw_learning_curve)
        curve_layout = QVBoxLayout(curve_page)
        curve_layout.setContentsMargins(0, 0, 0, 0)
        curve_layout.addWidget(self.curve_plot, 1)
        curve_layout.addWidget(self.curve_button, 0, Qt.AlignmentFlag.AlignRight)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.distribution_plot, "Score distributions")
        self.tabs.addTab(curve_page, "Learning curve")

        self._set_job_widgets(running=False)
        layout = QVBoxLayout(self)
        layout.addWidget(score_box)
        layout.addWidget(distil_box)
        layout.addWidget(taste_box)
        layout.addLayout(job_row)
        layout.addWidget(self.tabs, 1)

    # -- actions -------------------------------------------------------------------------------
    def score(self, selection_only: bool) -> JobHandle | None:
        """Score the selection (or the whole library) with the chosen scorer, as a job."""
        scorer = self.scorer_combo.currentText() or BUILTIN
        ids = self.context.selection.image_ids() if selection_only else None
        if selection_only and not ids:
            self.job_label.setText("Select images in the grid first.")
            return None
        what = f"{len(ids)} selected images" if ids else "the library"
        job = partial(actions.score_job, judge=actions.configured_judge(self.context.settings))
        return self._start(f"Score {what} ({scorer})", job, self.context.profile, ids,
                           scorer, self.context.settings.get("preset"),
                           gpu=actions.scorer_uses_gpu(scorer), on_done=self._scored)

    def distil(self) -> JobHandle | None:
        """Distil a fast scorer from the configured judge, as a GPU job."""
        judge = actions.configured_judge(self.context.settings)
        if judge is None:
            self.job_label.setText("Distillation needs a judge: set one in the model manager.")
            return None
        return self._start("Distil fast scorer", actions.distil_job, self.context.profile, judge,
                           self.context.settings.get("preset"), gpu=True, on_done=self._distilled)

    def ask_and_train(self) -> JobHandle | None:
        """Ask for the adapter's options, then train it."""
        dialog = TrainDialog(self._scorers(), self.scorer_combo.currentText(),
                             self.context.profile.choices.count(), self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return self.train(dialog.options())

    def train(self, options: TrainOptions) -> JobHandle | None:
        """Train a taste adapter as a job; agreement (base vs adapter) and curve appear after."""
        if not self.context.profile.choices.count():
            self.job_label.setText("Record some choices in Compare or Set first.")
            return None
        return self._start(f"Train taste adapter {options.name}", train_with_options,
                           self.context.profile, options, on_done=self._trained)

    def draw_learning_curve(self) -> JobHandle | None:
        """Compute the learning curve on the current choices, as a job."""
        scorer = self.scorer_combo.currentText() or BUILTIN
        return self._start("Learning curve", learning_curve, self.context.profile, scorer,
                           on_done=lambda curve: self.curve_plot.show_curve(*curve))

    def activate_shown_adapter(self) -> None:
        """Switch on the adapter whose figures are shown (the user's explicit decision)."""
        from aesthete_gui.services import taste

        if self._shown_adapter is None:
            return
        taste.use_adapter(self.context.profile, self._shown_adapter)
        self.last_report = None

    def cancel(self) -> None:
        """Cancel the panel's running job; what it stored so far stays consistent."""
        if self._job is not None and not self._job.done:
            self._job.cancel()
            self.job_label.setText(f"{self._job.name}: cancelling…")

    # -- job plumbing --------------------------------------------------------------------------
    def _start(self, name: str, fn: Any, *args: Any, on_done: Any, gpu: bool = False) -> JobHandle | None:
        if self._job is not None and not self._job.done:
            self.job_label.setText(f"Wait for “{self._job.name}” to finish, or cancel it.")
            return None
        job = self.context.runner.submit(name, fn, *args, on_done=on_done, gpu=gpu,
                                         on_error=lambda e: self._failed(name, e))
        self._job = job
        self.job_label.setText(f"{name}…")
        self.job_progress.setRange(0, 0)
        self._set_job_widgets(running=True)
        job.progress.connect(self._on_progress)
        job.cancelled.connect(lambda: self.job_label.setText(f"{name}: cancelled; nothing half-done was kept."))
        job.ended.connect(lambda: self._set_job_widgets(running=False))
        return job

    def _on_progress(self, progress: Progress) -> None:
        if progress.total:
            self.job_progress.setRange(0, progress.total)
            self.job_progress.setValue(progress.done)
        if progress.message:
            self.job_progress.setFormat(progress.message[:60])

    def _set_job_widgets(self, running: bool) -> None:
        self.job_progress.setVisible(running)
        self.cancel_button.setVisible(running)
        for button in (self.score_selection_button, self.score_library_button, self.train_button,
                       self.curve_button):
            button.setEnabled(not running)
        self.distil_button.setEnabled(not running and actions.configured_judge(self.context.settings) is not None)
        if not running and hasattr(self, "choices_label"):
            self._refresh_counts()

    def _failed(self, name: str, error: BaseException) -> None:
        self.job_label.setText(f"{name} failed: {error}")

    def _scored(self, result: Any) -> None:
        self.job_label.setText(f"Scored {len(result.scores)} images.")  # the service announced the scores

    def _distilled(self, result: Any) -> None:
        self.job_label.setText("Distillation finished; the new scorer is in the list.")
        self._refresh_scorers()  # the pseudo-scores announced themselves when stored

    def _trained(self, result: tuple[Any, Any]) -> None:
        report, curve = result
        self.last_report = report
        self._show_figures(report.name, format_report(report), report.active, report.measured)
        self.job_label.setText(f"Adapter {report.name} trained and active." if report.active else
                               f"Adapter {report.name} trained; the base scorer stays active.")
        if curve is not None:
            self.curve_plot.show_curve(*curve)
            self.tabs.setCurrentIndex(1)

    # -- state ---------------------------------------------------------------------------------
    def _scorers(self) -> list[str]:
        from aesthete_gui.services import scoring

        try:
            return scoring.available_scorers(self.context.profile)
        except Exception as error:  # an unreadable student card must not hide the built-in scorer
            log.warning("scorers unavailable: %s", error)
            return [BUILTIN]

    def _refresh_scorers(self) -> None:
        current = self.scorer_combo.currentText() or self.context.settings.get("scorer") or BUILTIN
        self.scorer_combo.blockSignals(True)
        self.scorer_combo.clear()
        self.scorer_combo.addItems(self._scorers())
        self.scorer_combo.setCurrentText(current)
        self.scorer_combo.blockSignals(False)

    def _refresh_adapters(self) -> None:
        profile = self.context.profile
        self.adapter_combo.clear()
        self.adapter_combo.addItem(NO_ADAPTER)
        active = profile.adapters.active()
        for record in profile.adapters.all():
            self.adapter_combo.addItem(record.name)
        self.adapter_combo.setCurrentText(active.name if active else NO_ADAPTER)
        if active is not None and self.last_report is None:
            from aesthete_gui.services.taste import adapter_figures

            figures = adapter_figures(active)
            self._show_figures(active.name, format_figures(figures, True), True, figures.measured)
        elif self.last_report is not None:
            shown = profile.adapters.get(self.last_report.name)
            is_active = shown is not None and shown.active
            self._show_figures(self.last_report.name,
                               format_figures(self.last_report, is_active),
                               is_active, self.last_report.measured)
        elif profile.adapters.all():
            self._shown_adapter = None
            self.agreement_label.setText("No adapter active: the base scorer ranks your library. "
                                         "Choose an adapter above to see its figures.")
            self.activate_button.setVisible(False)

    def _show_figures(self, name: str, text: str, active: bool, measured: bool = True) -> None:
        self._shown_adapter = name
        self.agreement_label.setText(text)
        self.activate_button.setVisible(not active)
        self._unmeasured_shown = not measured
        self._refresh_counts()

    def _adapter_chosen(self) -> None:
        from aesthete_gui.services import taste

        name = self.adapter_combo.currentText()
        taste.use_adapter(self.context.profile, None if name == NO_ADAPTER else name)
        self.last_report = None

    def _refresh_counts(self, *_: Any) -> None:
        total = self.context.profile.choices.count()
        selected = len(self.context.selection.image_ids())
        more = choices_still_needed(total, expected_held_out(total))
        self.choices_label.setText(f"{total} choices recorded" + (f" · about {more} more before agreement can be measured" if more else ""))
        self.compare_button.setVisible(more > 0 or self._unmeasured_shown)
        self.score_selection_button.setText(f"Score selection ({selected})")
        running = self._job is not None and not self._job.done
        self.score_selection_button.setEnabled(selected > 0 and not running)
        judge = actions.configured_judge(self.context.settings)
        self.distil_label.setText(
            "Trains a fast single-pass scorer from the judge's comparisons of your library."
            if judge else "Needs a judge model (Models ▸ Model manager). The built-in scorer "
            "works without one.")

    def refresh_distribution(self, *_: Any) -> None:
        """Redraw the score histograms of the chosen scorer from the profile."""
        scorer = self.scorer_combo.currentText() or BUILTIN
        self.distribution_plot.show_scores(self.context.profile.scores.of_scorer(scorer), scorer)

    def _on_settings_changed(self, key: str) -> None:
        if key == "theme":  # after the main window applied the new palette
            QTimer.singleShot(0, self.distribution_plot.restyle)
            QTimer.singleShot(0, self.curve_plot.restyle)
        if key in ("judge", "scorer"):
            self._refresh_counts()
            self._set_job_widgets(running=self._job is not None and not self._job.done)
