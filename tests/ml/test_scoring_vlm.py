"""Single-pass VLM scoring: the rubric-first one-forward path equals plain forward passes of the same prompt."""

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
    np.testing.assert_allclose(cached, reference, atol=1e-4 if _tolerance(scorer.load()) < 1e-3 else 2e-2)
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


def _tolerance(loaded) -> float:
    """fp32 on the CPU agrees to rounding; bf16 on CUDA to its 8-bit mantissa."""
    return 1e-4 if loaded.model.dtype.is_floating_point and loaded.model.dtype.itemsize == 4 else 3e-2


def test_one_forward_reads_the_same_logits_as_plain_passes(
    scorer: VLMSinglePassScorer, photo_paths: list[str]
) -> None:
    """Every dimension's digit logits equal a plain forward of rubric, image, opening (masking is exact)."""
    import torch

    from aesthete_gui.ml.scoring_layout import RubricCache, rubric_first_text, run_batch
    from aesthete_gui.ml.scoring_vlm import prepare_scoring, score_token_ids

    loaded = scorer.load()
    images = [load_rgb(p, 1024) for p in photo_paths[3:6]]  # three sizes: padding in between
    prompt, prefixes = scorer.prompts.single_pass()
    ordered = [prefixes[d] for d in DIMENSIONS]
    digits = score_token_ids(loaded.processor.tokenizer)
    fast = run_batch(loaded, prepare_scoring(loaded, images, prompt.text, ordered), RubricCache())
    for row, image in enumerate(images):
        for column, opening in enumerate(ordered):
            text = rubric_first_text(loaded.processor, prompt.text, opening)
            inputs = loaded.processor(text=[text], images=[image], return_tensors="pt").to(loaded.model.device)
            inputs["pixel_values"] = inputs["pixel_values"].to(loaded.model.dtype)
            loaded.model.model.rope_deltas = None
            with torch.inference_mode():
                plain = loaded.model(**inputs).logits[0, -1, digits].float()
            got = fast[row, column, digits].float()
            assert torch.linalg.vector_norm(got - plain) <= _tolerance(loaded) * torch.linalg.vector_norm(plain)


def test_rubric_cache_is_computed_once(scorer: VLMSinglePassScorer, photo_paths: list[str]) -> None:
    images = [load_rgb(p, 1024) for p in photo_paths[:4]]
    scorer.score_images(images)
    first = scorer._rubric.layers(scorer.load(), scorer._rubric._key[1])
    scorer.score_images(images[:1])
    assert scorer._rubric.layers(scorer.load(), scorer._rubric._key[1]) is first
    assert first[0][0].shape[0] == 1  # one copy, shared by every row of every batch


def test_batch_size_is_chosen_when_not_given(loaded_tiny_vlms: dict, photo_paths: list[str]) -> None:
    loaded = loaded_tiny_vlms["qwen2.5-vl"]
    scorer = VLMSinglePassScorer(loaded.path, loaded=loaded)
    scores = scorer.score_images([load_rgb(p, 1024) for p in photo_paths[:2]])
    assert scorer.batch_size is not None and scorer.batch_size >= 1
    assert scores.shape == (2, 5)


def test_static_cache_generation_gives_the_same_replies(loaded_tiny_vlms: dict, photo_paths: list[str]) -> None:
    """The static-cache option changes how the cache is held, not the greedy reply (fp32, CPU)."""
    from aesthete_gui.ml.prompt_judge import ChatRequest
    from aesthete_gui.ml.vlm import LocalVLMJudge, generate_batch

    for loaded in loaded_tiny_vlms.values():
        prompt = LocalVLMJudge(loaded.path, loaded=loaded).prompts.pairwise()
        images = [load_rgb(p, 512) for p in photo_paths[:2]]
        batch = [(ChatRequest(("a", "b"), prompt), images), (ChatRequest(("b", "a"), prompt), images[::-1])]
        dynamic, _ = generate_batch(loaded, batch, 16)
        static, _ = generate_batch(loaded, batch, 16, static_cache=True)
        assert all(dynamic)
        if loaded.model.device.type == "cpu":
            assert static == dynamic
        else:  # compiled bf16 kernels may round differently late in a random model's reply
            tokenizer = loaded.processor.tokenizer
            assert [tokenizer(t)["input_ids"][:4] for t in static] == [tokenizer(t)["input_ids"][:4] for t in dynamic]
