"""CUDA-only checks (`pytest -m gpu` on a machine with a GPU): bf16 layouts and compiled generation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.ml.images import load_rgb
from aesthete_gui.ml.prompt_judge import ChatRequest
from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer, score_batch_uncached
from aesthete_gui.ml.vlm import LocalVLMJudge, generate_batch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (select with -m gpu there)"),
]


def test_tiny_vlms_load_in_bf16_on_cuda(loaded_tiny_vlms: dict) -> None:
    for loaded in loaded_tiny_vlms.values():
        assert loaded.model.device.type == "cuda"
        assert loaded.model.dtype == torch.bfloat16


def test_single_pass_on_cuda_matches_plain_passes_in_bf16(loaded_tiny_vlms: dict, photo_paths: list[str]) -> None:
    loaded = loaded_tiny_vlms["qwen3-vl"]
    scorer = VLMSinglePassScorer(loaded.path, loaded=loaded)
    images = [load_rgb(p, 1024) for p in photo_paths[:6]]
    fast = scorer.score_images(images)
    prompt, prefixes = scorer.prompts.single_pass()
    reference = np.array(
        [[score_batch_uncached(loaded, image, prompt.text, prefixes[d]) for d in DIMENSIONS] for image in images]
    )
    assert scorer.batch_size is not None and scorer.batch_size >= 6  # chosen from free memory
    np.testing.assert_allclose(fast, reference, atol=2e-2)


def test_static_cache_compiled_generation_matches_dynamic(loaded_tiny_vlms: dict, photo_paths: list[str]) -> None:
    loaded = loaded_tiny_vlms["qwen2.5-vl"]
    prompt = LocalVLMJudge(loaded.path, loaded=loaded).prompts.pairwise()
    images = [load_rgb(p, 512) for p in photo_paths[:2]]
    batch = [(ChatRequest(("a", "b"), prompt), images), (ChatRequest(("b", "a"), prompt), images[::-1])]
    dynamic, _ = generate_batch(loaded, batch, 12)
    static, _ = generate_batch(loaded, batch, 12, static_cache=True)
    again, _ = generate_batch(loaded, batch, 12, static_cache=True)  # replays the compiled step
    assert static == again
    tokenizer = loaded.processor.tokenizer
    for a, b in zip(dynamic, static, strict=True):
        assert tokenizer(a)["input_ids"][:4] == tokenizer(b)["input_ids"][:4]


def test_builtin_encoder_runs_bf16_channels_last_on_cuda() -> None:
    from aesthete_gui.ml.encoder import BuiltinEncoder

    encoder = BuiltinEncoder("cuda")
    assert encoder.dtype == torch.bfloat16
    weight = encoder.model._conv_stem.weight
    assert weight.is_contiguous(memory_format=torch.channels_last)
    pixels = torch.rand(8, 3, 224, 224, device="cuda")
    out = encoder.encode_tensor(pixels)
    assert out.shape == (8, 1280) and np.isfinite(out).all()
