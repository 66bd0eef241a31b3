"""The scorer registry: every kind of scorer listed, scoring with any of them, one writer that
announces what it stored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.engine.scorers import ScorerKind
from aesthete_gui.services import scorer_registry, scoring, taste
from aesthete_gui.store import Profile, events
from tests.services.taste_library import brightness_taste, build_profile


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("registry-template")
    build_profile(root, count=16)
    return root


def _choose_bright(profile: Profile, count: int) -> None:
    utility = brightness_taste(profile)
    paths = sorted(utility)
    rng = np.random.default_rng(1)
    for _ in range(count):
        a, b = rng.choice(len(paths), size=2, replace=False)
        taste.record_choice(profile, paths[a], paths[b], "a" if utility[paths[a]] > utility[paths[b]] else "b")


def test_every_kind_registers_and_bridge_scores_are_stored_only(profile: Profile) -> None:
    image_id = profile.catalog.images(status="ok")[0].id
    scoring.write_scores(profile, "bridge:judge-x", [(image_id, {"overall": 3.0})], scorer_version="run-1")
    profile.adapters.save("evening", "builtin", b"weights", {})
    entries = {e.scorer_id: e for e in scorer_registry.registered_scorers(profile, ["Org/Some-VLM"])}
    assert list(entries) == ["builtin", "taste:evening", "vlm-single-pass:Org/Some-VLM", "bridge:judge-x"]
    assert not entries["builtin"].runs_model and entries["vlm-single-pass:Org/Some-VLM"].runs_model
    assert entries["bridge:judge-x"].kind is ScorerKind.BRIDGE and not entries["bridge:judge-x"].can_score
    with pytest.raises(scorer_registry.ScorerNotFoundError, match="distillation"):
        scorer_registry.score_with(profile, "bridge:judge-x")


def test_the_single_writer_announces_what_it_stored(profile: Profile) -> None:
    seen: list[object] = []
    unsubscribe = profile.events.subscribe(seen.append)
    chosen = [r.id for r in profile.catalog.images(status="ok")[:3]]
    result = scorer_registry.score_with(profile, "builtin", chosen, preset="photography")
    unsubscribe()
    scorer_registry.score_with(profile, "builtin", chosen)  # no longer subscribed
    assert isinstance(result, scorer_registry.ScoreResult) and set(result.scores) == set(chosen)
    assert seen == [events.ScoresChanged("builtin", tuple(sorted(chosen)))]


def test_personal_ranking_is_stored_through_the_registry(profile: Profile) -> None:
    _choose_bright(profile, 40)
    report = taste.train_taste(profile, name="bright", base_scorer="builtin")
    assert report is not None
    result = scorer_registry.score_with(profile, "taste:bright")
    stored = profile.scores.of_scorer("taste:bright")
    assert result.scorer_id == "taste:bright" and stored.keys() == result.scores.keys()
    assert len(stored) == 16
    ranked = taste.rank_images(profile, adapter_name="bright").images
    best = ranked[0].image_id
    assert stored[best]["overall"] == max(v["overall"] for v in stored.values())


def test_a_vision_language_model_scores_through_the_registry(profile: Profile, tmp_path: Path) -> None:
    from tests.fixtures.tiny_models import build_tiny_qwen25_vl

    model = build_tiny_qwen25_vl(tmp_path / "tiny-vlm")
    scorer = scorer_registry.vlm_scorer_id(str(model))
    assert scorer in {e.scorer_id for e in scorer_registry.registered_scorers(profile, [str(model)])}
    chosen = [r.id for r in profile.catalog.images(status="ok")[:2]]
    result = scorer_registry.score_with(profile, scorer, chosen, vlm_model=str(model), vlm_options={"batch_size": 2})
    assert result.scorer_id == scorer == "vlm-single-pass:tiny-vlm"
    stored = profile.scores.of_scorer(scorer)
    assert set(stored) == set(chosen)
    assert all(1.0 <= v <= 5.0 for scores in stored.values() for v in scores.values())
