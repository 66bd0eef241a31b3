"""Single-pass VLM scoring: the cached five-way continuation equals plain forward passes; batching is exact."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.prompts import PromptBook
from aesthete_gui.jobs import Cancelled, CancelToken, Progress
from aesthete_gui.ml.images import load_rgb
from aesthete_gui.ml.registry import Scorer
from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer, score_batch_uncached


@pytest.fixture(params=["qwen2.5-vl", "qwen3-vl"])
def scorer(request: pytest.FixtureRequest, loaded_tiny_vlms: dict) -> VLMSinglePassScorer:
    loaded = loaded_tiny_vlms[request.param]
    brief = PromptBook.for_preset("photography", rubric_levels=False)
    return VLMSinglePassScorer(loaded.path, loaded=loaded, batch_size=3, prompts=brief)


def test_cached_prefix_matches_plain_forward_passes(scorer: VLMSinglePassScorer, photo_paths: list[str]) -> None:
    images = [load_rgb(p, 1024) for p in photo_paths[:2]]
    cached = scorer.score_images(images)
    prompt, prefixes = scorer.prompts.single_pass()
    loaded = scorer.load()
    reference = np.array(
        [[score_batch_uncached(loaded, image, prompt.text, prefixes[d]) for d in DIMENSIONS] for image in images]
    )
    np.testing.assert_allclose(cached, reference, atol=1e-4)
    assert cached.shape == (2, 5)
    assert np.all((cached >= 1.0) & (cached <= 5.0))


def test_batches_of_mixed_sizes_give_the_same_scores(scorer: VLMSinglePassScorer, photo_paths: list[str]) -> None:
    images = [load_rgb(p, 1024) for p in photo_paths[:4]]
    together = scorer.score_images(images)  # batches of 3 and 1
    one_by_one = np.concatenate([scorer.score_images([image]) for image in images])
    np.testing.assert_allclose(together, one_by_one, atol=1e-4)


def test_score_paths_is_a_scorer_with_progress_and_bad_files(
    scorer: VLMSinglePassScorer, photo_paths: list[str], tmp_path: Path
) -> None:
    assert isinstance(scorer, Scorer)
    assert scorer.scorer_id.startswith("vlm-single-pass:")
    broken = tmp_path / "zero.jpg"
    broken.write_bytes(b"")
    paths = [photo_paths[0], str(broken), photo_paths[1], photo_paths[2]]
    seen: list[Progress] = []
    results = scorer.score_paths(paths, progress=seen.append)
    assert results[1] == {}
    assert set(results[0]) == set(DIMENSIONS)
    assert [p.done for p in seen] == [3, 4]
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        scorer.score_paths(paths, cancel=token)
