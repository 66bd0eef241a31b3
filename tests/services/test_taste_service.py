"""Taste service on a real profile: choices, CSV import, training with held-out agreement, suggest, rank."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.services import taste
from aesthete_gui.store import Profile, events
from tests.services.taste_library import brightness_taste, build_profile


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("taste-template")
    build_profile(root)
    return root


def _simulate_choices(profile: Profile, count: int, seed: int = 0) -> None:
    utility = brightness_taste(profile)
    paths = sorted(utility)
    rng = np.random.default_rng(seed)
    for _ in range(count):
        a, b = rng.choice(len(paths), size=2, replace=False)
        winner = "a" if utility[paths[a]] > utility[paths[b]] else "b"
        taste.record_choice(profile, paths[a], paths[b], winner)


def test_record_choice_checks_images_winner_and_dimension(profile: Profile) -> None:
    paths = [r.path for r in profile.catalog.images()]
    choice_id = taste.record_choice(profile, paths[0], paths[1], "tie", "mood")
    assert profile.choices.all()[0].id == choice_id and profile.choices.all()[0].dimension == "mood"
    with pytest.raises(taste.TasteError, match="winner"):
        taste.record_choice(profile, paths[0], paths[1], "left")
    with pytest.raises(taste.TasteError, match="dimension"):
        taste.record_choice(profile, paths[0], paths[1], "a", "beauty")
    with pytest.raises(taste.TasteError, match="not in the profile"):
        taste.record_choice(profile, paths[0], "/nowhere/else.jpg", "a")
    with pytest.raises(taste.TasteError, match="two different"):
        taste.record_choice(profile, paths[0], paths[0], "a")
    assert len(profile.choices.all()) == 1


def test_csv_import_is_all_or_nothing_with_the_bad_line_named(profile: Profile, tmp_path: Path) -> None:
    paths = [r.path for r in profile.catalog.images()]
    good = tmp_path / "good.csv"
    good.write_text(f"a,b,winner,dimension\n{paths[0]},{paths[1]},a,\n{paths[2]},{paths[3]},tie,coloration\n")
    assert taste.import_choices_csv(profile, good) == 2
    assert [c.dimension for c in profile.choices.all()] == ["overall", "coloration"]
    bad_rows = {
        "winner": f"{paths[0]},{paths[1]},maybe",
        "unknown dimension": f"{paths[0]},{paths[1]},a,beauty",
        "not in the profile": f"{paths[0]},/missing.jpg,b",
        "same image": f"{paths[0]},{paths[0]},a",
    }
    for message, row in bad_rows.items():
        bad = tmp_path / "bad.csv"
        bad.write_text(f"a,b,winner,dimension\n{paths[4]},{paths[5]},b,\n{row}\n")
        with pytest.raises(taste.TasteError, match=f"line 3: .*{message}"):
            taste.import_choices_csv(profile, bad)
    assert len(profile.choices.all()) == 2  # nothing from the bad files
    headerless = tmp_path / "headerless.csv"
    headerless.write_text(f"{paths[0]},{paths[1]},a\n")
    with pytest.raises(taste.TasteError, match="line 1"):
        taste.import_choices_csv(profile, headerless)
    with pytest.raises(taste.TasteError, match="cannot read"):
        taste.import_choices_csv(profile, tmp_path / "absent.csv")


def test_training_reports_held_out_agreement_and_activates(profile: Profile) -> None:
    with pytest.raises(taste.TasteError, match="no choices"):
        taste.train_taste(profile)
    _simulate_choices(profile, 60)
    report = taste.train_taste(profile, "bright")
    assert report.held_out == 20 and report.train_choices == 40  # at least 20 held out
    assert report.base_scorer == "builtin"
    assert report.adapter is not None and report.base is not None
    assert report.adapter.low <= report.adapter.mean <= report.adapter.high
    assert report.adapter.mean >= 0.75 and report.adapter.mean >= report.base.mean
    assert report.active and profile.adapters.active().name == "bright"
    stored = profile.adapters.get("bright").metrics
    assert stored["adapter_agreement"]["mean"] == round(report.adapter.mean, 4)
    ranking = taste.rank_images(profile)
    scores = [item.score for item in ranking.images]
    assert scores == sorted(scores, reverse=True)
    assert ranking.adapter == "bright" and ranking.scorer == "builtin"
    taste_of = brightness_taste(profile)
    top, bottom = (profile.catalog.image_by_id(item.image_id).path for item in (ranking.images[0], ranking.images[-1]))
    assert taste_of[top] > taste_of[bottom]


def test_several_adapters_switch_and_fall_back_to_the_base(profile: Profile) -> None:
    _simulate_choices(profile, 12)
    seen: list[object] = []
    unsubscribe = profile.events.subscribe(seen.append)
    few = taste.train_taste(profile, "first")
    assert events.AdaptersChanged() in seen  # views learn of a new adapter from the profile itself
    assert few.adapter is None and few.base is None  # too few held out: not measured, not invented
    assert not few.active and profile.adapters.active() is None  # unmeasured: the base stays
    taste.train_taste(profile, "second")
    assert [a.name for a in taste.list_adapters(profile)] == ["first", "second"]
    taste.use_adapter(profile, "second")  # the user switches it on by hand
    assert profile.adapters.active().name == "second"
    taste.use_adapter(profile, "first")
    assert profile.adapters.active().name == "first"
    seen.clear()
    taste.use_adapter(profile, "none")
    unsubscribe()
    assert profile.adapters.active() is None and seen == [events.AdaptersChanged()]
    ranking = taste.rank_images(profile)
    assert all(item.score == item.base_score for item in ranking.images)
    assert ranking.adapter is None
    with pytest.raises(taste.TasteError, match="no adapter named"):
        taste.use_adapter(profile, "third")
    with pytest.raises(taste.TasteError, match="no adapter named"):
        taste.rank_images(profile, "third")


def test_suggestions_skip_judged_pairs_and_burst_mates(profile: Profile) -> None:
    _simulate_choices(profile, 10)
    records = profile.catalog.images()
    profile.catalog.set_burst([records[0].id, records[1].id])
    judged = {frozenset((c.image_a, c.image_b)) for c in profile.choices.all()}
    pairs = taste.suggest_next_pairs(profile, count=4)
    assert len(pairs) == 4
    for pair in pairs:
        assert frozenset((pair.a, pair.b)) not in judged
        assert frozenset((pair.a, pair.b)) != frozenset((records[0].id, records[1].id))
    taste.train_taste(profile)
    assert len(taste.suggest_next_pairs(profile, count=2)) == 2


def test_learning_curve_grows_on_the_held_out_later_choices(profile: Profile) -> None:
    _simulate_choices(profile, 10)
    with pytest.raises(taste.TasteError, match="not enough held-out choices to measure: 0 of 20"):
        taste.learning_curve(profile)
    _simulate_choices(profile, 50, seed=1)
    points, base = taste.learning_curve(profile)
    sizes = [n for n, _ in points]
    assert sizes == sorted(sizes) and sizes[0] == 5 and sizes[-1] == 40  # 60 choices, 20 held out
    assert base.low <= base.mean <= base.high
    assert points[-1][1].mean >= points[0][1].mean
    assert points[-1][1].mean >= 0.75
