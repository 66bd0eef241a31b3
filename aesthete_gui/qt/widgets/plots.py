"""Matplotlib canvases for the taste panel: score distributions per dimension and the learning curve."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import QApplication, QSizePolicy, QWidget

from aesthete_gui.engine.dimensions import DIMENSIONS, SCORE_MAX, SCORE_MIN

BAR_COLOUR = "#7f9fbf"
BASE_COLOUR = "#a0a0a0"
ADAPTER_COLOUR = "#e0a040"


@dataclass(frozen=True)
class CurvePoint:
    """Held-out agreement after training on `n_choices` choices, with its confidence interval."""

    n_choices: int
    agreement: float
    low: float
    high: float


class _ThemedCanvas(FigureCanvasQTAgg):
    """A figure canvas that takes its colours from the widget palette (dark or light theme)."""

    def __init__(self, parent: QWidget | None = None, height_in: float = 2.2) -> None:
        self.figure = Figure(figsize=(6.0, height_in), dpi=90, layout="constrained")
        super().__init__(self.figure)
        self.setParent(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(int(height_in * 70))
        self._redraw: Callable[[], None] | None = None

    def _colours(self) -> tuple[str, str, str]:
        # The application's theme palette: matplotlib gives the canvas its own white palette.
        palette = QApplication.palette()
        background = palette.color(palette.ColorRole.Window).name()
        text = palette.color(palette.ColorRole.WindowText).name()
        grid = palette.color(palette.ColorRole.Mid).name()
        return background, text, grid

    def _style_axes(self, axes, title: str) -> None:
        background, text, grid = self._colours()
        axes.set_facecolor(background)
        axes.set_title(title, color=text, fontsize=9)
        axes.tick_params(colors=text, labelsize=8)
        for spine in axes.spines.values():
            spine.set_color(grid)
        axes.xaxis.label.set_color(text)
        axes.yaxis.label.set_color(text)

    def restyle(self) -> None:
        """Draw the last data again in the current theme's colours."""
        if self._redraw is not None:
            self._redraw()

    def _begin(self) -> None:
        background, _, _ = self._colours()
        self.figure.clear()
        self.figure.set_facecolor(background)

    def _empty(self, message: str) -> None:
        _, text, _ = self._colours()
        self.figure.text(0.5, 0.5, message, ha="center", va="center", color=text, fontsize=10,
                         wrap=True)


class ScoreDistributionPlot(_ThemedCanvas):
    """One histogram per dimension of the scores of the library (or selection) by one scorer."""

    def show_scores(self, scores: Mapping[int, Mapping[str, float]], scorer: str = "") -> None:
        """Draw histograms of `scores` ({image_id: {dimension: score}})."""
        self._redraw = lambda: self.show_scores(scores, scorer)
        self._begin()
        if not scores:
            self._empty("No scores yet: score the selection or the library to see distributions.")
            self.draw_idle()
            return
        axes_row = self.figure.subplots(1, len(DIMENSIONS), sharey=True)
        bins = [SCORE_MIN + i * 0.25 for i in range(int((SCORE_MAX - SCORE_MIN) / 0.25) + 1)]
        for axes, dim in zip(axes_row, DIMENSIONS, strict=True):
            values = [s[dim] for s in scores.values() if s.get(dim) is not None]
            axes.hist(values, bins=bins, color=BAR_COLOUR)
            axes.set_xlim(SCORE_MIN, SCORE_MAX)
            axes.set_xticks([1, 2, 3, 4, 5])
            self._style_axes(axes, dim.capitalize())
        axes_row[0].set_ylabel("images", fontsize=8)
        if scorer:
            _, text, _ = self._colours()
            self.figure.suptitle(f"{len(scores)} images scored by {scorer}", color=text, fontsize=9)
        self.draw_idle()


class LearningCurvePlot(_ThemedCanvas):
    """Held-out agreement vs number of choices, base scorer and personal adapter, with CI bands."""

    def show_curve(
        self,
        adapter: Sequence[CurvePoint],
        base: Sequence[CurvePoint] = (),
    ) -> None:
        """Draw the adapter's curve and, when given, the base scorer's for comparison."""
        self._redraw = lambda: self.show_curve(adapter, base)
        self._begin()
        if not adapter and not base:
            self._empty("Record some choices in Compare, then train an adapter to see how "
                        "agreement grows with the number of choices.")
            self.draw_idle()
            return
        axes = self.figure.subplots()
        for points, colour, label in ((base, BASE_COLOUR, "base scorer"),
                                      (adapter, ADAPTER_COLOUR, "your adapter")):
            if not points:
                continue
            xs = [p.n_choices for p in points]
            axes.plot(xs, [p.agreement * 100 for p in points], marker="o", color=colour,
                      label=label, linewidth=1.5, markersize=4)
            axes.fill_between(xs, [p.low * 100 for p in points], [p.high * 100 for p in points],
                              color=colour, alpha=0.2, linewidth=0)
        axes.axhline(50, color=BASE_COLOUR, linestyle=":", linewidth=1)
        axes.set_ylim(0, 100)
        axes.set_xlabel("choices used for training", fontsize=8)
        axes.set_ylabel("held-out agreement (%)", fontsize=8)
        self._style_axes(axes, "Learning curve")
        background, text, _ = self._colours()
        legend = axes.legend(fontsize=8, facecolor=background, edgecolor=background)
        for entry in legend.get_texts():
            entry.set_color(text)
        self.draw_idle()
