"""Taste panel: score the library, train an adapter (agreement shown), cancel leaves a consistent profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.qt.dialogs.train_dialog import TrainDialog, TrainOptions
from aesthete_gui.qt.task_runner import JobState
from aesthete_gui.qt.widgets.taste_panel import TastePanel
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import write_test_images


def add_images(context, folder: Path, count: int, size: tuple[int, int] = (160, 120)) -> list[int]:
    """Real JPEGs registered in the profile as imported images."""
    paths = write_test_images(folder, count, size=size)
    return context.profile.catalog.write_images(
        [ImageUpdate(path=str(p), folder_id=None, status="ok", width=size[0], height=size[1])
         for p in paths])


def record_consistent_choices(context, ids: list[int], count: int) -> None:
    """A user who always prefers the image written later (bluer, see write_test_images)."""
    pairs = [(ids[i], ids[j]) for i in range(len(ids)) for j in range(i + 1, len(ids))]
    for index, (early, late) in enumerate(pairs[:count]):
        if index % 2:
            context.profile.choices.add(early, late, "b")
        else:
            context.profile.choices.add(late, early, "a")


@pytest.fixture
def panel(qtbot, app_context):
    widget = TastePanel(app_context)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    return widget


def wait_done(qtbot, job, timeout: int = 120000) -> None:
    qtbot.waitUntil(lambda: job.done, timeout=timeout)


def test_score_library_stores_scores_and_draws_distributions(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 8)
    with qtbot.waitSignal(app_context.signals.scores_changed, timeout=120000):  # announced on write
        job = panel.score(selection_only=False)
    qtbot.waitUntil(lambda: job.done, timeout=120000)
    assert job.state is JobState.FINISHED
    stored = app_context.profile.scores.of_scorer("builtin")
    assert set(stored) == set(ids)
    assert all(set(DIMENSIONS) <= set(s) for s in stored.values())
    assert "Scored 8 images" in panel.job_label.text()
    assert len(panel.distribution_plot.figure.axes) == len(DIMENSIONS)


def test_score_selection_scores_only_the_selection(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 6)
    app_context.selection.set_image_ids(ids[:2])
    assert panel.score_selection_button.text() == "Score selection (2)"
    job = panel.score(selection_only=True)
    wait_done(qtbot, job)
    assert set(app_context.profile.scores.of_scorer("builtin")) == set(ids[:2])


def test_train_adapter_shows_agreement_and_learning_curve(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 12)
    record_consistent_choices(app_context, ids, 60)
    job = panel.train(TrainOptions("mine", "builtin", learning_curve=True))
    wait_done(qtbot, job)
    assert job.state is JobState.FINISHED, job.error_text
    text = panel.agreement_label.text()
    assert "predicts your held-out choices" in text and "base scorer" in text
    assert panel.last_report.held_out == 20
    assert panel.last_report.adapter.mean >= panel.last_report.base.mean  # hence activated
    active = app_context.profile.adapters.active()
    assert active is not None and active.name == "mine"
    assert panel.adapter_combo.currentText() == "mine"
    assert panel.tabs.currentIndex() == 1
    assert len(panel.curve_plot.figure.axes) == 1
    lines = panel.curve_plot.figure.axes[0].get_lines()
    assert any(line.get_label() == "your adapter" for line in lines)
    # Switching back to the base scorer deactivates the adapter.
    with qtbot.waitSignal(app_context.signals.adapters_changed):
        panel.adapter_combo.setCurrentIndex(0)
        panel.adapter_combo.activated.emit(0)
    assert app_context.profile.adapters.active() is None


def test_learning_curve_needs_enough_choices(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 6)
    record_consistent_choices(app_context, ids, 8)
    job = panel.draw_learning_curve()
    wait_done(qtbot, job)
    assert job.state is JobState.FAILED
    assert "not enough held-out choices to measure: 0 of 20" in panel.job_label.text()


def test_training_without_choices_says_what_to_do(qtbot, panel, app_context, tmp_path) -> None:
    add_images(app_context, tmp_path / "shoot", 3)
    assert panel.train(TrainOptions("mine", "builtin", learning_curve=False)) is None
    assert "Record some choices" in panel.job_label.text()


def test_cancel_scoring_leaves_a_consistent_profile(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "big", 30, size=(900, 700))
    job = panel.score(selection_only=False)
    with qtbot.waitSignal(job.progress, timeout=60000):
        pass
    panel.cancel_button.click()
    wait_done(qtbot, job)
    assert job.state is JobState.CANCELLED
    assert "cancelled" in panel.job_label.text()
    assert not panel.cancel_button.isVisible()
    # Either an image has all five scores or none: never a half-written row.
    stored = app_context.profile.scores.of_scorer("builtin")
    assert all(set(DIMENSIONS) <= set(s) for s in stored.values())
    assert set(stored) <= set(ids)
    # The profile still works: scoring again completes.
    again = panel.score(selection_only=False)
    wait_done(qtbot, again)
    assert set(app_context.profile.scores.of_scorer("builtin")) == set(ids)


def test_cancel_training_keeps_choices_and_stores_no_adapter(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "big", 24, size=(900, 700))
    record_consistent_choices(app_context, ids, 30)
    job = panel.train(TrainOptions("halfway", "builtin", learning_curve=False))
    with qtbot.waitSignal(job.progress, timeout=60000):
        pass
    panel.cancel()
    wait_done(qtbot, job)
    assert job.state is JobState.CANCELLED
    assert app_context.profile.adapters.all() == []
    assert app_context.profile.adapters.active() is None
    assert len(app_context.profile.choices.all()) == 30


def test_train_dialog_refuses_a_bad_name(qtbot) -> None:
    dialog = TrainDialog(["builtin"], "builtin", 12)
    qtbot.addWidget(dialog)
    dialog.name_edit.setText("../../etc")
    dialog._accept_if_valid()
    assert dialog.result() == 0
    assert "letters" in dialog.error_label.text()
    dialog.name_edit.setText("my taste")
    dialog._accept_if_valid()
    assert dialog.options() == TrainOptions("my taste", "builtin", True)


@pytest.mark.slow  # the tiny judge writes full-length nonsense replies: about a minute on 2 CPU cores
def test_cancel_distillation_marks_the_run_and_stores_no_pseudo_scores(qtbot, panel, app_context, tmp_path) -> None:
    from aesthete_gui.services.distill import RUN_KIND
    from tests.fixtures.tiny_models import build_tiny_qwen25_vl

    add_images(app_context, tmp_path / "shoot", 6)
    app_context.set_setting("judge", str(build_tiny_qwen25_vl(tmp_path / "tiny")))
    assert panel.distil_button.isEnabled()
    job = panel.distil()
    with qtbot.waitSignal(job.progress, timeout=120000):
        pass
    panel.cancel()
    wait_done(qtbot, job)
    assert job.state is JobState.CANCELLED, job.error_text
    [run] = app_context.profile.runs.all(RUN_KIND)
    assert run.status == "cancelled"
    assert not [s for s in app_context.profile.scores.scorers() if s.startswith("bridge:")]
    # every judgment kept is a whole record tied to the run, so a later run can resume from it
    assert all(j.first and j.second for j in app_context.profile.judgments.records(run_id=run.id))


def test_distillation_without_a_judge_says_how_to_set_one(qtbot, panel) -> None:
    assert not panel.distil_button.isEnabled()
    assert panel.distil() is None
    assert "model manager" in panel.job_label.text()


def test_too_few_held_out_choices_show_no_figure_and_the_base_stays(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 12)
    record_consistent_choices(app_context, ids, 25)
    job = panel.train(TrainOptions("mine", "builtin", learning_curve=True))
    wait_done(qtbot, job)
    assert job.state is JobState.FINISHED, job.error_text
    text = panel.agreement_label.text()
    assert "not enough held-out choices to measure: 5 of 20; about 15 more choices needed" in text
    assert "%" not in text and "CI" not in text  # no percentage, no interval
    assert panel.compare_button.isVisible()  # the next pairs, one click away
    with qtbot.waitSignal(panel.compare_requested):
        panel.compare_button.click()
    assert app_context.profile.adapters.active() is None
    assert panel.adapter_combo.currentText() != "mine"
    assert panel.activate_button.isVisible()
    with qtbot.waitSignal(app_context.signals.adapters_changed):
        panel.activate_button.click()
    assert app_context.profile.adapters.active().name == "mine"
    assert "It is active." in panel.agreement_label.text()
    assert not panel.activate_button.isVisible()


def test_an_adapter_measured_worse_shows_both_figures_and_stays_off(qtbot, panel, app_context, tmp_path) -> None:
    from tests.services.taste_choices import record_against_then_with_base

    add_images(app_context, tmp_path / "shoot", 12)
    record_against_then_with_base(app_context.profile, against=36, agreeing=24)
    job = panel.train(TrainOptions("turncoat", "builtin", learning_curve=False))
    wait_done(qtbot, job)
    assert job.state is JobState.FINISHED, job.error_text
    report = panel.last_report
    assert report.adapter.mean < report.base.mean and not report.active
    text = panel.agreement_label.text()
    assert f"<b>{report.adapter.mean:.0%}</b>" in text and f"<b>{report.base.mean:.0%}</b>" in text
    assert "measured worse than the base scorer" in text
    assert app_context.profile.adapters.active() is None
    assert panel.activate_button.isVisible()


def test_before_any_training_the_panel_says_how_many_more_choices_it_takes(qtbot, panel, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "shoot", 10)
    record_consistent_choices(app_context, ids, 23)
    app_context.signals.choices_changed.emit()
    assert panel.choices_label.text() == "23 choices recorded · about 17 more before agreement can be measured"
    assert panel.compare_button.isVisible()
    record_consistent_choices(app_context, ids, 45)  # 68 in all: enough to hold 20 out
    app_context.signals.choices_changed.emit()
    assert panel.choices_label.text() == "68 choices recorded" and not panel.compare_button.isVisible()
