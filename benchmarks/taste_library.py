"""The taste benchmark's library: real photographs shipped by installed packages, edited renditions
of them in the manner of DEAR, and their measurements (properties, built-in scores, embeddings).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

SKIMAGE_PHOTOS = (
    "astronaut", "camera", "chelsea", "coffee", "hubble_deep_field", "motorcycle_left", "rocket",
    "moon", "coins", "brick", "grass", "gravel", "retina", "immunohistochemistry", "clock",
)  # fmt: skip


def source_photos() -> dict[str, np.ndarray]:
    """The real photographs installed packages ship (RGB uint8)."""
    from skimage import data

    photos: dict[str, np.ndarray] = {}
    for name in SKIMAGE_PHOTOS:
        loader = getattr(data, name, None)
        if loader is None:
            continue
        array = np.asarray(loader())
        if array.ndim == 2:
            array = np.stack([array] * 3, axis=-1)
        photos[name] = array[..., :3].astype(np.uint8)
    try:
        import matplotlib.cbook

        with matplotlib.cbook.get_sample_data("grace_hopper.jpg") as handle:
            from PIL import Image

            photos["grace_hopper"] = np.asarray(Image.open(handle).convert("RGB"))
    except (OSError, ValueError):
        pass
    return photos


def rendition(photo: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict[str, float]]:
    """One edited version: random exposure, white balance, saturation, contrast, crop, blur, noise."""
    from PIL import Image, ImageFilter

    edits = {
        "exposure": float(rng.normal(0, 0.5)),  # stops
        "warmth": float(rng.normal(0, 0.08)),
        "saturation": float(np.exp(rng.normal(0, 0.4))),
        "contrast": float(np.exp(rng.normal(0, 0.3))),
        "crop": float(rng.uniform(0.6, 1.0)),
        "blur": float(max(0.0, rng.normal(0, 1.5))),
        "noise": float(max(0.0, rng.normal(0, 8))),
    }
    image = photo.astype(np.float32) / 255.0
    h, w = image.shape[:2]
    ch, cw = int(h * edits["crop"]), int(w * edits["crop"])
    top, left = rng.integers(0, h - ch + 1), rng.integers(0, w - cw + 1)
    image = image[top : top + ch, left : left + cw]
    image = image * 2 ** edits["exposure"]
    image = image * np.array([1 + edits["warmth"], 1.0, 1 - edits["warmth"]], dtype=np.float32)
    grey = image.mean(axis=2, keepdims=True)
    image = grey + (image - grey) * edits["saturation"]
    image = 0.5 + (image - 0.5) * edits["contrast"]
    result = Image.fromarray((np.clip(image, 0, 1) * 255).astype(np.uint8))
    if edits["blur"] > 0.2:
        result = result.filter(ImageFilter.GaussianBlur(edits["blur"]))
    array = np.asarray(result).astype(np.float32) + rng.normal(0, edits["noise"], size=np.asarray(result).shape)
    return np.clip(array, 0, 255).astype(np.uint8), edits


def build_library(folder: Path, per_photo: int, seed: int) -> tuple[list[str], list[str]]:
    """Write each photo (longest side 512) and `per_photo` renditions; return (paths, source names)."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    paths, sources = [], []
    for name, photo in source_photos().items():
        image = Image.fromarray(photo)
        image.thumbnail((512, 512))
        photo = np.asarray(image)
        for k in range(per_photo + 1):
            array = photo if k == 0 else rendition(photo, rng)[0]
            path = folder / f"{name}_{k:02d}.jpg"
            Image.fromarray(array).save(path, quality=92)
            paths.append(str(path))
            sources.append(name)
    return paths, sources


def measure_library(paths: list[str]) -> dict[str, np.ndarray]:
    """Image properties, built-in base scores and offline encoder embeddings for every image."""
    from aesthete_gui.engine.builtin_scorer import BuiltinScorer
    from aesthete_gui.imaging.features import FEATURE_NAMES, as_vector, features_for_path
    from aesthete_gui.ml.encoder import load_encoder

    started = time.perf_counter()
    features = np.array([as_vector(features_for_path(p)) for p in paths])  # the product's own path
    features = np.nan_to_num(features)
    feature_seconds = time.perf_counter() - started
    started = time.perf_counter()
    encoder = load_encoder(None)
    embeddings = np.asarray(encoder.encode_paths(paths, batch_size=16), dtype=float)
    embed_seconds = time.perf_counter() - started
    base = BuiltinScorer().score_arrays(None, FEATURE_NAMES, features)
    return {
        "features": features,
        "embeddings": embeddings,
        "base": base,
        "timing": np.array([feature_seconds, embed_seconds]),
        "encoder_id": np.array(encoder.encoder_id),
    }
