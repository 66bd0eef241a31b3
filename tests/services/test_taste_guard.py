"""Taste that never makes things worse: group-aware time split, activation only when measured at
least as good as the base, personal scores on 1–5, and only comparable images suggested."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aesthete_gui.services import taste
from aesthete_gui.services.library_checks import checks_version
from aesthete_gui.services.taste_guard import (
    MIN_HELD_OUT_CHOICES,
    choice_groups,
    comparable_image_ids,
    split_by_time,
)
from aesthete_gui.store import ChoiceRecord, Profile
from aesthete_gui.training.personal_scale import onto_base_scale
from tests.services.taste_choices import (
    base_overall,
    record_against_then_with_base,
    record_set_verdict,
)
from tests.services.taste_library import brightness_taste, build_profile


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("taste-guard-template")
    build_profile(root)
    return root


def _choice(index: int, a: int, b: int, state: dict | None = None) -> ChoiceRecord:
    return ChoiceRecord(index, a, b, f"{a}.jpg", f"{b}.jpg", "a", "overall", float(index), None, state)


def test_split_holds_out_the_latest_whole_groups() -> None:
    verdict = {"view": "set", "order": [7, 8, 9], "best": 7, "worst": 9}
    choices = [_choice(i, i % 5, 5 + i % 7) for i in range(40)]
    choices += [_choice(40 + i, 7 + i % 2, 9, verdict) for i in range(3)]  # one Set verdict
    choices += [_choice(43, 1, 2)]
    groups = choice_groups(choices, {})
    assert len({groups[i] for i in (40, 41, 42)}) == 1
    split = split_by_time(groups)
    assert split.held_out == list(range(24, 44))  # latest 20, the verdict whole, then earlier ones
    assert split.train == list(range(24)) and split.measurable
    # A verdict straddling the boundary moves wholly to one side, never half and half.
    straddling = [_choice(i, i, i + 100) for i in range(22)] + [_choice(22 + i, 1, 2, verdict) for i in range(3)]
    straddling += [_choice(25 + i, i, i + 200) for i in range(18)]
    split = split_by_time(choice_groups(straddling, {}))
    assert {22, 23, 24} <= set(split.held_out) and len(split.held_out) == 21
    # ... and when the whole group would leave too few to train on, it stays in training whole.
    late_verdict = [_choice(i, i, i + 100) for i in range(19)] + [_choice(19 + i, 1, 2, verdict) for i in range(6)]
    split = split_by_time(choice_groups(late_verdict, {}))
    assert split.held_out == [] and len(split.train) == 25 and not split.measurable


def test_choices_within_a_burst_stay_together() -> None:
    burst_of = {1: 10, 2: 10, 3: 10}
    choices = [_choice(i, 20 + i, 40 + i) for i in range(30)]
    choices[5] = _choice(5, 1, 2)
    choices[29] = _choice(29, 2, 3)  # same burst as choice 5, made much later
    groups = choice_groups(choices, burst_of)
    assert groups[5] == groups[29]
    split = split_by_time(groups)
    assert {5, 29} <= set(split.held_out) or not {5, 29} & set(split.held_out)


def test_one_set_verdict_after_twenty_choices_gives_no_figure_and_no_activation(profile: Profile) -> None:
    """The reported case: 20 Compare choices, then one Set verdict on frames of one burst."""
    taste_of = brightness_taste(profile)
    records = sorted(profile.catalog.images(status="ok"), key=lambda r: r.path)
    rng = np.random.default_rng(3)
    others = records[4:]
    for _ in range(20):
        a, b = rng.choice(len(others), size=2, replace=False)
        better = taste_of[others[a].path] > taste_of[others[b].path]
        profile.choices.add(others[a].id, others[b].id, "a" if better else "b", session="compare")
    frames = [r.id for r in records[:4]]
    profile.catalog.set_burst(frames)
    record_set_verdict(profile, frames, best=frames[3], worst=frames[0])
    report = taste.train_taste(profile, "early")
    assert report.choices == 25 and report.held_out == 5  # exactly the verdict, kept together
    assert report.base is None and report.adapter is None and not report.active
    assert profile.adapters.active() is None
    stored = taste.list_adapters(profile)[0]
    assert stored.base is None and stored.adapter is None and not stored.measured
    assert stored.held_out == 5 and stored.active is False
    assert taste.not_enough_held_out(report.held_out) == (
        f"not enough held-out choices to measure: 5 of {MIN_HELD_OUT_CHOICES}")


def test_an_adapter_measured_worse_is_not_activated(profile: Profile) -> None:
    """The reported case: 36 choices against the base scorer, then 24 with it."""
    record_against_then_with_base(profile, against=36, agreeing=24)
    report = taste.train_taste(profile, "turncoat")
    assert report.held_out == 20
    assert report.base.mean == 1.0  # the held-out choices all agree with the base
    assert report.adapter.mean < report.base.mean
    assert not report.active and profile.adapters.active() is None
    listed = taste.list_adapters(profile)[0]
    assert listed.active is False and listed.held_out == 20
    assert listed.adapter.mean < listed.base.mean
    # Its ranking is stored all the same, so switching it on by hand shows it at once.
    assert len(profile.scores.of_scorer("taste:turncoat")) == profile.catalog.image_count(status="ok")
    taste.use_adapter(profile, "turncoat")
    assert taste.personal_scorer_id(profile) == "taste:turncoat"
    # Re-training the active adapter that still measures worse switches it off again.
    taste.train_taste(profile, "turncoat")
    assert profile.adapters.active() is None


def test_personal_scores_stay_on_the_base_scale(profile: Profile) -> None:
    taste_of = brightness_taste(profile)
    paths = sorted(taste_of)
    rng = np.random.default_rng(0)
    for _ in range(60):
        a, b = rng.choice(len(paths), size=2, replace=False)
        taste.record_choice(profile, paths[a], paths[b], "a" if taste_of[paths[a]] > taste_of[paths[b]] else "b")
    base = base_overall(profile)
    assert taste.store_personal_ranking(profile) == {}  # no adapter yet: nothing to store
    report = taste.train_taste(profile, "bright")
    assert report.active  # this user is learnable: measured better than the base
    ranked = taste.rank_images(profile).images
    scores = np.array([item.score for item in ranked])
    assert np.all((scores >= 1.0) & (scores <= 5.0))
    assert list(scores) == sorted(scores, reverse=True)
    assert np.allclose(np.sort(scores), np.sort(list(base.values())), atol=1e-4)  # the base's spread
    stored = profile.scores.of_scorer("taste:bright")
    assert all(1.0 <= values["overall"] <= 5.0 for values in stored.values())
    by_stored = sorted(stored, key=lambda image_id: -stored[image_id]["overall"])
    assert by_stored == [item.image_id for item in ranked]  # the grid sorts as the CLI ranks
    assert len(taste.store_personal_ranking(profile, "bright")) == len(ranked)  # idempotent: same values
    assert profile.scores.of_scorer("taste:bright") == stored


def test_base_scale_mapping_is_monotone_and_bounded() -> None:
    rng = np.random.default_rng(1)
    utility = rng.normal(0, 5, 200)
    base = np.round(rng.uniform(1, 5, 200), 1)  # many ties, both ends reached
    base[:3] = (1.0, 5.0, 5.0)
    mapped = onto_base_scale(utility, base)
    order = np.argsort(utility)
    assert np.all(np.diff(mapped[order]) > 0)  # strictly in the personal order, ties included
    assert mapped.min() >= 1.0 and mapped.max() <= 5.0
    assert np.allclose(np.sort(mapped), np.sort(base), atol=1e-5)
    flat = onto_base_scale(np.array([0.3, -1.0, 2.0]), np.full(3, 3.2))
    assert list(flat) == [3.0, 1.0, 5.0]


def test_suggestions_skip_rejects_and_images_too_small(profile: Profile, tmp_path: Path) -> None:
    from aesthete_gui.services.library import import_folders

    tiny_folder = tmp_path / "tiny"
    tiny_folder.mkdir()
    Image.new("RGB", (40, 30), (200, 120, 40)).save(tiny_folder / "tiny.jpg")
    import_folders(profile, [tiny_folder], features=True, workers=1, cache_dir=tmp_path / "thumbs")
    tiny = profile.catalog.image_by_path(str(tiny_folder / "tiny.jpg"))
    assert tiny is not None and tiny.status == "ok"
    records = [r for r in profile.catalog.images(status="ok") if r.id != tiny.id]
    rejected = {records[0].id, records[5].id}
    for image_id in rejected:
        profile.marks.set(image_id, flag="reject")
    comparable = comparable_image_ids(profile)
    assert tiny.id not in comparable and not rejected & set(comparable)
    assert rejected <= set(comparable_image_ids(profile, include_rejects=True))
    assert tiny.id not in comparable_image_ids(profile, include_rejects=True)
    excluded = rejected | {tiny.id}
    pairs = taste.suggest_next_pairs(profile, count=12)
    assert len(pairs) >= 8
    assert not excluded & {i for pair in pairs for i in (pair.a, pair.b)}
    with_rejects = taste.suggest_next_pairs(profile, count=12, include_rejects=True)
    offered = {i for pair in with_rejects for i in (pair.a, pair.b)}
    assert tiny.id not in offered

    blurred = records[2].id  # a technical reject verdict makes a suggested reject: not offered either
    profile.checks.put_many([(blurred, checks_version(), [{"name": "focus", "verdict": "reject"}], [], "reject")])
    profile.checks.restore_suggestions([blurred])  # the library's builder dismissed its suggestions
    assert blurred in profile.checks.suggested_rejects()
    assert blurred not in comparable_image_ids(profile)
    assert blurred in comparable_image_ids(profile, include_rejects=True)


def test_how_many_more_choices_it_takes_to_measure() -> None:
    from aesthete_gui.services.taste_guard import choices_still_needed, too_few_to_measure

    assert choices_still_needed(36, 16) == 4  # 20 to train on and 20 held out
    assert choices_still_needed(25, 5) == 15
    assert choices_still_needed(45, 18) == 2  # a whole burst did not fit: at least the shortfall
    assert choices_still_needed(100, 20) == 0
    assert too_few_to_measure(39, 19).endswith("19 of 20; about 1 more choice needed")
