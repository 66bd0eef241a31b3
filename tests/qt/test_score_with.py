"""Scoring ▸ Score with lists every registered scorer, and the GUI scores with the one chosen."""

from __future__ import annotations

import itertools

from aesthete_gui.qt import actions
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState
from aesthete_gui.services import taste
from tests.qt.conftest import write_test_images


def test_score_with_lists_registered_scorers_and_scores_with_a_taste_adapter(qtbot, app_context, tmp_path) -> None:
    app_context.settings["welcome_done"] = True
    window = MainWindow(app_context)
    qtbot.addWidget(window)
    window.show()
    write_test_images(tmp_path / "shoot", 6)
    handle = window.import_folders([tmp_path / "shoot"])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    profile = app_context.profile
    images = profile.catalog.images(status="ok")
    for a, b in itertools.islice(itertools.cycle(itertools.combinations(images, 2)), 30):
        taste.record_choice(profile, a.path, b.path, "a" if a.id < b.id else "b")
    taste.train_taste(profile, name="mine", base_scorer="builtin")

    window.fill_scorer_menu(window.scorer_menu)
    entries = {a.toolTip(): a for a in window.scorer_menu.actions()}
    assert list(entries)[:2] == ["builtin", "taste:mine"]
    assert entries["builtin"].isChecked()
    entries["taste:mine"].trigger()
    assert app_context.settings["scorer"] == "taste:mine"
    assert actions.base_scorer_for("taste:mine") is None  # an adapter is never another adapter's base
    assert actions.base_scorer_for("student:s") == "student:s" and actions.base_scorer_for(None) == "builtin"

    with qtbot.waitSignal(app_context.signals.scores_changed, timeout=60_000):
        job = window.score_library()
    qtbot.waitUntil(lambda: job.done, timeout=60_000)
    assert job.state is JobState.FINISHED, job.error_text
    stored = profile.scores.of_scorer("taste:mine")
    assert set(stored) == {r.id for r in images}
    window.marks.close()
