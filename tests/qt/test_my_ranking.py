"""An adapter trained from the CLI is the GUI's "My ranking": same stored order, personal scores shown."""

from __future__ import annotations

import numpy as np
import pytest

from aesthete_gui.cli import main
from aesthete_gui.qt.item_models import ScoreTextRole
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.store import open_profile
from tests.services.taste_library import brightness_taste, build_profile


@pytest.fixture
def trained_profile(tmp_path, capsys):
    """A real profile file whose taste adapter was trained by `aesthete taste train`."""
    path = build_profile(tmp_path / "lib", count=24)
    profile = open_profile(path)
    try:
        taste_of = brightness_taste(profile)
        paths = sorted(taste_of)
        rng = np.random.default_rng(0)
        rows = ["a,b,winner"]
        for _ in range(60):
            a, b = rng.choice(len(paths), size=2, replace=False)
            rows.append(f"{paths[a]},{paths[b]},{'a' if taste_of[paths[a]] > taste_of[paths[b]] else 'b'}")
    finally:
        profile.close()
    csv_file = tmp_path / "choices.csv"
    csv_file.write_text("\n".join(rows) + "\n")
    assert main(["--profile", str(path), "prefer", "--from", str(csv_file)]) == 0
    assert main(["--profile", str(path), "taste", "train", "--name", "bright"]) == 0
    assert "'bright' is now the active adapter" in capsys.readouterr().out
    return path


def test_a_cli_trained_adapter_is_my_ranking_in_the_grid(qtbot, trained_profile, tmp_path) -> None:
    from aesthete_gui.qt.context import build_context

    context = build_context(trained_profile, cache_dir=tmp_path / "thumbs")
    context.settings["welcome_done"] = True
    context.settings["scorer"] = "builtin"
    window = MainWindow(context)
    qtbot.addWidget(window)
    window.show()
    try:
        model = window.model
        qtbot.waitUntil(lambda: model.total_count() == 24 and not model.loading, timeout=20_000)
        personal = {i: s["overall"] for i, s in context.profile.scores.of_scorer("taste:bright").items()}
        assert len(personal) == 24 and all(1.0 <= v <= 5.0 for v in personal.values())
        window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("personal"))
        assert model.sort_key == "personal"
        assert model.visible_ids() == sorted(personal, key=lambda i: -personal[i])
        shown = [model.data(model.index(row, 0), ScoreTextRole) for row in range(model.rowCount())]
        assert shown == [f"{personal[i]:.2f}" for i in model.visible_ids()]
        overall = [model.row_for(i).scores.get("overall") for i in model.visible_ids()]
        assert shown != [f"{value:.2f}" for value in overall]  # not the built-in score
        # one score per view, named: the inspector shows the grid's score and its scorer
        first_id = model.visible_ids()[0]
        window.grid.select_image(first_id)
        qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.image_id == first_id)
        assert window.inspector.headline.text() == f"<b>{personal[first_id]:.2f}</b> · My taste (bright)"
        assert window.model_label.text().startswith("Scores: My taste (bright)  ·  Judge:")
        # the adapter is active: sorted by capture time, the grid still shows the personal score
        window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("capture_time"))
        position = model.position_of(first_id)
        assert model.data(model.index(position, 0), ScoreTextRole) == f"{personal[first_id]:.2f}"
        assert "My taste (bright)" in window.inspector.headline.text()
        window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("personal"))
        # Sorting by a dimension shows that dimension's score again.
        window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("overall"))
        first = model.row_for(model.visible_ids()[0])
        assert model.data(model.index(0, 0), ScoreTextRole) == f"{first.scores['overall']:.2f}"
        assert window.model_label.text().startswith("Scores: overall · built-in  ·  Judge:")
        window.grid.select_image(first.image_id)
        qtbot.waitUntil(lambda: window.inspector.details is not None and window.inspector.details.image_id == first.image_id)
        assert window.inspector.headline.text() == f"<b>{first.scores['overall']:.2f}</b> · overall · built-in"
    finally:
        window.marks.close()
        context.close()
