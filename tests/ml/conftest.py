"""Session fixtures for the model layer: tiny random models built once, real images written to disk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.fixtures.tiny_models import (
    build_tiny_clip_vision,
    build_tiny_qwen3_vl,
    build_tiny_qwen25_vl,
    build_tiny_siglip,
)


@pytest.fixture(scope="session")
def tiny_qwen25_vl_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen2.5-VL checkpoint folder."""
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen25-vl"))


@pytest.fixture(scope="session")
def tiny_qwen3_vl_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen3-VL checkpoint folder."""
    return build_tiny_qwen3_vl(tmp_path_factory.mktemp("tiny-qwen3-vl"))


@pytest.fixture(scope="session", params=["qwen2.5-vl", "qwen3-vl"])
def tiny_vlm_dir(request: pytest.FixtureRequest) -> Path:
    """Each tiny VLM architecture in turn."""
    name = "tiny_qwen25_vl_dir" if request.param == "qwen2.5-vl" else "tiny_qwen3_vl_dir"
    return request.getfixturevalue(name)


@pytest.fixture(scope="session")
def tiny_siglip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random SigLIP vision tower folder."""
    return build_tiny_siglip(tmp_path_factory.mktemp("tiny-siglip"))


@pytest.fixture(scope="session")
def tiny_clip_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random CLIP vision tower (with projection) folder."""
    return build_tiny_clip_vision(tmp_path_factory.mktemp("tiny-clip"))


@pytest.fixture(scope="session")
def photo_paths(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Eight real JPEG/PNG files of different sizes and content, written by the test session."""
    folder = tmp_path_factory.mktemp("photos")
    rng = np.random.default_rng(7)
    paths = []
    for index in range(8):
        height, width = 60 + 13 * index, 90 + 7 * index
        gradient = np.linspace(0, 255, width, dtype=np.float32)[None, :, None]
        noise = rng.normal(0, 25 * (index % 3), size=(height, width, 3))
        tint = np.array([index * 30 % 255, 120, 255 - index * 25], dtype=np.float32)
        pixels = np.clip(0.5 * gradient + 0.5 * tint + noise, 0, 255).astype(np.uint8)
        suffix = ".png" if index % 4 == 3 else ".jpg"
        path = folder / f"photo_{index}{suffix}"
        Image.fromarray(pixels).save(path)
        paths.append(str(path))
    return paths


@pytest.fixture(scope="session")
def loaded_tiny_vlms(tiny_qwen25_vl_dir: Path, tiny_qwen3_vl_dir: Path) -> dict[str, object]:
    """Both tiny VLMs loaded once (LoadedModel per architecture name) for judges to share."""
    from aesthete_gui.ml.loading import load_vlm

    return {
        "qwen2.5-vl": load_vlm(tiny_qwen25_vl_dir),
        "qwen3-vl": load_vlm(tiny_qwen3_vl_dir),
    }
