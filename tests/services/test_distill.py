"""Distillation service: pseudo-scores from a judge, stored judgments, resume without repeated calls, student."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.engine.metrics import srcc
from aesthete_gui.jobs import Cancelled, CancelToken, Progress
from aesthete_gui.services import distill, scoring
from aesthete_gui.store import Profile, open_profile
from tests.services.scripted_judge import ScriptedJudge
from tests.services.taste_library import brightness_taste, build_profile


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("distill-template")
    build_profile(root, count=16)
    return root


def test_distillation_stores_judgments_and_calibrated_scores_and_trains_a_student(profile: Profile) -> None:
    truth = brightness_taste(profile)
    judge = ScriptedJudge(truth)
    reports: list[Progress] = []
    summary = distill.distill_profile(profile, judge, distill.DistillOptions(pool=6, refs=3, student="bright"), progress=reports.append)
    assert summary.calls_planned == 15 + 10 * 3
    assert summary.calls_made == len(judge.asked) == summary.calls_planned
    assert len(profile.judgments.records(run_id=summary.run_id)) == summary.calls_made
    scores = profile.scores.of_scorer("bridge:scripted")
    paths = {r.id: r.path for r in profile.catalog.images()}
    assert len(scores) == 16
    overall = [scores[i]["overall"] for i in scores]
    assert min(overall) >= 1 and max(overall) <= 5
    assert srcc(overall, [truth[paths[i]] for i in scores]) > 0.8
    assert any("calls done" in r.message and "left" in r.message for r in reports)
    assert any("min" in r.message for r in reports)  # an ETA once calls were timed
    assert summary.student is not None and summary.student.scorer_id == "student:bright"
    assert "student:bright" in scoring.available_scorers(profile)
    assert profile.runs.get(summary.run_id).status == "done"
    any_image = next(iter(scores))
    provenance = profile.scores.provenance(any_image, "bridge:scripted")
    assert provenance is not None and provenance["preset"] == "photography" and provenance["preset_version"]


def test_a_stopped_run_resumes_without_repeating_any_call(profile: Profile) -> None:
    truth = brightness_taste(profile)
    token = CancelToken()
    first = ScriptedJudge(truth, after_each=lambda n: token.cancel() if n == 20 else None)
    options = distill.DistillOptions(pool=6, refs=3, batch_size=4, student=None)
    with pytest.raises(Cancelled):
        distill.distill_profile(profile, first, options, cancel=token)
    kept = profile.judgments.records()
    # every batch that returned was kept; only the batch in flight when it stopped is lost
    assert 20 - options.batch_size <= len(kept) <= 20
    assert profile.runs.all("distill")[-1].status == "cancelled"
    second = ScriptedJudge(truth)
    summary = distill.distill_profile(profile, second, options)
    assert summary.calls_reused == len(kept)
    assert summary.calls_made == len(second.asked) == 45 - len(kept)
    asked_twice = {frozenset((j.first, j.second)) for j in kept} & {frozenset(p) for p in second.asked}
    assert asked_twice == set()
    assert len(profile.runs.all("distill")) == 1  # the same run resumed
    again = ScriptedJudge(truth)
    rerun = distill.distill_profile(profile, again, options)
    assert rerun.run_id != summary.run_id  # a finished run is not reused silently


def test_bad_setups_are_clear_errors(tmp_path: Path) -> None:
    empty = open_profile(tmp_path / "empty.db")
    with pytest.raises(distill.DistillError, match="at least 4 readable images"):
        distill.distill_profile(empty, ScriptedJudge({}))
    with pytest.raises(distill.DistillError, match="--model"):
        distill.make_judge(None, "http://localhost:9/v1", None, "photography")
    with pytest.raises(distill.DistillError, match="no judge"):
        distill.make_judge(None, None, None, "photography")
    empty.close()
