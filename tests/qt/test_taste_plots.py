"""Plots and score bars: drawn from data, empty states explain themselves, colours follow the theme."""

from __future__ import annotations

from matplotlib.colors import to_hex
from PySide6.QtWidgets import QApplication

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.qt.theme import apply_theme
from aesthete_gui.qt.widgets.plots import CurvePoint, LearningCurvePlot, ScoreDistributionPlot
from aesthete_gui.qt.widgets.score_bars import ScoreBars


def test_distribution_plot_has_one_histogram_per_dimension(qtbot) -> None:
    plot = ScoreDistributionPlot()
    qtbot.addWidget(plot)
    scores = {i: {d: 1.0 + (i % 5) for d in DIMENSIONS} for i in range(20)}
    plot.show_scores(scores, "builtin")
    assert [a.get_title() for a in plot.figure.axes] == [d.capitalize() for d in DIMENSIONS]
    assert sum(p.get_height() for p in plot.figure.axes[0].patches) == 20
    assert "20 images scored by builtin" in plot.figure.get_suptitle()


def test_empty_plots_say_what_to_do(qtbot) -> None:
    distribution, curve = ScoreDistributionPlot(), LearningCurvePlot()
    qtbot.addWidget(distribution)
    qtbot.addWidget(curve)
    distribution.show_scores({})
    curve.show_curve([], [])
    assert "score the selection" in distribution.figure.texts[0].get_text()
    assert "Record some choices" in curve.figure.texts[0].get_text()


def test_learning_curve_draws_adapter_and_base_and_follows_the_theme(qtbot) -> None:
    app = QApplication.instance()
    plot = LearningCurvePlot()
    qtbot.addWidget(plot)
    apply_theme(app, "dark")
    adapter = [CurvePoint(5, 0.6, 0.4, 0.8), CurvePoint(20, 0.75, 0.6, 0.9)]
    base = [CurvePoint(5, 0.55, 0.4, 0.7), CurvePoint(20, 0.55, 0.4, 0.7)]
    plot.show_curve(adapter, base)
    labels = [line.get_label() for line in plot.figure.axes[0].get_lines()]
    assert labels[:2] == ["base scorer", "your adapter"]
    assert list(plot.figure.axes[0].get_lines()[1].get_ydata()) == [60.0, 75.0]
    dark = to_hex(plot.figure.get_facecolor())
    apply_theme(app, "light")
    plot.restyle()
    light = to_hex(plot.figure.get_facecolor())
    light_window = QApplication.palette().color(QApplication.palette().ColorRole.Window).name()
    apply_theme(app, "dark")
    assert light == light_window
    assert dark != light


def test_score_bars_keep_the_five_dimensions_and_paint(qtbot) -> None:
    bars = ScoreBars()
    qtbot.addWidget(bars)
    bars.set_scores({"overall": 4.2, "technique": 9.0, "unknown": 2.0}, "builtin · photography")
    bars.set_highlight("overall")
    assert bars.scores() == {"technique": 9.0, "coloration": None, "composition": None,
                             "mood": None, "overall": 4.2}
    bars.resize(bars.sizeHint())
    image = bars.grab().toImage()
    assert not image.isNull() and image.height() >= 6 * 18
    bars.set_scores(None)
    assert all(value is None for value in bars.scores().values())
