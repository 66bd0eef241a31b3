"""Set view: stages stream in one by one, the verdict is shown, accept/override become choices."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from aesthete_gui.engine.prompts import PromptBook
from aesthete_gui.ml.prompt_judge import ChatRequest, PromptJudge, Reply
from aesthete_gui.qt.task_runner import JobState
from aesthete_gui.qt.widgets.set_view import SetView, choices_from_verdict
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import write_test_images


class ScriptedJudge(PromptJudge):
    """The real prompt/vote/stage machinery over scripted replies (the model is the edge).

    It always calls `best` the best and `worst` the worst, in whatever order the set is shown.
    The critic stage waits for `release` so a test can look at the screen between stages.
    """

    judge_id = "scripted"

    def __init__(self, best: str, worst: str, on_stage, release: threading.Event) -> None:
        super().__init__(PromptBook.for_preset("photography"), set_orderings=3, on_stage=on_stage)
        self.best, self.worst, self.release = best, worst, release

    def _complete(self, requests: Sequence[ChatRequest], advance, cancel) -> list[Reply]:
        replies = []
        for request in requests:
            protocol = request.prompt.protocol
            if protocol == "critic":
                assert self.release.wait(30), "test never released the critic stage"
            if protocol == "analyser":
                text = ("Image 1 has crisp focus on the eyes; one image is somewhat soft and "
                        "feels flat, with clipped highlights on the left.")
            elif protocol == "critic":
                text = "The analysis is right about the clipping; the soft frame also has motion blur."
            else:
                best = request.images.index(self.best) + 1
                worst = request.images.index(self.worst) + 1
                text = (f'<answer>{{"best": {best}, "worst": {worst}, '
                        f'"technique": {{"best": {worst}, "worst": {best}}}}}</answer>')
            replies.append(Reply(text))
            advance(1)
        return replies


def add_images(context, folder: Path, count: int) -> list[int]:
    paths = write_test_images(folder, count, size=(160, 120))
    return context.profile.catalog.write_images(
        [ImageUpdate(path=str(p), folder_id=None, status="ok") for p in paths])


@pytest.fixture
def images(app_context, tmp_path) -> list[int]:
    return add_images(app_context, tmp_path / "set", 4)


def make_view(qtbot, context, factory=None) -> SetView:
    view = SetView(context) if factory is None else SetView(context, judge_factory=factory)
    qtbot.addWidget(view)
    view.resize(1200, 760)
    view.show()
    return view


def test_verdict_and_stages_stream_in_then_override_is_stored(qtbot, app_context, images) -> None:
    app_context.settings["judge"] = "scripted-judge-folder"
    paths = [app_context.profile.catalog.image_by_id(i).path for i in images]
    release = threading.Event()
    view = make_view(qtbot, app_context,
                     lambda settings, sink: ScriptedJudge(paths[2], paths[0], sink, release))
    app_context.selection.set_image_ids(images)
    view.use_selection_button.click()
    assert view.image_ids() == images
    assert not view.model_banner.isVisible()
    job = view.run_judge()
    # Stage 1 is on screen while stage 2 is still being written.
    qtbot.waitUntil(lambda: "crisp focus" in view.stage_panes[0].toPlainText(), timeout=30000)
    assert view.stage_panes[1].toPlainText() == ""
    release.set()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert job.state is JobState.FINISHED, job.error_text
    assert "motion blur" in view.stage_panes[1].toPlainText()
    assert '"best"' in view.stage_panes[2].toPlainText()
    verdict = view.verdict_label.text()
    assert f"best {Path(paths[2]).name}" in verdict and f"worst {Path(paths[0]).name}" in verdict
    assert "3 of 3 orderings" in verdict
    assert f"technique: {Path(paths[0]).name} / {Path(paths[2]).name}" in verdict
    assert "somewhat" in verdict  # the hedge word is named in the subjectivity line
    assert view.user_pick() == (images[2], images[0])
    stored = app_context.profile.judgments.records(protocol="set")
    assert len(stored) == 1 and stored[0].best == paths[2]

    # The user disagrees: image 4 is the best, image 2 the worst.
    view.pick(best=images[3], worst=images[1])
    view.record_button.click()
    choices = app_context.profile.choices.all()
    assert len(choices) == 5  # best beats 3 others, 2 others beat the worst
    assert all(c.app_state["source"] == "override" for c in choices)
    wins = {(c.winner_id, c.image_a if c.winner_id == c.image_b else c.image_b) for c in choices}
    assert {(images[3], other) for other in images if other != images[3]} <= wins
    assert (images[0], images[1]) in wins and (images[2], images[1]) in wins
    # Order on screen kept: image_a is always the one shown first.
    assert all(images.index(c.image_a) < images.index(c.image_b) for c in choices)


def test_accepting_the_verdict_stores_it_as_choices(qtbot, app_context, images) -> None:
    app_context.settings["judge"] = "scripted-judge-folder"
    paths = [app_context.profile.catalog.image_by_id(i).path for i in images[:3]]
    release = threading.Event()
    release.set()
    view = make_view(qtbot, app_context,
                     lambda settings, sink: ScriptedJudge(paths[0], paths[1], sink, release))
    view.set_images(images[:3])
    job = view.run_judge()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert view.accept_button.isEnabled()
    with qtbot.waitSignal(app_context.signals.choices_changed):
        view.accept_button.click()
    choices = app_context.profile.choices.all()
    assert {(c.image_a, c.image_b, c.winner) for c in choices} == {
        (images[0], images[1], "a"), (images[0], images[2], "a"), (images[1], images[2], "b")}
    assert all(c.app_state["source"] == "accepted" for c in choices)
    view.undo()
    assert app_context.profile.choices.all() == []


def test_without_a_model_the_user_still_records_best_and_worst(qtbot, app_context, images) -> None:
    view = make_view(qtbot, app_context)
    assert view.model_banner.isVisible()
    view.set_images(images)
    assert not view.judge_button.isEnabled()
    assert view.run_judge() is None
    assert not view.record_button.isEnabled()
    view._cards[1].best_button.click()
    view._cards[3].worst_button.click()
    assert view.record_button.isEnabled()
    view.record_button.click()
    choices = app_context.profile.choices.all()
    assert len(choices) == 5
    assert all(c.app_state["source"] == "own" for c in choices)
    app_context.set_setting("judge", "some/model")
    assert not view.model_banner.isVisible()


def test_a_set_must_have_two_to_eight_images(qtbot, app_context, tmp_path) -> None:
    ids = add_images(app_context, tmp_path / "many", 9)
    view = make_view(qtbot, app_context)
    assert not view.set_images(ids[:1])
    assert "2 to 8" in view.status_label.text()
    assert not view.set_images(ids)
    assert view.set_images(ids[:8])
    assert len(view.image_ids()) == 8


def test_a_tiny_real_model_gives_an_unreadable_reply_that_is_kept_raw(qtbot, app_context, images, tmp_path) -> None:
    from aesthete_gui.ml.vlm import LocalVLMJudge
    from tests.fixtures.tiny_models import build_tiny_qwen25_vl

    folder = build_tiny_qwen25_vl(tmp_path / "tiny")
    app_context.settings["judge"] = str(folder)

    def factory(settings, sink):
        return LocalVLMJudge(settings["judge"], set_orderings=2, on_stage=sink, max_new_tokens=12)

    view = make_view(qtbot, app_context, factory)
    view.set_images(images[:2])
    job = view.run_judge()
    qtbot.waitUntil(lambda: job.done, timeout=120000)
    assert job.state is JobState.FINISHED, job.error_text
    assert "could not be read" in view.verdict_label.text()
    assert not view.accept_button.isEnabled()
    [stored] = app_context.profile.judgments.records(protocol="set")
    assert stored.parsed is False and stored.raw


def test_cancelling_the_judge_keeps_the_profile_unchanged(qtbot, app_context, images) -> None:
    app_context.settings["judge"] = "scripted-judge-folder"
    paths = [app_context.profile.catalog.image_by_id(i).path for i in images]
    release = threading.Event()
    view = make_view(qtbot, app_context,
                     lambda settings, sink: ScriptedJudge(paths[0], paths[1], sink, release))
    view.set_images(images)
    job = view.run_judge()
    qtbot.waitUntil(lambda: view.stage_panes[0].toPlainText() != "", timeout=30000)
    view.cancel_button.click()
    release.set()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert job.state is JobState.CANCELLED
    assert "cancelled" in view.verdict_label.text()
    assert app_context.profile.judgments.records() == []
    assert app_context.profile.choices.all() == []


def test_choices_from_verdict_keeps_screen_order() -> None:
    assert choices_from_verdict([5, 6, 7], best=7, worst=5) == [(5, 7, "b"), (6, 7, "b"), (5, 6, "b")]
    with pytest.raises(ValueError, match="different"):
        choices_from_verdict([1, 2], best=1, worst=1)
    with pytest.raises(ValueError, match="in the set"):
        choices_from_verdict([1, 2], best=1, worst=3)


def test_a_burst_can_be_used_as_the_set(qtbot, app_context, images) -> None:
    burst_id = app_context.profile.catalog.set_burst(images[:3])
    view = make_view(qtbot, app_context)
    app_context.signals.library_changed.emit()
    index = view.burst_combo.findData(burst_id)
    assert index > 0 and "3 frames" in view.burst_combo.itemText(index)
    view.burst_combo.activated.emit(index)
    assert view.image_ids() == images[:3]
    assert not view.use_burst(burst_id + 100)
    assert "no longer exists" in view.status_label.text()


def test_a_judge_that_cannot_load_is_reported_and_nothing_is_stored(qtbot, app_context, images, tmp_path) -> None:
    app_context.settings["judge"] = str(tmp_path / "no-such-model")
    view = make_view(qtbot, app_context)  # the real factory: services.compare.open_judge
    view.set_images(images[:2])
    job = view.run_judge()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    assert job.state is JobState.FAILED
    assert "The judge failed" in view.verdict_label.text()
    assert "no-such-model" in view.verdict_label.text()
    assert app_context.profile.judgments.records() == []
    assert view.judge_button.isEnabled()  # the user can fix the settings and try again
