"""Scoring service: built-in scores stored, cached properties and embeddings, students by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.services import scoring
from aesthete_gui.store import Profile
from aesthete_gui.training.distill import StudentConfig, train_student
from tests.services.taste_library import build_profile


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scoring-template")
    build_profile(root, count=12)
    return root


def test_builtin_scores_every_readable_image_and_stores_them(profile: Profile) -> None:
    broken = Path(profile.catalog.images()[0].path).parent / "zz_broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff not really")
    profile.catalog.ensure_image(str(broken))
    scorer_id, scores = scoring.score_library(profile, "builtin")
    assert scorer_id == "builtin"
    assert len(scores) == 12  # the undecodable file is skipped, not scored
    stored = profile.scores.of_scorer("builtin")
    assert set(stored) == set(scores)
    assert all(set(v) == set(DIMENSIONS) and all(1 <= x <= 5 for x in v.values()) for v in stored.values())
    broken.unlink()


def test_scoring_a_selection_stores_only_those_images_with_the_preset(profile: Profile) -> None:
    chosen = [r.id for r in profile.catalog.images(status="ok")[:3]]
    _, scores = scoring.score_library(profile, "builtin", image_ids=chosen, preset="photography")
    assert set(scores) == set(chosen)
    assert set(profile.scores.of_scorer("builtin")) == set(chosen)
    assert profile.scores.provenance(chosen[0], "builtin")["preset"] == "photography"
    _, everything = scoring.score_library(profile, "builtin")
    assert set(chosen) < set(everything)
    assert everything[chosen[0]] == scores[chosen[0]]


def test_embeddings_are_cached_in_the_model_folder(profile: Profile) -> None:
    images = profile.catalog.images(status="ok")
    first, encoder_id = scoring.ensure_embeddings(profile, images)
    cache = scoring.profile_models_dir(profile) / "embeddings-builtin.npz"
    assert cache.is_file()
    stamp = cache.stat().st_mtime_ns
    again, same_id = scoring.ensure_embeddings(profile, images)
    assert np.array_equal(first, again) and encoder_id == same_id == "builtin:efficientnet-lite0"
    assert cache.stat().st_mtime_ns == stamp  # nothing recomputed
    assert first.shape == (12, 1280) and np.all(np.isfinite(first))


def test_students_are_scorers_by_name_and_unknown_names_fail_clearly(profile: Profile) -> None:
    arrays = scoring.library_arrays(profile)
    pseudo = np.tile(np.linspace(1.5, 4.5, len(arrays.images))[:, None], (1, 5))
    train_student("mine", arrays.embeddings, arrays.feature_names, arrays.features, pseudo, scoring.profile_models_dir(profile), config=StudentConfig(epochs=30))
    assert scoring.available_scorers(profile) == ["builtin", "student:mine"]
    assert scoring.default_scorer(profile) == "student:mine"
    scorer_id, scores = scoring.score_library(profile)
    assert scorer_id == "student:mine" and len(scores) == 12
    paths = [r.path for r in arrays.images[:2]] + ["/no/such/file.jpg"]
    by_path = scoring.load_array_scorer(profile, "mine").score_paths(paths)
    assert by_path[2] == {}
    assert by_path[0] == pytest.approx(scores[arrays.images[0].id], abs=1e-3)
    with pytest.raises(scoring.ScorerNotFoundError, match="available: builtin, student:mine"):
        scoring.load_array_scorer(profile, "student:other")


def test_import_and_ensure_features_measure_a_large_jpeg_the_same(profile: Profile, tmp_path: Path) -> None:
    from PIL import Image

    from aesthete_gui.imaging.features import FEATURE_NAMES, FEATURE_VERSION, as_vector
    from aesthete_gui.imaging.ingest import ingest_file

    rng = np.random.default_rng(5)
    ramp = np.linspace(0, 200, 4000, dtype=np.float32)[None, :, None]
    pixels = np.clip(ramp + rng.normal(0, 12, (3000, 4000, 3)), 0, 255).astype(np.uint8)
    large = tmp_path / "large.jpg"
    Image.fromarray(pixels).save(large, quality=92)
    imported = ingest_file(large, tmp_path / "cache", with_features=True)
    assert imported.features is not None
    record = profile.catalog.image_by_id(profile.catalog.ensure_image(str(large)))
    assert record is not None
    profile.catalog.put_features_many([(record.id, list(FEATURE_NAMES), np.zeros(len(FEATURE_NAMES)), "old")])
    kept, names, matrix = scoring.ensure_features(profile, [record])
    assert [r.id for r in kept] == [record.id] and names == list(FEATURE_NAMES)
    assert np.allclose(matrix[0], as_vector(imported.features), rtol=1e-6, atol=1e-6)
    assert imported.features["image_megapixels"] == pytest.approx(12.0)
    assert record.id in profile.catalog.feature_image_ids(FEATURE_VERSION)


def test_base_scores_of_an_older_scorer_version_are_scored_again(profile: Profile) -> None:
    scoring.score_library(profile, "builtin")
    ids = sorted(profile.scores.of_scorer("builtin"))
    stale = {image_id: dict.fromkeys(DIMENSIONS, 5.0) for image_id in ids}
    profile.scores.put_many("builtin", stale.items(), scorer_version="rules-2")  # an older release's rules
    arrays = scoring.library_arrays(profile, with_embeddings=False)
    base = scoring.base_scores_for(profile, arrays, "builtin")
    assert not np.allclose(base, 5.0)
    assert set(profile.scores.scorer_versions("builtin").values()) == {scoring.load_array_scorer(profile, "builtin").version}
