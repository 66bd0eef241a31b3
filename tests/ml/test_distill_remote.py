"""Distillation against a failing judge server on 127.0.0.1: no judgment, no score, and a resume that works."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.evidence import MIN_PARSED_COMPARISONS_PER_IMAGE, MIN_PARSED_FRACTION
from aesthete_gui.engine.judgments import PairwiseJudgment
from aesthete_gui.ml.remote import RemoteJudge
from aesthete_gui.services import distill
from aesthete_gui.store import Profile, open_profile
from tests.ml.chat_server import Action, ChatServer, prompt_text, protocol_reply, well_behaved
from tests.services.scripted_judge import ScriptedJudge
from tests.services.taste_library import write_photos

OPTIONS = distill.DistillOptions(pool=5, refs=3, batch_size=4, student=None)
PLANNED = 10 + 3 * 3  # C(5, 2) pool pairs + 3 references for each of the 3 other images


@pytest.fixture
def profile(tmp_path: Path) -> Iterator[Profile]:
    opened = open_profile(tmp_path / "p.db")
    for path in write_photos(tmp_path / "photos", count=8):
        opened.catalog.ensure_image(str(path))
    yield opened
    opened.close()


def remote(server: ChatServer) -> RemoteJudge:
    return RemoteJudge(server.base_url, "m", backoff_s=0.0, max_retries=1, timeout_s=5.0)


def garbage(body: dict, call: int) -> Action:
    return Action("I would rather not say which one is better.")


def half_garbage(body: dict, call: int) -> Action:
    return Action(protocol_reply(prompt_text(body)) if call % 2 == 0 else "no idea")


def assert_nothing_invented(profile: Profile) -> None:
    assert [s for s in profile.scores.scorers() if s.startswith("bridge:")] == []
    assert not list((Path(str(profile.path)).parent).glob("**/*.safetensors"))


def test_a_server_answering_500_to_everything_stores_no_score(profile: Profile) -> None:
    down = ChatServer(lambda body, call: Action("down", status=500))
    with down as server, pytest.raises(distill.DistillFailed, match="no answer") as caught:
        distill.distill_profile(profile, remote(server), distill.DistillOptions(pool=5, refs=3, batch_size=4))
    assert_nothing_invented(profile)
    run = profile.runs.all("distill")[-1]
    assert run.status == "failed"
    assert run.result["parsed"] == 0 and run.result["failed"] >= 8
    assert caught.value.summary["failed"] == run.result["failed"]
    assert profile.judgments.records() == []  # calls without an answer are asked again, not stored


def test_a_server_answering_garbage_stores_judgments_but_no_score_and_resume_recovers(profile: Profile) -> None:
    with ChatServer(garbage) as server, pytest.raises(distill.DistillFailed, match="no judgment parsed"):
        distill.distill_profile(profile, remote(server), OPTIONS)
    assert_nothing_invented(profile)
    [run] = profile.runs.all("distill")
    assert run.status == "failed"
    assert run.result["asked"] == PLANNED and run.result["unparsed"] == PLANNED and run.result["parsed"] == 0
    kept = profile.judgments.records(run_id=run.id)
    assert len(kept) == PLANNED and not any(j.parsed for j in kept)
    assert all("rather not say" in j.raw for j in kept)  # raw text kept, nothing invented

    with ChatServer(well_behaved) as server:
        summary = distill.distill_profile(profile, remote(server), OPTIONS)
    assert summary.run_id == run.id and profile.runs.get(run.id).status == "done"
    assert summary.parsed == PLANNED and summary.calls_made == PLANNED  # the unparsed ones asked again
    assert summary.unscored == () and summary.scored == 8
    assert len(profile.scores.of_scorer("bridge:remote:m")) == 8
    assert len(profile.judgments.records(run_id=run.id)) == 2 * PLANNED  # the unparsed replies stay on record


def test_half_garbage_is_below_the_minimum_and_a_resume_reuses_what_parsed(profile: Profile) -> None:
    with ChatServer(half_garbage) as server, pytest.raises(distill.DistillFailed) as caught:
        distill.distill_profile(profile, remote(server), OPTIONS)
    summary = caught.value.summary
    assert 0 < summary["parsed"] < MIN_PARSED_FRACTION * summary["asked"]
    assert f"at least {MIN_PARSED_FRACTION:.0%}" in str(caught.value)
    assert_nothing_invented(profile)
    parsed = [j for j in profile.judgments.records() if j.parsed]
    assert len(parsed) == summary["parsed"]

    with ChatServer(well_behaved) as server:
        resumed = distill.distill_profile(profile, remote(server), OPTIONS)
        asked_again = len(server.requests)
    assert resumed.calls_reused == len(parsed)
    assert resumed.calls_made == asked_again == PLANNED - len(parsed)
    assert len(profile.scores.of_scorer("bridge:remote:m")) == 8


class SilentOnOneImage(ScriptedJudge):
    """Answers every pair but those with `mute`, whose replies do not parse."""

    def __init__(self, truth: dict[str, float], mute: str) -> None:
        super().__init__(truth)
        self.mute = mute

    def judge_pairs(self, pairs, progress=None, cancel=None):
        answers = super().judge_pairs(pairs, progress, cancel)
        return [
            PairwiseJudgment(a.first, a.second, parsed=False, raw="?", judge_id=self.judge_id) if self.mute in (a.first, a.second) else a
            for a in answers
        ]


def test_an_image_below_the_minimum_of_comparisons_is_listed_unscored_not_given_a_prior(profile: Profile) -> None:
    from aesthete_gui.engine.bridge import BridgeConfig, run_bridge

    paths = [r.path for r in sorted(profile.catalog.images(), key=lambda r: r.id)]
    truth = {path: float(i) for i, path in enumerate(paths)}
    options = distill.DistillOptions(pool=4, refs=4, student=None)
    pool = run_bridge(paths, ScriptedJudge(truth), BridgeConfig(pool_size=4, references_per_item=4)).pool
    muted = next(p for p in paths if p not in pool)  # all 4 of its comparisons will not parse
    summary = distill.distill_profile(profile, SilentOnOneImage(truth, muted), options)
    assert profile.runs.get(summary.run_id).status == "done"
    assert summary.scored == 7
    [entry] = summary.unscored
    assert entry.image_id == profile.catalog.image_by_path(muted).id
    assert entry.parsed_comparisons == dict.fromkeys(DIMENSIONS, 0)
    assert entry.needs == MIN_PARSED_COMPARISONS_PER_IMAGE
    stored = profile.scores.of_scorer("bridge:scripted")
    assert profile.catalog.image_by_path(muted).id not in stored and len(stored) == 7


def test_settings_under_which_no_image_could_reach_the_minimum_are_refused(profile: Profile) -> None:
    with pytest.raises(distill.DistillError, match="at least 3; got 2"):
        distill.distill_profile(profile, ScriptedJudge({}), distill.DistillOptions(pool=4, refs=2))
    with pytest.raises(distill.DistillError, match="pool must hold at least 4"):
        distill.distill_profile(profile, ScriptedJudge({}), distill.DistillOptions(pool=3, refs=3))
    assert profile.runs.all("distill") == []
