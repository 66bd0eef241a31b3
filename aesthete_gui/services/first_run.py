"""First start: prove the built-in scorer works on this machine, offline, before any model is chosen."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from PIL import Image

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.jobs import CancelToken, ProgressCallback

SAMPLE_SIZE = (480, 320)


@dataclass(frozen=True)
class BuiltinCheck:
    """The built-in scorer's five scores for the sample picture and how long measuring and scoring took."""

    scores: dict[str, float]
    seconds: float
    sample: Image.Image

    def summary(self) -> str:
        """One line such as `technique 3.1 · coloration 2.8 · …`."""
        return " · ".join(f"{name} {self.scores[name]:.1f}" for name in DIMENSIONS)


def sample_picture(size: tuple[int, int] = SAMPLE_SIZE) -> Image.Image:
    """A small landscape drawn here (sky, sun, hills, grain): a picture that needs no file or download."""
    width, height = size
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    sky = np.stack([70 + 120 * y / height, 120 + 90 * y / height, 200 + 40 * y / height], axis=-1)
    sun = (x - 0.7 * width) ** 2 + (y - 0.3 * height) ** 2 < (0.08 * width) ** 2
    sky[sun] = (255, 226, 150)
    ridge = 0.62 * height + 0.08 * height * np.sin(x / width * 7.0) + 0.04 * height * np.sin(x / width * 23.0)
    hills = y > ridge
    shade = np.clip((y - ridge) / (height - ridge + 1), 0, 1)[..., np.newaxis]
    sky[hills] = (np.array([60, 110, 50]) * (1 - 0.5 * shade) + 10)[hills]
    grain = np.random.default_rng(7).normal(0, 4, sky.shape)
    return Image.fromarray(np.clip(sky + grain, 0, 255).astype(np.uint8))


def check_builtin_scorer(progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> BuiltinCheck:
    """Measure the sample picture and score it with the built-in scorer (no network, no weights)."""
    from aesthete_gui.engine.builtin_scorer import BuiltinScorer
    from aesthete_gui.imaging.features import FEATURE_NAMES, as_vector, compute_features

    if cancel is not None:
        cancel.raise_if_cancelled()
    sample = sample_picture()
    start = time.perf_counter()
    row = as_vector(compute_features(sample))[np.newaxis].astype(float)
    values = BuiltinScorer().score_arrays(None, FEATURE_NAMES, row)[0]
    seconds = time.perf_counter() - start
    return BuiltinCheck({name: float(v) for name, v in zip(DIMENSIONS, values, strict=True)}, seconds, sample)
