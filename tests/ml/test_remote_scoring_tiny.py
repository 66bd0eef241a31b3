"""The server scorer against the local single-pass definition, on real tiny models served on 127.0.0.1.

The server (tests/ml/tiny_model_server.py) computes true log-probabilities with the same weights
the local scorer loads; the image is the same decoded JPEG on both sides. Continuing the answer's
opening once per dimension reads exactly what the local single pass reads; one generated answer
per image agrees on its first dimension only (each later one is read after the earlier digits).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.ml.images import jpeg_bytes
from aesthete_gui.ml.remote_scoring import RemoteScorer
from aesthete_gui.ml.scoring_vlm import VLMSinglePassScorer
from tests.ml.chat_server import ChatServer
from tests.ml.tiny_model_server import TinyModelScript


def compare_with_local(loaded, paths: list[str]) -> dict[str, np.ndarray]:
    """(images, dimensions) scores: local single pass, server continuing, server generating."""
    vocabulary = len(loaded.processor.tokenizer)
    with ChatServer(TinyModelScript(loaded)) as server:
        scored = {
            style: RemoteScorer(server.base_url, "tiny", style=style, top_logprobs=vocabulary, concurrency=2).score_paths(paths)
            for style in ("continue", "generate")
        }
    decoded = [Image.open(io.BytesIO(jpeg_bytes(p, 1024))).convert("RGB") for p in paths]
    local = VLMSinglePassScorer(loaded.path, loaded=loaded, batch_size=len(paths)).score_images(decoded)
    table = {style: np.array([[row[d] for d in DIMENSIONS] for row in rows]) for style, rows in scored.items()}
    return {"local": np.asarray(local), **table}


@pytest.mark.parametrize("architecture", ["qwen2.5-vl", "qwen3-vl"])
def test_continuing_the_answer_reads_the_local_definition_and_generating_does_not(
    architecture: str, loaded_tiny_vlms: dict, photo_paths: list[str]
) -> None:
    scores = compare_with_local(loaded_tiny_vlms[architecture], photo_paths[:3])
    local, continued, generated = scores["local"], scores["continue"], scores["generate"]
    assert np.abs(continued - local).max() < 1e-3
    assert np.abs(generated[:, 0] - local[:, 0]).max() < 1e-3  # the first dimension: the same position
    assert np.abs(generated[:, 1:] - local[:, 1:]).max() > 10 * np.abs(continued - local).max()
